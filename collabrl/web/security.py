"""What keeps a local server local: a per-run token, Host and Origin checks, strict page
headers, rate limits.

Why a token although the server binds 127.0.0.1: any page the person opens in the same browser
could otherwise script requests to the port; the random token in the URL is the capability.
Why Host and Origin checks on top: a foreign site could rebind its DNS name to 127.0.0.1 (its
requests then carry its own name as Host), or open a WebSocket with a leaked token (the browser
then sends the foreign site as Origin); both are refused before any route runs.
The Content-Security-Policy forbids inline scripts, so even text that slipped past the pages'
escaping (they only ever set ``textContent``) could not run.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from collabrl.errors import CollabrlError


def content_security_policy(frames_own_pages: bool = False, media: bool = False) -> str:
    """Same-origin scripts, styles, images, sockets and form posts (the serve page's start
    button) only; no inline script. With ``frames_own_pages`` (the study pages, which frame the
    game page) pages of this origin may be framed by this origin; otherwise no page may be
    framed at all. With ``media`` (study pages) same-origin video and audio play too."""
    frames = "frame-src 'self'; " if frames_own_pages else ""
    frames += "media-src 'self'; " if media else ""
    ancestors = "'self'" if frames_own_pages else "'none'"
    return (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; {frames}base-uri 'none'; form-action 'self'; "
        f"frame-ancestors {ancestors}"
    )


HEADERS = {
    "content-security-policy": content_security_policy(),
    "x-content-type-options": "nosniff",
    # the token is in the URL: never send it to another site (same-origin still lets browsers
    # send this origin as Origin on form posts, which HostAndOrigin checks)
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def new_token() -> str:
    """A fresh random token for one server run."""
    return secrets.token_urlsafe(18)


ADMIN_TOKEN_ENV = "COLLABRL_ADMIN_TOKEN"
MIN_ADMIN_TOKEN = 16  # characters: a guessable admin token would expose every participant


def admin_token() -> str:
    """The study admin token: ``COLLABRL_ADMIN_TOKEN`` (stable across restarts, from the
    deployment's secrets) or a new one. Raises CollabrlError for a set one that is too short."""
    token = os.environ.get(ADMIN_TOKEN_ENV, "")
    if not token:
        return new_token()
    if len(token) < MIN_ADMIN_TOKEN:
        raise CollabrlError(
            f"{ADMIN_TOKEN_ENV} is {len(token)} characters: use at least {MIN_ADMIN_TOKEN} "
            "random ones (python -c 'import secrets; print(secrets.token_urlsafe(18))')"
        )
    return token


def has_token(conn: HTTPConnection, token: str, name: str = "token") -> bool:
    """Whether a request or WebSocket carries ``token`` in its query parameter ``name``
    (``?token=`` by default), compared in constant time."""
    given = conn.query_params.get(name, "")
    return secrets.compare_digest(given.encode(), token.encode())


class SecurityHeaders:
    """ASGI middleware adding ``headers`` (default :data:`HEADERS`) to every HTTP response,
    except one the response sets itself (a sandboxed component's page has its own policy)."""

    def __init__(self, app: ASGIApp, headers: dict[str, str] | None = None) -> None:
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in (headers or HEADERS).items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = {k.lower() for k, _ in message.get("headers", [])}
                added = [(k, v) for k, v in self.headers if k not in own]
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        await self.app(scope, receive, with_headers)


ALLOWED_HOSTS_ENV = "COLLABRL_ALLOWED_HOSTS"  # extra Host names, comma-separated (a proxy's name)
ALLOWED_ORIGINS_ENV = (
    "COLLABRL_ALLOWED_ORIGINS"  # extra page origins, e.g. https://study.example.org
)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _listed(variable: str) -> frozenset[str]:
    return frozenset(
        v.strip().lower() for v in os.environ.get(variable, "").split(",") if v.strip()
    )


def _hostname(netloc: str) -> str:
    """The name part of a Host header or an origin's netloc ("[::1]:8000" -> "::1")."""
    return (urlsplit(f"//{netloc}").hostname or "").lower()


def host_and_origin_problem(scope: Scope) -> str | None:
    """Why a request or WebSocket handshake must be refused (None: it may go on).

    Host: a loopback name, the address the connection arrived on, or a name listed in
    ``COLLABRL_ALLOWED_HOSTS``. Origin (sent by browsers on WebSockets and form posts): absent
    (a program, not a page), the same host and port as Host, or listed in
    ``COLLABRL_ALLOWED_ORIGINS``; ``null`` (a sandboxed or file page) is refused."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    host = headers.get("host", "")
    server = (scope.get("server") or ("",))[0] or ""
    allowed = LOOPBACK_NAMES | {server.lower()} | _listed(ALLOWED_HOSTS_ENV)
    if _hostname(host) not in allowed:
        return f"Host {host[:100]!r} is not this server's (set {ALLOWED_HOSTS_ENV} behind a proxy)"
    origin = headers.get("origin")
    unsafe = scope["type"] == "websocket" or scope.get("method", "GET") not in SAFE_METHODS
    if origin is None or not unsafe:
        return None
    if origin.lower() in _listed(ALLOWED_ORIGINS_ENV):
        return None
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        return f"Origin {origin[:100]!r} is not this server's page (set {ALLOWED_ORIGINS_ENV})"
    return None


class HostAndOrigin:
    """ASGI middleware refusing, with 403 and before any route or WebSocket upgrade, requests
    whose Host or Origin :func:`host_and_origin_problem` rejects."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = host_and_origin_problem(scope) if scope["type"] in ("http", "websocket") else None
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": problem[:120]})
        else:
            body = f"forbidden: {problem}\n".encode()
            headers = [(b"content-type", b"text/plain; charset=utf-8")]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            await send({"type": "http.response.body", "body": body})


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
