"""Small event-loop tools: change counters that pages wait on, named deadlines, and running a
coroutine to completion from synchronous code.

Why not asyncio.Condition: state changes happen inside synchronous code (a session's
end-of-episode callback), and a counter plus a one-shot Event can be bumped from there.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Hashable
from typing import Any


class Notifier:
    """A change counter per key; waiters wake when it moves past what they saw."""

    def __init__(self) -> None:
        self._versions: dict[Hashable, int] = {}
        self._events: dict[Hashable, asyncio.Event] = {}

    def version(self, key: Hashable) -> int:
        return self._versions.get(key, 0)

    def bump(self, key: Hashable) -> None:
        self._versions[key] = self.version(key) + 1
        event = self._events.pop(key, None)
        if event is not None:
            event.set()

    async def wait(self, key: Hashable, seen: int) -> int:
        """Return the counter once it differs from ``seen``."""
        while self.version(key) == seen:
            event = self._events.setdefault(key, asyncio.Event())
            await event.wait()
        return self.version(key)


class Deadlines:
    """Named one-shot timers on the running loop; arming a name again replaces its timer."""

    def __init__(self) -> None:
        self._handles: dict[Hashable, tuple[asyncio.TimerHandle, float]] = {}

    def arm(self, key: Hashable, seconds: float, callback: Callable[[], None]) -> None:
        self.cancel(key)

        def fire() -> None:
            self._handles.pop(key, None)
            callback()

        handle = asyncio.get_running_loop().call_later(seconds, fire)
        self._handles[key] = (handle, time.monotonic() + seconds)

    def cancel(self, key: Hashable) -> None:
        entry = self._handles.pop(key, None)
        if entry is not None:
            entry[0].cancel()

    def armed(self, key: Hashable) -> bool:
        return key in self._handles

    def remaining(self, key: Hashable) -> float | None:
        """Seconds left on ``key``'s timer (None when it is not armed)."""
        entry = self._handles.get(key)
        return None if entry is None else max(0.0, entry[1] - time.monotonic())

    def cancel_all(self) -> None:
        for key in list(self._handles):
            self.cancel(key)


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion and return its result, also where this thread already runs an
    event loop (a notebook, Playwright's sync API): then on a thread with its own loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = asyncio.run(coro)
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]
