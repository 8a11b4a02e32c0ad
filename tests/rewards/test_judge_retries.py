"""Judges as released (issue 48): the training judge samples at 0.7 with 8192 tokens and asks
again, up to 50 times, for a verdict it cannot use; the evaluation judges reply in 900 tokens and
retry unparsable JSON 3 times; every retry is counted in the records."""

from __future__ import annotations

import json
from collections import Counter

from collabrl.config import JudgeSpec, load_recipe
from collabrl.config.roles import TrainingJudgeSpec
from collabrl.engines import make_engine
from collabrl.factory import make_judge
from collabrl.rewards.judges import DIMENSIONS
from collabrl.testing.fake_openai import FakeOpenAIServer
from collabrl.testing.scripted import ScriptedEngine
from collabrl.training.judging import StepJudging
from collabrl.training.metrics import failure_counts
from tests.rewards.test_judge_llm import view

ENGINE = {"backend": "openai", "model": "judge"}


def test_defaults_are_the_released_judges() -> None:
    training, evaluation = TrainingJudgeSpec(), JudgeSpec()
    assert (training.sampling.temperature, training.sampling.max_new_tokens) == (0.7, 8192)
    assert training.retries == 50
    assert (evaluation.sampling.temperature, evaluation.sampling.max_new_tokens) == (0.0, 900)
    assert evaluation.retries == 3
    recipe = load_recipe("cwah_gigpo")  # the paper recipe keeps them
    assert recipe.reward.judge.sampling == training.sampling and recipe.reward.judge.retries == 50
    judge = make_judge(recipe.reward.judge, engine=ScriptedEngine(lambda c: "{}"))
    assert judge.params.temperature == 0.7 and judge.params.max_new_tokens == 8192
    assert judge.retries == 50


def unusable_first(times: int):
    """A judge server that answers each conversation ``times`` times with prose, then JSON."""
    seen: Counter[str] = Counter()

    def reply(messages) -> str:
        last = messages[-1]["content"]
        seen[json.dumps(messages)] += 1
        if "NEVER" in last or seen[json.dumps(messages)] <= times:
            return "I would rate this highly."
        if "decision 1" in last:  # a window prompt
            return json.dumps({"violations": [{"rule": "late", "deduction": 1}]})
        return json.dumps({"thought": "fine", "interactivity": 0.7})

    return reply


def test_training_judge_retries_an_unusable_verdict_through_the_server(monkeypatch) -> None:
    with FakeOpenAIServer(responder=unusable_first(2)) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        spec = TrainingJudgeSpec(kind="llm", engine=ENGINE, retries=3)
        engine = make_engine(spec.engine.model_dump())
        judge = make_judge(spec, engine=engine)
        out = judge.judge_steps([view("obs-a"), view("obs-NEVER"), view(valid=False)])
        engine.close()
    assert out[0].level == 0.7 and out[0].attempts == 3 and not out[0].failed
    assert out[1].level is None and out[1].attempts == 4 and out[1].error.startswith("parse:")
    assert out[2].skipped and out[2].attempts == 1
    assert server.requests == 3 + 4  # one batch a round: the unusable ones asked again


def test_retries_draw_new_seeds_and_stop_at_a_failed_request() -> None:
    engine = ScriptedEngine(lambda c: None if "DOWN" in c[-1]["content"] else "prose")
    judge = make_judge(JudgeSpec(kind="llm", engine=ENGINE), engine=engine)
    out = judge.judge_windows([[view(), view(), view()], [view("DOWN")] * 3])
    assert [p.seed for p in engine.params] == [0, 1_000_003, 2_000_006, 3_000_009]
    assert all(p.max_new_tokens == 900 for p in engine.params)
    assert all(j.attempts == 4 for j in out[0].values())  # unparsable: 1 + 3 retries
    assert all(j.attempts == 1 and j.error.startswith("engine:") for j in out[1].values())
    no_retry = make_judge(JudgeSpec(kind="llm", engine=ENGINE, retries=0), engine=engine)
    assert all(j.attempts == 1 for j in no_retry.judge_windows([[view()] * 3])[0].values())


def test_retries_are_counted_in_training_metrics_and_evaluation_results() -> None:
    spec = TrainingJudgeSpec(kind="llm", engine=ENGINE)
    judging = StepJudging(make_judge(spec, engine=ScriptedEngine(unusable_first(1))), {})
    assert judging._judge([view("obs-1"), view("obs-2")]) == ([0.7, 0.7], 2)
    counts = failure_counts([], {}, judge_retries=2)
    assert counts["retries/judge"] == 2

    from collabrl.eval.report import judge_failures

    judge = make_judge(
        JudgeSpec(kind="llm", engine=ENGINE), engine=ScriptedEngine(unusable_first(1))
    )
    verdicts = judge.judge_windows([[view(), view(), view()]])

    class Outcome:  # the part of an EpisodeOutcome judge_failures reads
        judgements = verdicts
        windows = [0]
        scores: dict = {}

    report = judge_failures([Outcome()])
    assert report["retries"] == dict.fromkeys(DIMENSIONS, 1)
    assert report["failed"] == dict.fromkeys(DIMENSIONS, 0)
