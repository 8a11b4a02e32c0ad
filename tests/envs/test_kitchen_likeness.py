"""The human-likeness statistics on a constructed trajectory, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from collabrl.envs.kitchen.engine import KitchenEngine
from collabrl.envs.kitchen.human_data import copy_state
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.likeness import (
    STATISTICS,
    Play,
    _conditional_entropy,
    skill_of,
    statistics,
)

# cramped_room:   XXPXX / O  2O / X1  X / XDXSX ; chef 0 starts at (1, 2), chef 1 at (3, 1)
JOINT = [
    ("north", "east"),  # chef 0 walks to (1, 1); chef 1 presses into the onion box: a turn
    ("west", "interact"),  # chef 0 turns to the onion box; chef 1 takes an onion
    ("interact", "stay"),  # chef 0 takes an onion
    ("east", "west"),  # both want (2, 1): both blocked
    ("stay", "stay"),
    ("interact", "interact"),  # both face the floor cell (2, 1): nothing changes
]
REWARDS = [0, 0, 0, 20, 0, 20]  # constructed: two deliveries 2 ticks apart


def constructed() -> Play:
    engine = KitchenEngine(load_layout("cramped_room"))
    state = engine.start_state()
    states = [copy_state(state)]
    for joint in JOINT:
        engine.step(state, joint)
        states.append(copy_state(state))
    return Play("cramped_room", states, list(JOINT), REWARDS)


def test_the_statistics_of_a_constructed_trajectory() -> None:
    stats = statistics(constructed())
    assert list(stats) == list(STATISTICS)
    expected = {
        "score": 40 * 1200 / 6,  # per 1,200 ticks
        "soups": 2 * 1200 / 6,
        "idle": 3 / 12,  # three stays in 12 chef-ticks
        "interacts": 100 * 4 / 12,
        "useful_interacts": 2 / 4,  # two onions taken, two interactions with the floor
        "turns": 2 / 5,  # 5 moves, 2 pressed into the onion boxes
        "blocked": 2 / 3,  # of the 3 moves towards floor, 2 collided
        "delivery_gap": 2.0,
        "skill_onion": 1.0,
        **{f"skill_{s}": 0.0 for s in ("pot", "dish", "fill", "deliver", "place", "take")},
    }
    for name, value in expected.items():
        assert stats[name] == pytest.approx(value), name
    assert math.isnan(stats["skill_order"])  # one skill per chef: no pair to order


def test_skill_order_is_the_entropy_of_the_next_skill_given_the_last() -> None:
    assert _conditional_entropy([["onion", "pot", "onion", "pot"], ["dish", "fill"]]) == 0.0
    # after an onion: the pot or a counter at even odds (1 bit), 2 of the 3 pairs start so
    assert _conditional_entropy([["onion", "pot", "onion", "place"]]) == pytest.approx(2 / 3)


def test_skills_are_named_by_the_item_change_and_the_faced_tile() -> None:
    from collabrl.envs.kitchen.engine import Soup

    assert skill_of(None, "onion", "O") == "onion"
    assert skill_of("onion", None, "P") == "pot"
    assert skill_of("dish", Soup(3, 20), "P") == "fill"
    assert skill_of(Soup(3, 20), None, "S") == "deliver"
    assert skill_of("dish", None, "X") == "place"
    assert skill_of(None, "onion", "X") == "take"
    assert skill_of("onion", "onion", "P") is None
