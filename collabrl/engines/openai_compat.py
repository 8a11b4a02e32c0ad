"""Engine for any OpenAI-compatible server (vLLM serve, SGLang, DeepSeek, OpenAI) over
``/v1/chat/completions``.

Why: simulated partners and judges run on remote or separately served models; this client keeps
many requests in flight within a bound, survives rate limits and transient faults, records every
failure per request, and caches responses so judge/eval runs are reproducible. Each engine owns one
event loop (:class:`collabrl.engines.aio.LoopThread`) and one HTTP session on it for its whole life,
so keep-alive connections are reused across rollout rounds and judge batches instead of being
opened again for every ``generate`` call.

The client is aiohttp: its C HTTP parser and connection pool cost about a quarter of the CPU per
request that httpx's did (httpcore matches waiting requests to connections by scanning the whole
pool, encode/httpx#3215). Measured by ``benchmarks/engine_overhead.py`` on 2 cores against a
100 ms fake server, 64 in flight: httpx 0.94 of the concurrency bound, aiohttp 0.97.

Secrets: the base URL and API key are read from environment variables named in the options at
call time; the key is only ever put in each request's Authorization header (never stored on the
engine or its client, logged, hashed into cache keys or written to the cache). Server text (replies, error bodies) is
checked and redacted by :mod:`collabrl.engines.replies` before anything keeps it, so a server that
quotes the key back cannot put it into records, caches or logs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import urllib.parse
import urllib.request
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from collabrl.engines.aio import LoopThread
from collabrl.engines.cache import ResponseCache, cache_key
from collabrl.engines.factory import build_options
from collabrl.engines.options import OpenAIOptions
from collabrl.engines.replies import MalformedReply, Redactor, error_text, parse_reply
from collabrl.engines.retry import RETRYABLE_STATUS, Backoff, parse_retry_after
from collabrl.engines.stops import truncate_at_stop
from collabrl.engines.types import (
    Completion,
    Conversation,
    FinishReason,
    GenerationResult,
    SamplingParams,
)

if TYPE_CHECKING:
    from collabrl.engines.factory import EngineConfig

log = logging.getLogger(__name__)

KEEPALIVE_S = 30.0
"""Idle connections live this long between calls (rollout rounds are seconds apart); a server
that closes them sooner is noticed before reuse, and a request caught in the race is retried."""


def _first_env(names: tuple[str, ...]) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


def _completion(choice: dict[str, Any], stop: tuple[str, ...]) -> Completion:
    """Apply the shared stop rule: vLLM says which stop string ended the text (``stop_reason``)
    and drops it, so put it back; text a server did not cut is cut here."""
    text, reason = choice["text"], choice["stop_reason"]
    if isinstance(reason, str) and reason in stop and not text.endswith(reason):
        text += reason
    text, hit = truncate_at_stop(text, stop)
    finish: FinishReason = "length" if choice["finish_reason"] == "length" and not hit else "stop"
    return Completion(text=text, finish_reason=finish)


def env_proxy(url: str) -> str | None:
    """The proxy that ``HTTP_PROXY``/``HTTPS_PROXY``/``NO_PROXY`` name for ``url``, as other HTTP
    clients honour them. Looked up once per session: aiohttp's ``trust_env`` would look it up
    (and read ``~/.netrc``) in a worker thread on every request, which cost 0.3 ms of CPU per
    request and most of the engine's headroom at 64 in flight."""
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)


@dataclass
class _Connection:
    """The engine's HTTP session and the server URL and proxy it was made for."""

    session: aiohttp.ClientSession | None = None
    base_url: str = ""
    proxy: str | None = None


@dataclass(frozen=True)
class _Call:
    """What every request of one ``generate`` call shares."""

    session: aiohttp.ClientSession
    url: str
    proxy: str | None
    slots: asyncio.Semaphore  # bounds the call's requests in flight
    redact: Redactor
    headers: dict[str, str]


def _shut_down(loop: LoopThread, conn: _Connection) -> None:
    """Close ``conn``'s session on ``loop``, then stop the loop (idempotent)."""
    session, conn.session = conn.session, None
    if session is not None:
        loop.submit(session.close())
    loop.stop()


