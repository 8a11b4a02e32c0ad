"""An in-process fake OpenAI-compatible chat server on loopback, with injectable faults.

Why: the HTTP engine's concurrency bound, retries, caching and fault reporting must be tested
(and benchmarked) without a real model server or network.

Usage::

    with FakeOpenAIServer(latency_s=0.05) as server:
        server.inject("flaky", Fault.http(503), Fault.http(429, retry_after=0.1))
        os.environ["COLLABRL_OPENAI_BASE_URL"] = server.base_url
        ...  # requests whose last message contains "flaky" get the faults in order, then succeed
        server.max_in_flight, server.requests, server.connections, server.auth_headers

Faults cover transport trouble (HTTP errors, delays, truncated JSON) and odd but well-formed
replies: wrong field types, non-string content, HTML pages, request headers quoted back (the
API key with them) and unicode line breaks.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]


def echo_responder(messages: list[dict[str, str]]) -> str:
    """A reply in the agent format that quotes the last message, with text past the action tag
    so stop-string handling is exercised."""
    last = messages[-1]["content"] if messages else ""
    return (
        f"<think>ok</think>\n<message>heard: {last}</message>\n<action>wait</action> trailing words"
    )


DROP = "<drop>"
"""A ``Fault.patch`` value that removes the field from the reply."""

HTML_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n"
    "<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
LINE_BREAKS = "\u2028\u2029\x85\x1c\r"
"""Characters ``str.splitlines`` breaks lines at besides ``\\n`` (a JSON-lines hazard)."""


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour for one request."""

    kind: str  # "http" | "delay" | "malformed" | "patch" | "content" | "html" | "echo" | "breaks"
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0
    value: Any = None  # patch: top-level reply fields to replace; content: the message content

    @classmethod
    def http(cls, status: int, retry_after: float | None = None) -> Fault:
        return cls("http", status=status, retry_after=retry_after)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer correctly but late: a slow reply, or a timeout if longer than the client waits."""
        return cls("delay", seconds=seconds)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def patch(cls, **fields: Any) -> Fault:
        """A 200 reply with these top-level fields replaced (``DROP`` removes one), e.g.
        ``patch(choices=DROP)`` or ``patch(usage={"prompt_tokens": "many"})``."""
        return cls("patch", value=fields)

    @classmethod
    def wrong_types(cls) -> Fault:
        """A 200 reply whose token counts are not integers (a broken proxy's reply)."""
        return cls.patch(usage={"prompt_tokens": "many", "completion_tokens": [1]})

    @classmethod
    def content(cls, value: Any) -> Fault:
        """A 200 reply whose ``message.content`` is ``value``: 123, None, a list, ..."""
        return cls("content", value=value)

    @classmethod
    def html(cls, status: int = 200) -> Fault:
        """An HTML error page (as a proxy in front of the model server sends), with ``status``."""
        return cls("html", status=status)

    @classmethod
    def echo_headers(cls, status: int = 401) -> Fault:
        """The request's headers (``Authorization`` included) quoted back: in a JSON error body
        with ``status``, or, with status 200, at the end of the reply's content."""
        return cls("echo", status=status)

    @classmethod
    def line_breaks(cls, status: int = 200) -> Fault:
        """Unicode line breaks (U+2028, U+2029, U+0085, ...): in place of the reply's newlines
        with status 200, or inside a JSON error body with another status."""
        return cls("breaks", status=status)


def _raw_json(payload: Any) -> bytes:
    """JSON with non-ASCII characters sent as UTF-8, not escaped (as many servers do)."""
    return json.dumps(payload, ensure_ascii=False).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 512
    allow_reuse_address = True


class FakeOpenAIServer:
    """Serves ``POST /v1/chat/completions`` like vLLM: stop strings are applied and left out of the
    text, with ``stop_reason`` naming the one that matched; ``max_tokens`` counts words."""

    def __init__(self, latency_s: float = 0.0, responder: Responder = echo_responder) -> None:
        self.latency_s = latency_s
        self.responder = responder
        self.requests = 0
        self.connections = 0  # TCP connections accepted: a client that reuses them opens few
        self.in_flight = 0
        self.max_in_flight = 0
        self.auth_headers: list[str] = []
        self._faults: dict[str, deque[Fault]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def inject(self, match: str, *faults: Fault) -> None:
        """Requests whose last message contains ``match`` take these faults in order."""
        with self._lock:
            self._faults[match].extend(faults)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_fault(self, messages: list[dict[str, str]]) -> Fault | None:
        last = messages[-1]["content"] if messages else ""
        with self._lock:
            for match, queue in self._faults.items():
                if queue and match in last:
                    return queue.popleft()
        return None

    def _enter(self, auth: str | None) -> None:
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if auth:
                self.auth_headers.append(auth)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion the server sends for a well-formed request."""
        text = self.responder(body["messages"])
        finish, stop_reason = "stop", None
        hits = [(text.find(s), s) for s in body.get("stop") or [] if s in text]
        if hits:
            cut, stop_reason = min(hits)
            text = text[:cut]
        words = text.split(" ")
        if len(words) > body.get("max_tokens", 1 << 30):
            text, finish, stop_reason = " ".join(words[: body["max_tokens"]]), "length", None
        choice = {
            "message": {"role": "assistant", "content": text},
            "finish_reason": finish,
            "stop_reason": stop_reason,
        }
        prompt_words = sum(len(m["content"].split()) for m in body["messages"])
        return {
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": i, **choice} for i in range(body.get("n", 1))],
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": len(text.split())},
        }

    def faulty_answer(
        self, fault: Fault, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[int, bytes, dict[str, str]]:
        """(status, payload, extra headers) of a request that takes ``fault``."""
        if fault.kind == "http":
            extra = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
            return fault.status, b'{"error": {"message": "injected fault"}}', extra
        if fault.kind == "malformed":
            return 200, b'{"choices": [{"message": ', {}
        if fault.kind == "html":
            return fault.status, HTML_PAGE.encode(), {"Content-Type": "text/html"}
        first = sorted(headers, key=lambda name: name.lower() != "authorization")  # key up front
        echo = json.dumps({name: headers[name] for name in first})
        said = {"echo": f"request headers: {echo}", "breaks": LINE_BREAKS}
        if fault.status != 200:
            error = {"error": {"message": f"rejected ({said[fault.kind]}): try again"}}
            return fault.status, _raw_json(error), {}
        return 200, _raw_json(self._altered_reply(fault, body, said)), {}

    def _altered_reply(
        self, fault: Fault, body: dict[str, Any], said: dict[str, str]
    ) -> dict[str, Any]:
        """The normal reply to ``body``, changed as a 200-status ``fault`` says."""
        reply = self.reply(body)
        if fault.kind == "patch":
            reply.update(fault.value)
            return {k: v for k, v in reply.items() if v != DROP}
        for choice in reply["choices"]:
            text = choice["message"]["content"]
            choice["message"]["content"] = {
                "content": fault.value,
                "echo": f"{text} ({said['echo']})",
                "breaks": text.replace("\n", LINE_BREAKS),
            }[fault.kind]
        return reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server.connections += 1

            def log_message(self, format: str, *args: Any) -> None:
                """Silence the per-request access log (it would flood test output)."""

            def _send(
                self, status: int, payload: bytes, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                if not (headers and "Content-Type" in headers):
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if not self.path.endswith("/chat/completions"):
                    self._send(404, b'{"error": "not found"}')
                    return
                server._enter(self.headers.get("Authorization"))
                try:
                    self._serve(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer
                finally:
                    server._leave()

            def _serve(self, body: dict[str, Any]) -> None:
                time.sleep(server.latency_s)
                fault = server._next_fault(body["messages"])
                if fault is not None and fault.kind == "delay":
                    time.sleep(fault.seconds)
                    fault = None
                if fault is None:
                    self._send(200, json.dumps(server.reply(body)).encode())
                else:
                    self._send(*server.faulty_answer(fault, body, dict(self.headers)))

        return Handler
