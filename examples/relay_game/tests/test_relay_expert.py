"""The relay expert pair solves the tasks by sharing their halves of the map, and an expert
learns the other half only from its teammates' messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("relay_game", reason="pip install ./examples/relay_game")
from relay_game.expert import RelayExpert, carrier
from relay_game.game import WAIT, RelayGame
from relay_game.section import RelaySection

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.base import Decision

SEEDS = range(5)


def play(task: str, seed: int, seats: Sequence[str] = ("Ann", "Ben"), mute: str = "") -> RelayGame:
    """An episode of experts (the ``mute`` seat only waits); returns the finished game."""
    game = RelayGame(task, seats=seats)
    experts = {seat: RelayExpert() for seat in game.agents}
    for seat, expert in experts.items():
        expert.reset(seat, seed)
    pending = game.reset(seed)
    while not game.done:
        decisions = {
            seat: Decision(WAIT)
            if seat == mute
            else parse_response(experts[seat].act(obs), obs.actions).decision()
            for seat, obs in pending.items()
        }
        pending = game.step(decisions).observations
    return game


@pytest.mark.parametrize("task", RelaySection.tasks("test"))
@pytest.mark.parametrize("seed", SEEDS)
def test_the_expert_pair_solves_the_test_tasks(task: str, seed: int) -> None:
    summary: dict[str, Any] = play(task, seed).summary()
    assert summary["success"] and summary["steps"] <= 20
    assert sum(summary["invalid"].values()) == 0
    assert all(n >= 1 for n in summary["messages"].values())  # both share their half


@pytest.mark.parametrize("task", RelaySection.tasks("train"))
def test_experts_solve_the_train_tasks_in_pairs_and_threes(task: str) -> None:
    for seats in (("Ann", "Ben"), ("Ann", "Ben", "Cat")):
        assert all(play(task, seed, seats).summary()["success"] for seed in SEEDS)


def test_first_message_shares_the_own_map() -> None:
    game = RelayGame("r6p3v1")
    observations = game.reset(0)
    ann, ben = RelayExpert(), RelayExpert()
    ann.reset("Ann", 0)
    ben.reset("Ben", 0)
    told_ann = parse_response(ann.act(observations["Ann"]), observations["Ann"].actions)
    told_ben = parse_response(ben.act(observations["Ben"]), observations["Ben"].actions)
    assert told_ann.action == told_ben.action == game.message_action
    assert told_ann.message == "<red> is in room 0. <blue> is in room 3. <green> is in room 3."
    assert (
        told_ben.message == "<red> goes to room 5. <blue> goes to room 5. <green> goes to room 4."
    )


def test_without_messages_the_expert_cannot_deliver() -> None:
    """Ann's map has no destinations: with a mute Ben she asks, then nothing gets delivered."""
    game = play("r5p2v1", 0, mute="Ben")
    summary = game.summary()
    assert not summary["success"] and summary["delivered"] == 0
    asked = [line[2] for line in game.dialogue if line[1] == "Ann"]
    assert any("Where does <red> go?" in text for text in asked)


def test_the_expert_is_a_player() -> None:
    assert isinstance(RelayExpert(), Player)


def test_every_parcel_has_exactly_one_carrier() -> None:
    zones = {"Ann": [0, 2], "Ben": [2, 4], "Cat": [4, 6]}
    assert carrier(1, 5, zones) == "Ann" and carrier(2, 5, zones) == "Ben"
    assert carrier(4, 0, zones) == "Ben" and carrier(5, 4, zones) == "Cat"
    assert carrier(3, 3, zones) is None
