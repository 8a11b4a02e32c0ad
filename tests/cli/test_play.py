"""`collabrl play` end to end from a foreign directory, the episode runner and the prompt builder."""

import json
import subprocess
import sys

import pytest

from collabrl.agents.prompts import build_messages
from collabrl.envs.base import format_response
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.episode import format_transcript, play_episode


@pytest.mark.slow
def test_play_household_from_another_directory(tmp_path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "collabrl",
            "play",
            "household_experts",
            "game.task=26_prepare_food",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "[tick   0] Alice:" in out.stdout and "| success" in out.stdout
    record = json.loads((tmp_path / "runs/household_experts/episodes.jsonl").read_text())
    assert record["summary"]["success"] is True
    assert record["summary"]["steps"] == record["summary"]["ticks"] < 250
    assert "game:" in (tmp_path / "runs/household_experts/recipe.yaml").read_text()
    stamps = json.loads((tmp_path / "runs/household_experts/prompts.json").read_text())
    assert stamps["agent"].startswith("agent-v") and stamps["player"].startswith("player-v")


def test_play_kitchen_quietly(tmp_path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "collabrl",
            "play",
            "kitchen_experts",
            "game.horizon=150",
            "--quiet",
            "--no-save",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "[tick" not in out.stdout and "score" in out.stdout
    assert not (tmp_path / "runs").exists()


class Scripted:
    """A player that replays fixed replies (to exercise invalid turns in the runner)."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    def reset(self, seat: str, seed: int) -> None:
        self.i = 0

    def act(self, obs) -> str:
        reply = self.replies[min(self.i, len(self.replies) - 1)]
        self.i += 1
        return reply


def test_runner_records_invalid_turns_and_messages() -> None:
    game = HouseholdGame("0_read_book", max_decisions=3)
    talk = format_response("t", "hello", "[send_message]")
    players = {"Alice": Scripted(["nonsense", talk]), "Bob": Scripted([talk])}
    record = play_episode(game, players, seed=0)
    alice = [t for t in record.turns if t.seat == "Alice"]
    assert [t.valid for t in alice] == [False, True, True]
    assert alice[0].errors and alice[0].action is None
    assert record.summary["invalid"]["Alice"] == 1 and record.summary["messages"]["Alice"] == 2
    text = format_transcript(record)
    assert "INVALID" in text and 'says: "hello"' in text


def test_prompt_contains_rules_observation_and_format() -> None:
    for game in (HouseholdGame("10_put_dishwasher"), KitchenGame("cramped_room")):
        obs = next(iter(game.reset(seed=0).values()))
        system, user = build_messages(game, obs, persona="Talks a lot.", role="player")
        assert system["role"] == "system" and user["role"] == "user"
        assert game.intro(obs.seat) in system["content"]
        assert "<think>" in system["content"] and "Talks a lot." in system["content"]
        assert obs.text in user["content"]
        assert all(a in user["content"] for a in obs.actions)
