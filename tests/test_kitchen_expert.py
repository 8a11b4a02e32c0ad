"""KitchenExpert: response format, legal actions, and scores of expert pairs over 400 ticks."""

from __future__ import annotations

import re

import pytest

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.kitchen.expert import KitchenExpert, play_experts
from collabrl.envs.kitchen.game import KitchenGame

# Rule-based skill agents on Overcooked-AI 1.1.0, 400 ticks (collabbench-facts.md).
REFERENCE = {
    "cramped_room": 160,
    "asymmetric_advantages": 340,
    "coordination_ring": 140,
    "forced_coordination": 260,
    "counter_circuit": 80,
}
RESPONSE = re.compile(
    r"<think>(.+)</think>\s*<message>(.+)</message>\s*<action>(.+)</action>", re.S
)


@pytest.mark.parametrize("layout", sorted(REFERENCE))
def test_expert_pair_reaches_reference_score(layout: str) -> None:
    summary = play_experts(KitchenGame(layout), seed=0)
    assert summary["score"] >= REFERENCE[layout], summary
    assert summary["invalid"] == dict.fromkeys(summary["invalid"], 0)


@pytest.mark.parametrize("layout", ["cramped_room", "forced_coordination"])
def test_no_deadlock_in_interact_mode(layout: str) -> None:
    for seed in range(3):
        summary = play_experts(KitchenGame(layout, cook_mode="interact"), seed=seed)
        assert summary["score"] >= REFERENCE[layout] - 20, summary


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
