"""An httpx transport that spreads requests over several small connection pools.

Why: httpcore matches waiting requests to connections by scanning every connection for every
waiting request, on every request event, so its CPU cost per request grows with the square of the
connections in one pool (encode/httpx#3215). Measured on 2 cores against a 100 ms fake server: one
pool of 64 connections reached 0.18 of the concurrency bound, spending 8.5 ms of CPU per request;
pools of 8 reached 0.92 at 0.66 ms. Each request goes to the pool with the fewest requests in
flight, so while a caller keeps at most ``connections`` in flight no pool needs more connections
than it keeps alive, and every connection is reused from call to call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx

POOL_CONNECTIONS = 8
"""Connections kept alive per pool: small enough that httpcore's matching stays cheap."""

KEEPALIVE_S = 30.0
"""Idle connections live this long between calls (rollout rounds are seconds apart); a server
that closes them sooner is noticed before reuse, and a request caught in the race is retried."""


class _Releasing(httpx.AsyncByteStream):
    """A response body that calls ``release`` once when closed: its connection is busy until
    then, not only until the headers came."""

    def __init__(self, stream: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self.stream, self.release = stream, release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        finally:
            release, self.release = self.release, lambda: None
            release()


class PooledTransport(httpx.AsyncBaseTransport):
    """``ceil(connections / POOL_CONNECTIONS)`` pools; each request goes to the least busy."""

    def __init__(self, connections: int) -> None:
        count = max(1, -(-connections // POOL_CONNECTIONS))
        limits = httpx.Limits(
            max_connections=None,  # callers bound requests in flight themselves
            max_keepalive_connections=POOL_CONNECTIONS,
            keepalive_expiry=KEEPALIVE_S,
        )
        self.pools = [httpx.AsyncHTTPTransport(limits=limits) for _ in range(count)]
        self.busy = [0] * count  # requests in flight per pool (one event loop: no lock needed)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = min(range(len(self.pools)), key=self.busy.__getitem__)
        self.busy[index] += 1
        try:
            response = await self.pools[index].handle_async_request(request)
        except BaseException:
            self.busy[index] -= 1
            raise
        response.stream = _Releasing(response.stream, lambda: self._release(index))
        return response

    def _release(self, index: int) -> None:
        self.busy[index] -= 1

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()
