"""BatchingEngine: calls from several threads share one engine call, and every caller gets its
own rows back (or the merged call's error)."""

from __future__ import annotations

import threading
import time

import pytest

from collabrl.engines.batching import BatchingEngine
from collabrl.engines.types import Completion, GenerationResult, SamplingParams


class Echo:
    """Replies with each conversation's last message; records each call's row count."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[int] = []
        self.fail = fail

    def generate(self, conversations, params):
        self.calls.append(len(conversations))
        time.sleep(0.01)  # a decoding loop's worth of time, so callers pile up
        if self.fail:
            raise RuntimeError("engine down")
        return [
            GenerationResult(completions=[Completion(c[-1]["content"], "stop")])
            for c in conversations
        ]


def play(engine, threads: int, calls: int, seeded: bool = True) -> dict[int, list[str]]:
    got: dict[int, list[str]] = {}

    def worker(k: int) -> None:
        got[k] = []
        for step in range(calls):
            params = SamplingParams(seed=1000 * k + step if seeded else None)
            text = f"{k}:{step}"
            (result,) = engine.generate([[{"role": "user", "content": text}]], params)
            got[k].append(result.completions[0].text)
            time.sleep(0.001 * (k % 3))  # games step at different speeds

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return got


def test_threads_share_calls_and_get_their_own_rows() -> None:
    inner = Echo()
    engine = BatchingEngine(inner, target=8, window_s=0.05)
    got = play(engine, threads=8, calls=6)
    assert got == {k: [f"{k}:{s}" for s in range(6)] for k in range(8)}
    assert sum(inner.calls) == 48
    assert len(inner.calls) <= 12  # 48 one-row calls became a handful of merged ones
    assert max(inner.calls) == 8


def test_different_sampling_settings_are_not_merged() -> None:
    inner = Echo()
    engine = BatchingEngine(inner, target=2, window_s=0.2)
    results: list[str] = []

    def call(temperature: float) -> None:
        conv = [{"role": "user", "content": str(temperature)}]
        results.append(
            engine.generate([conv], SamplingParams(temperature=temperature))[0].completions[0].text
        )

    pool = [threading.Thread(target=call, args=(t,)) for t in (0.5, 1.0)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert sorted(results) == ["0.5", "1.0"] and inner.calls == [1, 1]


def test_an_engine_error_reaches_every_caller() -> None:
    engine = BatchingEngine(Echo(fail=True), target=4, window_s=0.05)
    errors: list[str] = []

    def call() -> None:
        with pytest.raises(RuntimeError) as info:
            engine.generate([[{"role": "user", "content": "x"}]], SamplingParams())
        errors.append(str(info.value))

    pool = [threading.Thread(target=call) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == ["engine down"] * 4


def test_a_lone_caller_waits_one_window_at_most() -> None:
    inner = Echo()
    engine = BatchingEngine(inner, target=16, window_s=0.05)
    start = time.perf_counter()
    play(engine, threads=1, calls=4, seeded=False)
    assert time.perf_counter() - start < 0.5
    assert engine.target == 1  # learned that one caller is playing
