"""KitchenExpert: response format, legal actions, and scores of expert pairs over 400 ticks."""

from __future__ import annotations

import re

import pytest

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.kitchen.expert import REFERENCE_SCORES, KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.episode import play_experts

SEPARATE_FLOORS = ("asymmetric_advantages", "forced_coordination")  # chefs can never meet
RESPONSE = re.compile(
    r"<think>(.+)</think>\s*<message>(.+)</message>\s*<action>(.+)</action>", re.S
)


@pytest.mark.parametrize("layout", sorted(REFERENCE_SCORES))
def test_cooperative_expert_pair_reaches_reference_score(layout: str) -> None:
    summary = play_experts(KitchenGame(layout, motion="cooperative"), KitchenExpert, seed=0)
    assert summary["score"] >= REFERENCE_SCORES[layout], summary
    assert summary["invalid"] == dict.fromkeys(summary["invalid"], 0)


@pytest.mark.parametrize("layout", SEPARATE_FLOORS)
def test_reference_expert_pair_reaches_reference_score_where_chefs_cannot_meet(
    layout: str,
) -> None:
    summary = play_experts(KitchenGame(layout, motion="reference"), KitchenExpert, seed=0)
    assert summary["score"] >= REFERENCE_SCORES[layout], summary
    assert summary["invalid"] == dict.fromkeys(summary["invalid"], 0)


def test_reference_motion_lets_expert_pairs_deadlock_in_the_cramped_room() -> None:
    """Shared floor, no unstuck rule: some episodes freeze, which the cooperative layer prevents."""
    seeds = range(5)
    reference = [
        play_experts(KitchenGame("cramped_room"), KitchenExpert, seed=s)["score"] for s in seeds
    ]
    cooperative = [
        play_experts(KitchenGame("cramped_room", motion="cooperative"), KitchenExpert, seed=s)[
            "score"
        ]
        for s in seeds
    ]
    assert min(reference) <= 20 < max(reference)
    assert min(cooperative) >= REFERENCE_SCORES["cramped_room"]


@pytest.mark.parametrize(
    ("layout", "motion"),
    [
        ("cramped_room", "cooperative"),
        ("forced_coordination", "cooperative"),
        ("forced_coordination", "reference"),
    ],
)
def test_no_deadlock_in_interact_mode(layout: str, motion: str) -> None:
    for seed in range(3):
        game = KitchenGame(layout, cook_mode="interact", motion=motion)
        summary = play_experts(game, KitchenExpert, seed=seed)
        assert summary["score"] >= REFERENCE_SCORES[layout] - 20, summary


def test_expert_writes_the_agent_format_with_a_legal_action() -> None:
    game = KitchenGame("asymmetric_advantages")
    expert = KitchenExpert()
    assert isinstance(expert, Player)
    expert.reset("Player 0", 0)
    partner = KitchenExpert()
    partner.reset("Player 1", 0)
    obs = game.reset(0)
    for _ in range(40):
        if "Player 0" in obs:
            text = expert.act(obs["Player 0"])
            assert RESPONSE.fullmatch(text.strip()), "want <think>..<message>..<action>.."
            parsed = parse_response(text, obs["Player 0"].actions)
            assert parsed.valid and parsed.action in obs["Player 0"].actions, parsed.errors
        decisions = {s: (expert if s == "Player 0" else partner).decide(o) for s, o in obs.items()}
        obs = game.step(decisions).observations
