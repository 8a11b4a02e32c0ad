"""``eval.workers`` above 1 with a local model: the workers' decisions are decoded together in
rounds, the evaluation is reproducible, and a failing job neither hangs nor hides its error."""

from __future__ import annotations

import json

import pytest

from collabrl.config import EvalSpec
from collabrl.eval import runner
from collabrl.eval.protocol import run_evaluation


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    from collabrl.models.tiny import make_tiny_model

    return str(make_tiny_model(tmp_path_factory.mktemp("tiny"), seed=0))


def spec(tiny: str, out, workers: int) -> EvalSpec:
    return EvalSpec(
        games=["household"],
        tasks=["0_read_book", "5_read_book"],
        max_profiles=2,
        seats=[1],
        workers=workers,
        policy={
            "kind": "llm",
            "engine": {"backend": "transformers", "model": tiny},
            "sampling": {"temperature": 1.0, "max_new_tokens": 8},
        },
        game_options={"household": {"max_ticks": 12}},
        output_dir=str(out),
    )


def replies(out) -> list[list[str]]:
    rows = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    return [[t["response"] for t in row["turns"] if t["seat"] == row["seat_name"]] for row in rows]


def test_workers_decode_together_and_reproduce(tiny, tmp_path) -> None:
    first = run_evaluation(spec(tiny, tmp_path / "a", workers=3), progress=False)
    again = run_evaluation(spec(tiny, tmp_path / "b", workers=3), progress=False)
    merged = first.stamp["merged_calls"]
    # 4 jobs of 12 decisions on 3 workers: 12 rounds of the first three jobs, then 12 of the last
    assert [o.decisions for o in first.outcomes] == [12] * 4
    assert merged == {"calls": 24, "rows": 48, "rows_per_call": 2.0}
    assert replies(tmp_path / "a") == replies(tmp_path / "b")
    assert [o.job for o in first.outcomes] == [o.job for o in again.outcomes]
    alone = run_evaluation(spec(tiny, tmp_path / "c", workers=1), progress=False)
    assert alone.stamp["merged_calls"] is None
    assert [o.job for o in alone.outcomes] == [o.job for o in first.outcomes]  # job order kept


def test_a_failing_job_reaches_the_caller_without_hanging_the_others(
    tiny, tmp_path, monkeypatch
) -> None:
    real, started = runner.play_job, []

    def fail_one(spec, job, *args):
        started.append(job)
        if job == jobs[1]:
            raise RuntimeError("game crashed")
        return real(spec, job, *args)

    jobs = runner.select_jobs(spec(tiny, tmp_path / "x", workers=3))
    monkeypatch.setattr(runner, "play_job", fail_one)
    with pytest.raises(RuntimeError, match="game crashed"):
        run_evaluation(spec(tiny, tmp_path / "x", workers=3), progress=False)
    assert jobs[1] in started and jobs[3] not in started  # no job taken after the error
