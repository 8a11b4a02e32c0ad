"""Demonstrations: agent-format responses, the policy's exact prompts, determinism, filtering."""

from __future__ import annotations

import json

import datasets
import pytest

from collabrl.agents.prompts import build_messages
from collabrl.agents.protocol import parse_response
from collabrl.config import load_recipe
from collabrl.envs.base import letter
from collabrl.sft.config import DemoSpec
from collabrl.sft.demos import DemoStats, read_demos, record_demos, write_demos
from collabrl.testing.fake_openai import FakeOpenAIServer
from collabrl.training.groups import make_game


def _recipe(*overrides: str):
    return load_recipe(
        "cwah_gigpo_cpu", ["rollout.max_decisions=50", "train.wandb=disabled", *overrides]
    )


def test_household_demos_are_valid_expert_decisions_with_the_policy_prompt() -> None:
    recipe = _recipe()
    stats = DemoStats()
    rows = list(record_demos(recipe, DemoSpec(episodes=3), stats, progress=False))
    assert stats.episodes == 3 and stats.kept == len(rows) > 10 and stats.invalid == 0
    assert {r["seat"] for r in rows} == {"Alice"}
    for row in rows:
        response = row["completion"][0]["content"]
        parsed = parse_response(response, row["actions"])
        assert parsed.valid and parsed.think and parsed.message
        assert row["game"] == "household" and row["source"] == "expert" and row["success"]
        assert row["profile"].startswith("cwah-") and row["task"] in row["profile"]
    # the first decision of each episode is the policy's prompt on a fresh game (same seed)
    for row in (r for r in rows if r["decision"] == 0):
        game = make_game(recipe, row["task"])
        obs = game.reset(seed=row["seed"])["Alice"]
        assert row["prompt"] == build_messages(game, obs)
        assert row["actions"] == obs.actions and row["tick"] == obs.tick


def test_demos_are_deterministic_and_round_trip(tmp_path) -> None:
    recipe = _recipe()
    first = list(record_demos(recipe, DemoSpec(episodes=2), progress=False))
    again = list(record_demos(recipe, DemoSpec(episodes=2), progress=False))
    assert json.dumps(first) == json.dumps(again)
    other = list(record_demos(_recipe("seed=1"), DemoSpec(episodes=2), progress=False))
    assert json.dumps(other) != json.dumps(first)
    path = tmp_path / "demos.jsonl"
    dataset = datasets.load_from_disk(str(write_demos(first, path)))
    assert read_demos(path) == first
    assert len(dataset) == len(first) and dataset[0]["completion"] == first[0]["completion"]
    assert dataset[-1]["prompt"] == first[-1]["prompt"]


def test_successful_only_drops_failed_episodes() -> None:
    recipe = _recipe("rollout.max_decisions=3")  # too few decisions to finish any task
    stats = DemoStats()
    kept = list(record_demos(recipe, DemoSpec(episodes=2), stats, progress=False))
    assert kept == [] and stats.successful == 0 and stats.decisions > 0
    everything = list(record_demos(recipe, DemoSpec(episodes=2, successful_only=False)))
    assert len(everything) == stats.decisions and not any(r["success"] for r in everything)


def test_kitchen_demos_cover_layouts_with_expert_responses() -> None:
    recipe = load_recipe(
        "kitchen_experts", ["rollout.horizon=40", "partner.kind=persona", "rollout.tasks=train"]
    )
    rows = list(record_demos(recipe, DemoSpec(episodes=2, successful_only=False), progress=False))
    assert rows and {r["game"] for r in rows} == {"kitchen"}
    assert all(parse_response(r["completion"][0]["content"], r["actions"]).valid for r in rows)
    assert len({r["task"] for r in rows}) == 2


def test_letter_style_names_the_same_action_by_its_letter() -> None:
    recipe = _recipe()
    text = list(record_demos(recipe, DemoSpec(episodes=1), progress=False))
    letters = list(record_demos(recipe, DemoSpec(episodes=1, action_style="letter")))
    assert len(text) == len(letters)
    for a, b in zip(text, letters, strict=True):
        answer = parse_response(b["completion"][0]["content"], b["actions"])
        assert answer.action == parse_response(a["completion"][0]["content"], a["actions"]).action
        assert b["completion"][0]["content"].endswith(
            f"<action>{letter(b['actions'].index(answer.action))}</action>"
        )


@pytest.mark.parametrize("valid", [True, False])
def test_llm_teacher_over_http_is_recorded_and_bad_replies_are_dropped(monkeypatch, valid) -> None:
    calls = []

    def teacher(messages):
        calls.append(messages)
        if valid:
            return "<think>Look around first.</think><message></message><action>A</action>"
        return "I would rather not say."  # no tags, also on the retry: never a demonstration

    with FakeOpenAIServer(responder=teacher) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        recipe = _recipe(
            "players.0.kind=llm",
            "players.0.engine.backend=openai",
            "players.0.engine.model=teacher-model",
            "rollout.max_decisions=40",
        )
        stats = DemoStats()
        spec = DemoSpec(episodes=1, successful_only=False)
        rows = list(record_demos(recipe, spec, stats, progress=False))
    assert stats.decisions >= 2
    if valid:
        assert len(rows) == stats.decisions == len(calls) and stats.invalid == 0
        assert {r["source"] for r in rows} == {"llm"}
        assert all(r["completion"][0]["content"].endswith("<action>A</action>") for r in rows)
        assert [r["prompt"] for r in rows] == calls  # exactly what the teacher was shown
    else:
        assert rows == [] and stats.invalid == stats.decisions
        assert len(calls) == 2 * stats.decisions  # one retry each
