"""Several server processes over one study database (``collabrl study serve --workers N``).

Why processes: one Python process runs one core; a study of hundreds of people at once needs
more. Each worker (0..N-1) answers on its own address and serves its own participants: a game
round lives in the memory of one process, so every member of a session group is served by the
worker that hosts the group. The database says who is where (``homes``, ``workers``).

- Joins are spread: worker 0 answers the study's link and redirects each join, in turn, to
  each worker's address.
- Matchmaking spans workers: the pool is every participant waiting on a match page, whichever
  worker serves them (:meth:`StudyDB.waiting`). A group is formed inside one write transaction
  that holds the matching lock (:meth:`Worker.claim`): it checks that every member still waits,
  and makes this worker their home, so no participant is in two groups and none is dropped.
- A member served by another worker moves: that worker sees it (:meth:`Worker.watch`) and tells
  their page to reload from the hosting worker's address (a ``moved`` message), and a request
  for them at the old address is redirected there.
"""

from __future__ import annotations

import asyncio
import itertools
from contextlib import suppress
from functools import partial
from typing import Protocol

from collabrl.study.live.host import StudyHost
from collabrl.study.store.db import ParticipantRow, StudyDB


class PoolHost(StudyHost, Protocol):
    """What the workers need of the runtime: its waiting pool, and forming a group from it."""

    @property
    def pool(self) -> list[str]: ...

    @property
    def waiting_since(self) -> dict[str, float]: ...

    @property
    def lock(self) -> asyncio.Lock: ...

    async def form(self, pids: list[str], how: str) -> bool: ...

    def arm_match_timer(self) -> None: ...


WATCH_S = 0.25  # how often a worker looks whether a waiting participant of its was matched


class Taken(Exception):
    """A participant another worker grouped first: the group is not formed here."""


class Worker:
    """This server process's place among ``count`` over ``db``, answering at ``url``."""

    def __init__(self, db: StudyDB, index: int, count: int, url: str) -> None:
        self.db, self.index, self.url = db, index, url.rstrip("/")
        self.gone: dict[str, str] = {}  # participants moved to another worker -> its address
        self._turns = itertools.cycle(range(count))
        self._urls: dict[int, str] = {}
        db.register_worker(index, self.url)

    def url_of(self, worker: int) -> str | None:
        """Worker ``worker``'s address (None: it has not started yet)."""
        if worker not in self._urls:  # read again until every worker has registered
            self._urls = self.db.worker_urls()
        return self._urls.get(worker)

    def join_target(self) -> str | None:
        """Where the next join goes: another worker's address, or None (this one; also when
        that worker has not started yet). Worker 0 answers the study's link and spreads its
        joins in turn; the others take what they are sent (a join is redirected once)."""
        if self.index != 0:
            return None
        worker = next(self._turns)
        return None if worker == self.index else self.url_of(worker)

    def home_url(self, pid: str) -> str:
        """The address of the worker that serves ``pid`` (this one's, if unknown)."""
        return self.gone.get(pid) or self.url_of(self.db.home(pid) or 0) or self.url

    def claim(self, rt: PoolHost, pids: list[str], how: str) -> list[str]:
        """Inside the batch that forms a group ``how`` ("matched", "timeout" or "solo"): lock
        matching, keep the ``pids`` that still wait (on a match page, unless "solo"; "matched":
        all of them, else raise :class:`Taken`) and make this worker their home; a member new
        to this worker is in ``rt.people`` once the batch commits."""
        self.db.lock_matching()
        rooms = rt.study.match_pages
        rows: dict[str, ParticipantRow] = {}
        for pid in pids:
            row = self.db.participant(pid)
            if row is not None and _waits(row) and (how == "solo" or row["page"] in rooms):
                rows[pid] = row
        if not rows or (how == "matched" and len(rows) < len(pids)):
            raise Taken(", ".join(p for p in pids if p not in rows))
        for pid, row in rows.items():
            if pid not in rt.people or pid in self.gone:
                self.db.set_home(pid, self.index)
                self.db.after_commit(partial(self._arrived, rt, pid, row))
        return list(rows)

    def grouped_by(self, pid: str) -> int | None:
        """Inside the batch that releases ``pid`` from a match page: lock matching and say
        which worker grouped them meanwhile (None: they still wait, the release goes on)."""
        self.db.lock_matching()
        row = self.db.participant(pid)
        return None if row is None or row["gid"] is None else self.db.home(pid)

    def _arrived(self, rt: PoolHost, pid: str, row: ParticipantRow) -> None:
        self.gone.pop(pid, None)
        rt.people[pid] = row

    async def match(self, rt: PoolHost, humans: int) -> None:
        """Form groups of ``humans`` from the pool of every worker (call with ``rt.lock``)."""
        pages = rt.study.match_pages
        while pages:
            waiting = [r["pid"] for r in self.db.waiting(pages)]
            if len(waiting) < humans:
                return
            pids = waiting[:humans]
            local = [p for p in rt.pool if p in pids]
            for pid in local:
                rt.pool.remove(pid)
            if not await rt.form(pids, "matched"):
                rt.pool[:0] = local  # another worker took one of them: look again

    async def watch(self, rt: PoolHost) -> None:
        """Forever: participants waiting here whom another worker grouped leave the pool and
        their page is told where to go."""
        while True:
            await asyncio.sleep(WATCH_S)
            if not rt.pool:
                continue
            async with rt.lock:
                homes = self.db.homes(rt.pool)
                moved = [p for p in rt.pool if homes.get(p, self.index) != self.index]
                for pid in moved:
                    self.send_away(rt, pid, homes[pid])
                if moved:
                    rt.arm_match_timer()

    def send_away(self, rt: PoolHost, pid: str, home: int) -> None:
        """``pid``, waiting here, was grouped by worker ``home``: out of this pool, and their
        page is told to go there."""
        if pid in rt.pool:
            rt.pool.remove(pid)
        rt.waiting_since.pop(pid, None)
        rt.deadlines.cancel(("page", pid))
        self.gone[pid] = self.url_of(home) or self.url
        rt.notify(pid)


def _waits(row: ParticipantRow) -> bool:
    """Whether a participant is active and in no group (on a match page: waiting)."""
    return row["gid"] is None and row["status"] == "active"


def serve_workers(location: str, admin: str, ports: list[int], urls: list[str], argv: list[str]):
    """Run one ``collabrl study serve ARGV`` worker per port until Ctrl-C (or until one of
    them stops), worker ``i`` on ``ports[i]``, reached at ``urls[i]``. The database address and
    the admin token travel in the environment, never on a command line others can read."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLLABRL_STUDY_DB": location, "COLLABRL_ADMIN_TOKEN": admin}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "collabrl",
                "study",
                "serve",
                *argv,
                "--port",
                str(port),
                "--public-url",
                url,
                "--workers",
                str(len(ports)),
                "--worker",
                str(i),
            ],
            env=env,
        )  # fmt: skip
        for i, (port, url) in enumerate(zip(ports, urls, strict=True))
    ]
    try:
        while all(p.poll() is None for p in procs):
            with suppress(subprocess.TimeoutExpired):
                procs[0].wait(timeout=0.5)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            with suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
