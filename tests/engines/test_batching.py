"""LockstepBatcher: the calls of the live workers share one engine call per round, every caller
gets its own rows back (or the merged call's error), and which rows share a call, in what order
and under which seed, does not depend on thread timing."""

from __future__ import annotations

import random
import threading
import time

import pytest

from collabrl.engines.batching import LockstepBatcher
from collabrl.engines.types import Completion, GenerationResult, SamplingParams


class Echo:
    """Replies with each conversation's last message; records each call's rows and seed."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[list[str], int | None]] = []
        self.fail = fail

    def generate(self, conversations, params):
        self.calls.append(([c[-1]["content"] for c in conversations], params.seed))
        if self.fail:
            raise RuntimeError("engine down")
        return [
            GenerationResult(completions=[Completion(c[-1]["content"], "stop")])
            for c in conversations
        ]


def play(engine, batcher: LockstepBatcher, calls: list[int], jitter: int) -> dict[int, list[str]]:
    """Worker k makes ``calls[k]`` calls as job k, sleeping a random while between them (the
    games step at different speeds); returns each worker's replies."""
    got: dict[int, list[str]] = {}
    rng = random.Random(jitter)
    pauses = [[rng.random() * 0.005 for _ in range(n)] for n in calls]

    def worker(k: int) -> None:
        try:
            with batcher.job(k):
                got[k] = []
                for step in range(calls[k]):
                    time.sleep(pauses[k][step])
                    params = SamplingParams(seed=1000 * k + step)
                    (result,) = engine.generate(
                        [[{"role": "user", "content": f"{k}:{step}"}]], params
                    )
                    got[k].append(result.completions[0].text)
        finally:
            batcher.leave()

    batcher.enrol(len(calls))
    pool = [threading.Thread(target=worker, args=(k,)) for k in reversed(range(len(calls)))]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return got


def test_live_workers_share_one_call_a_round_and_get_their_own_rows() -> None:
    inner, batcher = Echo(), LockstepBatcher()
    got = play(batcher.wrap(inner), batcher, [6] * 8, jitter=0)
    assert got == {k: [f"{k}:{s}" for s in range(6)] for k in range(8)}
    assert [len(rows) for rows, _ in inner.calls] == [8] * 6  # 48 one-row calls became 6
    assert batcher.sizes == [8] * 6


def test_rounds_are_the_same_whatever_the_thread_timing() -> None:
    records = []
    for jitter in range(3):
        inner, batcher = Echo(), LockstepBatcher()
        play(batcher.wrap(inner), batcher, [4, 1, 3, 2], jitter=jitter)
        records.append(inner.calls)
    # rows in job order, the call seeded by its first row; workers that end are not waited for
    assert records[0] == [
        (["0:0", "1:0", "2:0", "3:0"], 0),
        (["0:1", "2:1", "3:1"], 1),
        (["0:2", "2:2"], 2),
        (["0:3"], 3),
    ]
    assert records[1] == records[0] == records[2]


def test_different_sampling_settings_or_engines_are_not_merged() -> None:
    inner, other, batcher = Echo(), Echo(), LockstepBatcher()
    engines = {0: batcher.wrap(inner), 1: batcher.wrap(inner), 2: batcher.wrap(other)}
    temperatures = {0: 0.5, 1: 1.0, 2: 0.5}

    def call(k: int) -> None:
        try:
            with batcher.job(k):
                conv = [{"role": "user", "content": str(k)}]
                engines[k].generate([conv], SamplingParams(temperature=temperatures[k]))
        finally:
            batcher.leave()

    batcher.enrol(3)
    pool = [threading.Thread(target=call, args=(k,)) for k in range(3)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert inner.calls == [(["0"], None), (["1"], None)] and other.calls == [(["2"], None)]


def test_an_engine_error_reaches_every_caller() -> None:
    batcher = LockstepBatcher()
    engine = batcher.wrap(Echo(fail=True))
    errors: list[str] = []

    def call() -> None:
        try:
            with pytest.raises(RuntimeError) as info:
                engine.generate([[{"role": "user", "content": "x"}]], SamplingParams())
            errors.append(str(info.value))
        finally:
            batcher.leave()

    batcher.enrol(4)
    pool = [threading.Thread(target=call) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == ["engine down"] * 4


def test_a_caller_outside_the_workers_is_answered_at_once_once_they_have_left() -> None:
    inner, batcher = Echo(), LockstepBatcher()
    engine = batcher.wrap(inner)  # e.g. a judge on the policy's model after the episodes
    (result,) = engine.generate([[{"role": "user", "content": "alone"}]], SamplingParams())
    assert result.completions[0].text == "alone" and inner.calls == [(["alone"], None)]


def test_an_evaluation_batches_local_engines_and_leaves_server_engines_alone() -> None:
    from collabrl.config import EngineSpec
    from collabrl.factory import LockstepEngines

    class Cache:
        def __init__(self) -> None:
            self.engines: dict[str, object] = {}

        def get(self, spec):
            return None if spec is None else self.engines.setdefault(spec.model, object())

    cache, batcher = Cache(), LockstepBatcher()
    engines = LockstepEngines(cache, batcher)  # type: ignore[arg-type]
    local = EngineSpec(backend="transformers", model="tiny")
    server = EngineSpec(backend="openai", model="gpt")
    wrapped = engines.get(local)
    assert wrapped.engine is cache.engines["tiny"] and wrapped.batcher is batcher
    assert engines.get(local) is wrapped  # one wrapper per engine: act_all groups by engine
    assert engines.get(server) is cache.engines["gpt"] and engines.get(None) is None
