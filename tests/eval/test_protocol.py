"""The evaluation protocol as the paper runs it: tick limit only (a decision cap is a reported
safety net), single-pass policies, window judges without the partner's profile, and the
profile-free ("homogeneous") partner arm."""

from __future__ import annotations

import csv

import pytest

from collabrl.config import EvalSpec
from collabrl.envs.base import MESSAGE_ACTION
from collabrl.eval.protocol import run_evaluation
from collabrl.factory import EngineCache
from collabrl.profiles import get_profile
from collabrl.testing.scripted import ScriptedEngine

CHATTY = f"<think>Say something.</think><message>Keep going, you are doing great!</message><action>{MESSAGE_ACTION}</action>"


class Engines(EngineCache):
    """Every engine the spec asks for is the one scripted engine."""

    def __init__(self, engine: ScriptedEngine) -> None:
        super().__init__()
        self.engine = engine

    def get(self, spec):
        return self.engine


def spec(tmp_path, **extra) -> EvalSpec:
    return EvalSpec.model_validate(
        {
            "games": ["household"],
            "tasks": ["0_read_book"],
            "max_profiles": 1,
            "seats": [1],
            "partner": {"kind": "expert"},
            "output_dir": str(tmp_path),
            "policy": {"kind": "llm", "engine": {"backend": "openai", "model": "scripted"}},
            **extra,
        }
    )


def test_a_seat_past_50_decisions_that_succeeds_in_time_is_a_success_with_its_steps(
    tmp_path,
) -> None:
    """CWAH evaluation has only the tick limit: a chatty seat is not turned into a failure."""
    result = run_evaluation(spec(tmp_path), engines=Engines(ScriptedEngine(lambda c: CHATTY)))
    (outcome,) = result.outcomes
    summary = outcome.record.summary
    assert summary["success"] and not outcome.stalled
    assert outcome.decisions > 50 and summary["decisions"]["Alice"] > 50
    assert outcome.efficiency == summary["steps"] < 250
    row = result.tables["household"]["Overall"][1]
    assert row["efficiency"] == summary["steps"] and row["stalled"] == 0


def test_the_decision_safety_cap_reports_stalled_apart_from_failures(tmp_path) -> None:
    result = run_evaluation(
        spec(tmp_path, game_options={"household": {"max_decisions": 20}}),
        engines=Engines(ScriptedEngine(lambda c: CHATTY)),
    )
    (outcome,) = result.outcomes
    assert outcome.stalled and outcome.record.summary["outcome"] == "stalled"
    row = result.tables["household"]["Overall"][1]
    assert row["stalled"] == 1 and row["efficiency"] is None  # not averaged in as 250 steps
    tables = (tmp_path / "tables.md").read_text()
    assert (
        "Stalled Agent 1" in tables and "| 1/1 " in tables and "1 of 1 episodes stalled" in tables
    )
    with open(tmp_path / "episodes.csv", newline="") as f:
        assert [r["stalled"] for r in csv.DictReader(f)] == ["True"]


@pytest.mark.parametrize(
    ("retries", "calls_per_decision", "label"), [(0, 1, "single pass"), (1, 2, "1 + 1 retry")]
)
def test_policy_is_single_pass_by_default_and_tables_say_which(
    tmp_path, retries: int, calls_per_decision: int, label: str
) -> None:
    engine = ScriptedEngine(lambda c: "no tags at all")
    result = run_evaluation(
        spec(tmp_path, policy_retries=retries, game_options={"household": {"max_ticks": 20}}),
        engines=Engines(engine),
    )
    (outcome,) = result.outcomes
    assert len(engine.calls) == calls_per_decision * outcome.decisions
    assert result.stamp["policy_attempts"] == label
    assert f"llm:openai:scripted ({label})" in (tmp_path / "tables.md").read_text()
    assert set(result.stamp["role_prompts"]) == {"agent", "player", "agent_compact"}
    assert result.stamp["game_versions"] == {"household": 2}  # the rules the episodes ran


def test_window_judges_see_the_interaction_but_not_the_partner_profile(tmp_path) -> None:
    judged = []

    def reply(conversation):
        if "audit a short stretch" in conversation[0]["content"]:
            judged.append(conversation)
            return '{"violations": [], "score": 5, "summary": "fine"}'
        return CHATTY

    result = run_evaluation(
        spec(
            tmp_path,
            partner={"kind": "persona"},
            judge={"kind": "llm", "engine": {"backend": "openai", "model": "scripted"}},
            game_options={"household": {"max_ticks": 12}},
        ),
        engines=Engines(ScriptedEngine(reply)),
    )
    behaviour = get_profile(result.outcomes[0].job.profile.id).behavior
    assert judged and result.outcomes[0].scores["helpfulness"] is not None
    for conversation in judged:
        text = "\n".join(m["content"] for m in conversation)
        assert behaviour not in text and "Keep going" in text


def test_homogeneous_partner_is_the_same_llm_without_a_profile(tmp_path) -> None:
    engine = ScriptedEngine(lambda c: CHATTY)
    llm = {"kind": "llm", "engine": {"backend": "openai", "model": "scripted"}}
    result = run_evaluation(
        spec(
            tmp_path,
            max_profiles=2,
            partner={**llm, "use_profile": False, "sampling": {"temperature": 0.7}},
            policy={"kind": "expert"},
            game_options={"household": {"max_ticks": 6}},
        ),
        engines=Engines(engine),
    )
    assert result.stamp["partner_set"]["kind"] == "llm (homogeneous, no profile)"
    systems = [c[0]["content"] for c in engine.calls]
    assert systems and all("Who you are" not in s and "do what they said" in s for s in systems)
    for outcome in result.outcomes:
        assert get_profile(outcome.job.profile.id).behavior not in "\n".join(systems)
    seeds = {p.seed for p in engine.params}
    assert len(seeds) > 1  # each profile job draws its own partner episode
    with pytest.raises(ValueError, match="needs partner.kind=llm"):
        spec(tmp_path, partner={"kind": "persona", "use_profile": False})
