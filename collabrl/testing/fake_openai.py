"""An in-process fake OpenAI-compatible chat server on loopback, with injectable faults.

Why: the HTTP engine's concurrency bound, retries, caching and fault reporting must be tested
(and benchmarked) without a real model server or network.

Usage::

    with FakeOpenAIServer(latency_s=0.05) as server:
        server.inject("flaky", Fault.http(503), Fault.http(429, retry_after=0.1))
        os.environ["COLLABRL_OPENAI_BASE_URL"] = server.base_url
        ...  # requests whose last message contains "flaky" get the faults in order, then succeed
        server.max_in_flight, server.requests, server.auth_headers
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


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour for one request."""

    kind: str  # "http" | "delay" | "malformed"
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0

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

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes

            def log_message(self, format: str, *args: Any) -> None:
                """Silence the per-request access log (it would flood test output)."""

            def _send(
                self, status: int, payload: bytes, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
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
                if fault is not None and fault.kind == "http":
                    headers = (
                        {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
                    )
                    self._send(fault.status, b'{"error": {"message": "injected fault"}}', headers)
                elif fault is not None and fault.kind == "malformed":
                    self._send(200, b'{"choices": [{"message": ')
                else:
                    self._send(200, json.dumps(server.reply(body)).encode())

        return Handler
