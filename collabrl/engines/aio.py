"""One long-lived event loop on a daemon thread, for synchronous callers of async clients.

Why: the rollout loop and scripts are synchronous, while the HTTP engine is async. Starting a
fresh loop per call (``asyncio.run``) would also mean a fresh HTTP client per call, so no
connection would outlive one rollout round or judge batch; a loop that lives as long as its
engine keeps one client, and its keep-alive connections, for every call. Callers on any thread,
inside a running loop of their own or not, submit coroutines to it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """An event loop running on its own daemon thread, started on first use."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self.name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result (blocks the calling thread)."""
        return asyncio.run_coroutine_threadsafe(coro, self._running_loop()).result()

    async def run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` run on the loop, from a coroutine of another loop."""
        future = asyncio.run_coroutine_threadsafe(coro, self._running_loop())
        return await asyncio.wrap_future(future)

    def on_loop_thread(self) -> bool:
        """Whether the caller runs on the loop's own thread (where waiting for it deadlocks)."""
        return self._thread is not None and threading.current_thread() is self._thread

    def submit(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` to its end; on the loop's own thread (a finalizer the garbage collector
        ran there), start it without waiting instead."""
        if self.on_loop_thread():
            self._running_loop().create_task(coro)
        else:
            self.run(coro)

    def stop(self) -> None:
        """Stop the loop and join its thread (a later ``run`` starts a new one). On the loop's
        own thread the loop is only told to stop."""
        own_thread = self.on_loop_thread()
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if not own_thread:
            thread.join()
            loop.close()
