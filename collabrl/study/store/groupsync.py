"""Group commit for the study database: many commits, one sync to disk, off the event loop.

Why: syncing at every commit (SQLite's ``synchronous=FULL``, PostgreSQL's default) makes the
server's one event-loop thread wait for the disk once per decision, page move and connect; at a
few hundred participants it does little else. Instead, commits are made without waiting for the
disk (SQLite ``synchronous=NORMAL``, PostgreSQL ``synchronous_commit=off``: a killed server
loses nothing, the operating system or PostgreSQL holds the data), and whoever is about to
*tell* someone of a change (a decision taken, a page shown) first awaits
:meth:`GroupSync.synced`. One sync on a worker thread covers every commit made before it began,
and every waiter that arrives meanwhile shares the next one. So nothing is acknowledged before
it is on disk, as before, at one sync per moment instead of one per write.

The sync itself: SQLite, an ``fsync`` of the write-ahead log; PostgreSQL, one commit made with
``synchronous_commit=on`` on a connection of its own (a row of ``sync_marks``), which flushes
the server's log up to it and so every commit made before it.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing, suppress
from pathlib import Path

CHECKPOINT_S = 1.0  # how often the log is copied into the database file, at most


class GroupSync:
    """Counts commits and makes them durable in groups with ``flush`` (blocking, thread-safe
    with respect to the caller's connection); ``close`` releases what ``flush`` holds."""

    def __init__(self, flush: Callable[[], None], close: Callable[[], None]) -> None:
        self._flush_now, self.close = flush, close
        self.commits = 0  # commits made so far (bumped by StudyDB after each COMMIT)
        self.synced_to = 0  # commits known to be on disk
        self._flight: asyncio.Future[None] | None = None

    def committed(self) -> None:
        self.commits += 1

    async def synced(self) -> None:
        """Return once every commit made so far is on disk (raises what ``flush`` raises)."""
        target = self.commits
        while self.synced_to < target:
            if self._flight is None:
                self._flight = asyncio.ensure_future(self._flush())
            await asyncio.shield(self._flight)

    async def _flush(self) -> None:
        upto = self.commits
        try:
            await asyncio.to_thread(self._flush_now)
            self.synced_to = max(self.synced_to, upto)
        finally:
            self._flight = None


def sqlite_sync(path: Path) -> GroupSync:
    """Group sync of the SQLite file at ``path``: an fsync of its write-ahead log. It also
    checkpoints the log into the file (at most every :data:`CHECKPOINT_S` seconds, on a thread
    and a connection of its own), which the serving connection then no longer does: SQLite's
    automatic checkpoint copies and syncs pages inside a commit, on the event loop."""
    fd: list[int] = []
    last = [time.monotonic()]
    running = threading.Lock()

    def checkpoint() -> None:
        try:
            with suppress(sqlite3.Error), closing(sqlite3.connect(path, timeout=5)) as conn:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")  # never waits for writers
        finally:
            last[0] = time.monotonic()
            running.release()

    def flush() -> None:
        if not fd:
            fd.append(os.open(f"{path}-wal", os.O_RDONLY))
        os.fsync(fd[0])
        if time.monotonic() - last[0] > CHECKPOINT_S and running.acquire(blocking=False):
            threading.Thread(target=checkpoint, daemon=True).start()

    def close() -> None:
        while fd:
            os.close(fd.pop())
        running.acquire()  # a checkpoint under way finishes first
        running.release()

    return GroupSync(flush, close)


def postgres_sync(url: str) -> GroupSync:
    """Group sync on the PostgreSQL server at ``url``: a synchronous commit of this process's
    row in ``sync_marks``."""
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    mark = os.getpid()

    def flush() -> None:
        conn.execute(
            "INSERT INTO sync_marks VALUES (%s, 1) "
            "ON CONFLICT (mark) DO UPDATE SET n = sync_marks.n + 1",
            (mark,),
        )

    return GroupSync(flush, conn.close)