class OpenAIEngine:
    """Async, bounded, retrying, caching chat client; ``generate`` is the sync entry."""

    def __init__(self, model: str, options: OpenAIOptions | None = None) -> None:
        self.model = model
        self.options = options or OpenAIOptions()
        self.backoff = Backoff(self.options.backoff_base_s, self.options.backoff_cap_s)
        self.cache = (
            ResponseCache(Path(self.options.cache_dir) / "responses.sqlite")
            if self.options.cache_dir
            else None
        )
        self._loop = LoopThread(f"openai-engine:{model}")
        self._conn = _Connection()  # made on, and used only from, self._loop
        # An engine dropped without close() still closes its connections and stops its loop
        # (when collected, or at exit): no "unclosed session" warnings, no leaked threads.
        weakref.finalize(self, _shut_down, self._loop, self._conn)

    @classmethod
    def from_config(cls, config: EngineConfig) -> OpenAIEngine:
        return cls(config.model, build_options(OpenAIOptions, config.options, "openai"))

    def __repr__(self) -> str:
        return f"OpenAIEngine(model={self.model!r}, concurrency={self.options.concurrency})"

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        """Blocking form of :meth:`agenerate` (callable from any thread, inside a running loop
        or not)."""
        return self._loop.run(self._generate(conversations, params))

    async def agenerate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        """All requests concurrently (at most ``concurrency`` in flight); results in order. Runs
        on the engine's own loop, whichever loop awaits it."""
        return await self._loop.run_async(self._generate(conversations, params))

    async def _generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        base_url = _first_env(self.options.base_url_env)
        if not base_url:
            error = f"no server URL: set one of {list(self.options.base_url_env)}"
            return [GenerationResult(error=error) for _ in conversations]
        key = _first_env(self.options.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        redact = Redactor(os.environ.get(name, "") for name in self.options.api_key_env)
        session, proxy = await self._connect(base_url)
        call = _Call(
            session=session,
            url=base_url.rstrip("/") + "/chat/completions",
            proxy=proxy,
            slots=asyncio.Semaphore(self.options.concurrency),
            redact=redact,
            headers=headers,
        )
        jobs = [
            self._one(call, self._body(conv, params, i), params, i)
            for i, conv in enumerate(conversations)
        ]
        return list(await asyncio.gather(*jobs))

    async def _connect(self, base_url: str) -> tuple[aiohttp.ClientSession, str | None]:
        """The engine's one session and the proxy for ``base_url``, made again only when the server
        URL changes. Its pool has no cap of its own (each call bounds its own requests in flight,
        and two calls may run at once, e.g. the judge's threads) and keeps idle connections alive
        between calls."""
        conn = self._conn
        if conn.session is not None and conn.base_url != base_url:
            await conn.session.close()
            conn.session = None
        if conn.session is None:
            conn.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEPALIVE_S),
                timeout=aiohttp.ClientTimeout(total=self.options.timeout_s),
            )
            conn.base_url, conn.proxy = base_url, env_proxy(base_url)
        return conn.session, conn.proxy

    def _body(self, conv: Conversation, params: SamplingParams, index: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in conv],
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_new_tokens,
            "n": params.n,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed + index
        return {**body, **self.options.extra_body}

    async def _one(
        self, call: _Call, body: dict[str, Any], params: SamplingParams, index: int
    ) -> GenerationResult:
        t0 = time.perf_counter()
        cache = self.cache
        key = cache_key(body) if cache is not None else ""
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            data, error = cached, None
        else:
            data, error = await self._post_with_retries(call, body, index)
            if data is not None and cache is not None:
                cache.put(key, data)
        result = GenerationResult(
            latency_s=time.perf_counter() - t0, error=error, cached=cached is not None
        )
        if data is not None:
            result.completions = [_completion(c, params.stop) for c in data["choices"]]
            result.prompt_tokens = data["prompt_tokens"]
            result.completion_tokens = data["completion_tokens"]
        return result

    async def _post_with_retries(
        self, call: _Call, body: dict[str, Any], index: int
    ) -> tuple[dict[str, Any] | None, str | None]:
        """(parsed response, None) or (None, error). Transient faults and unusable replies are
        retried with backoff; a slot is held only while a request is on the wire, not while
        backing off. Server text is redacted (and errors kept to one line) by ``call.redact``
        before it is returned or logged."""
        attempts = self.options.max_retries + 1
        error = ""
        for attempt in range(attempts):
            status, content, retry_after = None, b"", None
            async with call.slots:
                try:
                    async with call.session.post(
                        call.url,
                        json=body,
                        headers=call.headers,
                        proxy=call.proxy,
                        allow_redirects=False,
                    ) as response:
                        status, content = response.status, await response.read()
                        retry_after = parse_retry_after(response.headers.get("Retry-After"))
                except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11 on
                    error = f"timeout after {self.options.timeout_s}s"
                except aiohttp.ClientError as e:  # transport faults, undecodable bodies
                    error = f"connection error: {type(e).__name__}"
            if status == 200:
                try:
                    return parse_reply(content, call.redact), None
                except MalformedReply as e:
                    error = str(e)
            elif status is not None:
                error = (
                    f"HTTP {status}: {error_text(content.decode(errors='replace'), call.redact)}"
                )
                if status not in RETRYABLE_STATUS:
                    return None, error
            if attempt + 1 < attempts:
                delay = self.backoff.delay(attempt, retry_after)
                log.warning(
                    "request %d: %s; retry %d/%d in %.2fs",
                    index,
                    error,
                    attempt + 1,
                    attempts - 1,
                    delay,
                )
                await asyncio.sleep(delay)
        return None, f"{error} (gave up after {attempts} attempts)"

    def close(self) -> None:
        """Close the HTTP session's connections, stop the engine's loop, close the cache."""
        _shut_down(self._loop, self._conn)
        if self.cache is not None:
            self.cache.close()
