"""An engine wrapper that merges the ``generate`` calls of several threads into one call.

Why: an evaluation plays one episode per job, and each decision asks the policy for one reply.
With a local GPU engine and a small model, one reply costs about as much as sixty: the time goes
to the decoding loop, not to the rows. Playing the jobs on threads (``eval.workers``) through this
wrapper turns W one-row calls into one W-row call, the way the training rollout batches its games.

How: the first caller to find the engine idle leads. It waits until ``target`` requests are
queued or ``window_s`` has passed, takes every queued request, and makes one call per distinct
sampling setting (seeds aside: a merged call takes its first request's seed); the others wait for
their rows. ``target`` adapts: a window that closes on fewer requests (episodes have ended) lowers
it to what came. Merged calls give each job the same reply distribution as alone, but which rows
share a call depends on thread timing, so seeded runs are not bit-reproducible through it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from collabrl.engines.types import Conversation, GenerationResult, SamplingParams


@dataclass
class _Request:
    conversations: list[Conversation]
    params: SamplingParams
    results: list[GenerationResult] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False


class BatchingEngine:
    """``BatchingEngine(engine, target=workers)``; ``sizes`` lists the merged calls' row counts."""

    def __init__(self, engine: Any, target: int = 64, window_s: float = 0.1) -> None:
        self.engine = engine
        self.target = self.most = max(1, target)
        self.window_s = window_s
        self.sizes: list[int] = []
        self._cond = threading.Condition()
        self._queue: list[_Request] = []
        self._leading = False

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        request = _Request(list(conversations), params)
        with self._cond:
            self._queue.append(request)
            self._cond.notify_all()
            while not request.done and self._leading:
                self._cond.wait()
            if not request.done:
                self._leading = True
        if not request.done:
            self._lead()
        if request.error is not None:
            raise request.error
        return request.results

    def _lead(self) -> None:
        """Collect a window's requests, run them, hand the rows back."""
        deadline = time.monotonic() + self.window_s
        with self._cond:
            while self._rows() < self.target and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            if self._rows() < self.target:
                self.target = max(1, self._rows())  # fewer are playing now
            taken, self._queue = self._queue, []
        try:
            groups: dict[SamplingParams, list[_Request]] = {}
            for r in taken:
                groups.setdefault(replace(r.params, seed=None), []).append(r)
            for same in groups.values():
                self._run(same)
        finally:
            with self._cond:
                self._leading = False
                if self.target < self.most and self._queue:
                    self.target = min(self.most, self.target + len(self._queue))
                self._cond.notify_all()

    def _rows(self) -> int:
        return sum(len(r.conversations) for r in self._queue)

    def _run(self, requests: list[_Request]) -> None:
        rows = [c for r in requests for c in r.conversations]
        self.sizes.append(len(rows))
        try:
            results = self.engine.generate(rows, requests[0].params)
        except Exception as exc:  # every caller of the merged call sees its error
            for r in requests:
                r.error, r.done = exc, True
            return
        start = 0
        for r in requests:
            r.results = list(results[start : start + len(r.conversations)])
            start += len(r.conversations)
            r.done = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)
