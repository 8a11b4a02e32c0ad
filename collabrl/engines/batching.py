"""Lockstep batching: the ``generate`` calls of an evaluation's worker threads merged into one
engine call per round, reproducibly.

Why: an evaluation plays one episode per job, and each decision asks the policy for one reply.
With a small model one reply costs nearly as much as thirty (on 2 CPU cores, 32 rows decode 2.7x
faster per row than one; on a GPU, far more): the time goes to the decoding loop, not to the rows.
Playing the jobs on threads (``eval.workers``) through this batcher turns W one-row calls into one
W-row call, the way the training rollout batches its games.

How: the batcher knows how many workers are live. A round runs once every live worker is waiting
on one of the engines it wraps: the thread whose request completes the round makes one call per
engine and sampling setting (seeds aside; rows in job order, the call seeded by its first row),
and every waiting worker gets its rows back. A worker that has no job left leaves, and a round
that only waited for it runs. So which rows share a call, and in what order, depends on the jobs
alone, never on thread timing: a seeded evaluation gives the same episodes on every run (not the
same as with ``workers=1``, whose one-row calls draw other random numbers).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from collabrl.engines.types import Conversation, GenerationResult, SamplingParams


@dataclass
class _Request:
    engine: Any
    key: int  # the job's index: rows of a merged call are in job order
    conversations: list[Conversation]
    params: SamplingParams
    results: list[GenerationResult] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False


class LockstepBatcher:
    """:meth:`enrol` the workers before any starts; each worker thread plays its jobs inside
    :meth:`job` and calls :meth:`leave` once it has none left. ``sizes`` lists the merged calls'
    row counts."""

    def __init__(self) -> None:
        self.live = 0
        self.sizes: list[int] = []
        self._cond = threading.Condition()
        self._queue: list[_Request] = []
        self._local = threading.local()

    def wrap(self, engine: Any) -> LockstepEngine:
        """``engine`` with its ``generate`` calls merged in this batcher's rounds."""
        return LockstepEngine(self, engine)

    def enrol(self, workers: int) -> None:
        """``workers`` threads are about to play: rounds wait for each of them."""
        with self._cond:
            self.live = workers

    @contextmanager
    def job(self, key: int) -> Iterator[None]:
        """Mark the calling worker's requests as job ``key``'s until the block ends."""
        self._local.key = key
        try:
            yield
        finally:
            self._local.key = -1

    def leave(self) -> None:
        """The calling worker has no job left: rounds stop waiting for it."""
        with self._cond:
            self.live -= 1
            self._run_if_complete()

    def generate(
        self, engine: Any, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        request = _Request(engine, getattr(self._local, "key", -1), list(conversations), params)
        with self._cond:
            self._queue.append(request)
            self._run_if_complete()
            while not request.done:
                self._cond.wait()
        if request.error is not None:
            raise request.error
        return request.results

    def _run_if_complete(self) -> None:
        """Run the round if every live worker is waiting (the lock is held: the workers are all
        parked in ``wait``, so the engine calls run alone)."""
        if not self._queue or len(self._queue) < self.live:
            return
        taken, self._queue = sorted(self._queue, key=lambda r: r.key), []
        groups: dict[tuple[int, SamplingParams], list[_Request]] = {}
        for r in taken:
            groups.setdefault((id(r.engine), replace(r.params, seed=None)), []).append(r)
        for same in groups.values():
            self._run(same)
        self._cond.notify_all()

    def _run(self, requests: list[_Request]) -> None:
        rows = [c for r in requests for c in r.conversations]
        self.sizes.append(len(rows))
        try:
            results = requests[0].engine.generate(rows, requests[0].params)
        except Exception as exc:  # every caller of the merged call sees its error
            for r in requests:
                r.error, r.done = exc, True
            return
        start = 0
        for r in requests:
            r.results = list(results[start : start + len(r.conversations)])
            start += len(r.conversations)
            r.done = True


class LockstepEngine:
    """An engine whose ``generate`` goes through a :class:`LockstepBatcher`; everything else is
    the wrapped engine's."""

    def __init__(self, batcher: LockstepBatcher, engine: Any) -> None:
        self.batcher, self.engine = batcher, engine

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        return self.batcher.generate(self.engine, conversations, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)
