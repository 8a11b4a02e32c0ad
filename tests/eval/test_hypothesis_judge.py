"""``eval.hypothesis_judge``: free-text analysis submissions scored by the LLM judge in a whole
evaluation (policy, partner and judge on the fake OpenAI server), failures counted, lint."""

import json

import pytest

from collabrl.config import EvalSpec
from collabrl.envs.analysis.tasks import get_task
from collabrl.errors import CollabrlError
from collabrl.eval.cli import build_spec
from collabrl.eval.protocol import run_evaluation
from collabrl.testing.fake_openai import FakeOpenAIServer

TASK = "arch-test-01"
GOLD = get_task(TASK).gold


def player_reply(observation: str, sentence: str) -> str:
    """Both seats write only the sentence, then submit: a free-text submission."""
    action = f"edit_sentence({sentence})" if "- sentence: (empty)" in observation else "submit"
    return f"<think>t</think><message></message><action>{action}</action>"


def evaluate(tmp_path, monkeypatch, sentence: str, mode: str) -> tuple[dict, list[str]]:
    """Run the evaluation of TASK; returns results.json and the hypothesis prompts judged."""
    judged: list[str] = []

    def responder(messages) -> str:
        last = messages[-1]["content"]
        if "Submitted hypothesis:" in last:
            judged.append(last)
            if GOLD.sentence in last.split("Submitted hypothesis:")[1]:
                return '{"context": 1, "variables": 1, "relation": 1, "rationale": "same"}'
            return "I cannot tell."
        if messages[0]["content"].startswith("You audit"):
            return '{"violations": [], "summary": "fine"}'
        return player_reply(last, sentence)

    engine = {"backend": "openai", "options": {"max_retries": 0, "cache_dir": str(tmp_path)}}
    with FakeOpenAIServer(responder=responder) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        spec = EvalSpec.model_validate(
            {
                "games": ["analysis"],
                "tasks": [TASK],
                "max_profiles": 1,
                "seats": [1],
                "output_dir": str(tmp_path / mode),
                "policy": {"kind": "llm", "engine": {**engine, "model": "policy"}},
                "partner": {
                    "kind": "llm",
                    "use_profile": False,
                    "engine": {**engine, "model": "partner"},
                },
                "judge": {"kind": "llm", "engine": {**engine, "model": "judge"}},
                "hypothesis_judge": mode,
            }
        )
        result = run_evaluation(spec, progress=False)
    (outcome,) = result.outcomes
    summary = outcome.record.summary
    assert summary["hypothesis"]["sentence"] == sentence and summary["hypothesis"]["context"] == ""
    results = json.loads((tmp_path / mode / "results.json").read_text())
    trajectory = json.loads((tmp_path / mode / "trajectories.jsonl").read_text().splitlines()[0])
    assert trajectory["summary"]["score"] == summary["score"] == outcome.efficiency
    assert outcome.efficiency_reward == summary["score"]
    return results, judged


def overall(results: dict) -> dict:
    return next(r for r in results["tables"] if r["task"] == "Overall")


def test_a_correct_free_text_submission_scores_through_the_judge(tmp_path, monkeypatch) -> None:
    results, judged = evaluate(tmp_path, monkeypatch, GOLD.sentence, "llm")
    assert len(judged) == 1 and f"- sentence: {GOLD.sentence}" in judged[0]
    row = overall(results)
    assert row["efficiency"] == 1.0 and row["performance"] == 1.0
    counts = results["hypothesis_judge"]
    assert counts["judged"] == 1 and counts["failed"] == 0 and counts["failure_kinds"] == {}
    assert counts["prompt"].startswith("hypothesis-v1@")


def test_exact_scoring_gives_free_text_zero_and_asks_no_judge(tmp_path, monkeypatch) -> None:
    results, judged = evaluate(tmp_path, monkeypatch, GOLD.sentence, "exact")
    assert judged == [] and overall(results)["efficiency"] == 0.0
    assert "hypothesis_judge" not in results


def test_a_garbled_verdict_keeps_the_exact_score_and_is_counted(tmp_path, monkeypatch) -> None:
    results, judged = evaluate(tmp_path, monkeypatch, "Pollen peaks late.", "llm")
    assert len(judged) == 1 and overall(results)["efficiency"] == 0.0
    counts = results["hypothesis_judge"]
    assert counts["judged"] == 1 and counts["failed"] == 1
    assert counts["failure_kinds"] == {"parse": 1}
    trajectory = json.loads((tmp_path / "llm" / "trajectories.jsonl").read_text().splitlines()[0])
    verdict = trajectory["summary"]["hypothesis_judgement"]
    assert verdict["error"] == "parse: no JSON object in reply" and verdict["facets"] is None
    assert trajectory["summary"]["score_source"] == "exact"


def test_lint_refuses_an_llm_hypothesis_judge_without_an_llm_judge() -> None:
    with pytest.raises(CollabrlError) as err:
        build_spec(("games=[analysis]", "hypothesis_judge=llm"), None, oracle=False)
    assert "hypothesis_judge=llm needs judge.kind=llm" in str(err.value)
    assert "not judge.kind=heuristic" in str(err.value) and "\n" not in str(err.value)
    spec = build_spec(
        (
            "games=[analysis]",
            "hypothesis_judge=llm",
            "judge.kind=llm",
            "judge.engine={backend: openai, model: m}",
        ),
        None,
        oracle=False,
    )
    assert spec.hypothesis_judge == "llm" and EvalSpec().hypothesis_judge == "exact"
