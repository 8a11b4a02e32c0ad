"""What keeps a local server local: a per-run token, strict page headers, rate limits.

Why a token although the server binds 127.0.0.1: any page the person opens in the same browser
could otherwise script requests to the port; the random token in the URL is the capability.
The Content-Security-Policy forbids inline scripts, so even text that slipped past the pages'
escaping (they only ever set ``textContent``) could not run.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def content_security_policy(frames_own_pages: bool = False) -> str:
    """Same-origin scripts, styles, images, sockets and form posts (the serve page's start
    button) only; no inline script. With ``frames_own_pages`` (the study pages, which frame the
    game page) pages of this origin may be framed by this origin; otherwise no page may be
    framed at all."""
    frames = "frame-src 'self'; " if frames_own_pages else ""
    ancestors = "'self'" if frames_own_pages else "'none'"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; {frames}base-uri 'none'; form-action 'self'; "
        f"frame-ancestors {ancestors}"
    )


HEADERS = {
    "content-security-policy": content_security_policy(),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",  # the token is in the URL: never send it elsewhere
    "cache-control": "no-store",
}


def new_token() -> str:
    """A fresh random token for one server run."""
    return secrets.token_urlsafe(18)


def has_token(conn: HTTPConnection, token: str, name: str = "token") -> bool:
    """Whether a request or WebSocket carries ``token`` in its query parameter ``name``
    (``?token=`` by default), compared in constant time."""
    given = conn.query_params.get(name, "")
    return secrets.compare_digest(given.encode(), token.encode())


class SecurityHeaders:
    """ASGI middleware adding ``headers`` (default :data:`HEADERS`) to every HTTP response."""

    def __init__(self, app: ASGIApp, headers: dict[str, str] | None = None) -> None:
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in (headers or HEADERS).items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, with_headers)


class RateLimit:
    """A token bucket: ``rate`` events per second on average, bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.level, self.last = float(burst), clock()

    def allow(self) -> bool:
        """Take one event if the bucket has room."""
        now = self.clock()
        self.level = min(self.burst, self.level + (now - self.last) * self.rate)
        self.last = now
        if self.level < 1:
            return False
        self.level -= 1
        return True
