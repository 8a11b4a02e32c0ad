"""Running an app on uvicorn: in the foreground for the CLI, or on a thread for tests and
benchmarks (both bind loopback unless told otherwise)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from collabrl.errors import CollabrlError

WS_MAX_BYTES = 64 * 1024  # one decision is a few hundred bytes; refuse frames far larger
DEFAULT_HOST = "127.0.0.1"


def require_web() -> None:
    """One-line error when the ``web`` extra is missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401
    except ImportError as exc:
        raise CollabrlError(
            f"the web app needs the web extra ({exc.name} is missing): pip install 'collabrl[web]'"
        ) from None


def free_port(host: str) -> int:
    """A port the OS says is free on ``host`` now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _server(app: Any, host: str, port: int, forwarded_allow_ips: str | None = None):
    """A uvicorn server; ``forwarded_allow_ips``: the proxies whose X-Forwarded-For/-Proto
    headers are trusted (None: uvicorn's default, 127.0.0.1 or FORWARDED_ALLOW_IPS)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_max_size=WS_MAX_BYTES,
        # no per-message deflate: compressing every state costs the server's one thread more
        # than it saves on a few-KB message (py-spy: 4% of a loaded study server's time)
        ws_per_message_deflate=False,
        log_level="warning",
        lifespan="on",
        proxy_headers=True,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    return uvicorn.Server(config)


def steady_gc() -> None:
    """Short garbage-collector pauses for a long-running server. Everything alive at start
    (imported libraries, the app, a loaded study) lives as long as the process, yet every full
    collection would scan it again: it is moved out of the collector's sight (``gc.freeze``).
    The young generation is collected after 50,000 allocations instead of 700, so that a busy
    event loop spends less time in collections (a 500-participant study: full collections of
    0.1-0.6 s every few seconds before, py-spy and gc callbacks)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, *gc.get_threshold()[1:])


def run_foreground(
    app: Any,
    host: str,
    port: int,
    path: str,
    what: str,
    forwarded_allow_ips: str | None = None,
    base_url: str | None = None,
) -> None:
    """Serve ``app`` until Ctrl-C, after printing the URL to open (under ``base_url``, the
    address people reach it at behind a proxy, when given)."""
    port = port or free_port(host)
    server = _server(app, host, port, forwarded_allow_ips)
    steady_gc()
    shown = f"[{host}]" if ":" in host else host
    announce(f"{what}: open {base_url or f'http://{shown}:{port}'}{path}")
    server.run()


def announce(line: str) -> None:
    """Print ``line`` to stdout in one write: ``serve --workers N`` children share one stdout,
    and unbuffered ``print`` writes the text and its newline apart, so two workers' links
    could run together on one line (seen in CI with PYTHONUNBUFFERED)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


@contextmanager
def background(app: Any, host: str = DEFAULT_HOST) -> Iterator[str]:
    """Serve ``app`` on a thread for the block; yields its base URL (``http://host:port``)."""
    port = free_port(host)
    server = _server(app, host, port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
