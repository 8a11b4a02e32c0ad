"""Kitchen engine rules: pot capacity, both cooking modes, cook time, scoring, one item per chef."""

from __future__ import annotations

import pytest

from collabrl.envs.kitchen.engine import (
    COOK_TIME,
    DISH,
    INTERACT,
    NORTH,
    ONION,
    SOUP_VALUE,
    STAY,
    Chef,
    KitchenEngine,
    Soup,
)
from collabrl.envs.kitchen.layouts import load_layout

POT = (2, 0)  # cramped_room's pot, faced from (2, 1) looking north


def kitchen(mode: str):
    engine = KitchenEngine(load_layout("cramped_room"), cook_mode=mode)
    state = engine.start_state()
    state.chefs[0] = Chef((2, 1), NORTH)  # at the pot
    state.chefs[1] = Chef((1, 2), NORTH)  # out of the way
    return engine, state


def interact(engine, state, times: int = 1) -> int:
    return sum(engine.step(state, [INTERACT, STAY]) for _ in range(times))


def add_onions(engine, state, n: int) -> None:
    for _ in range(n):
        state.chefs[0].held = ONION
        interact(engine, state)


@pytest.mark.parametrize("mode", ["auto", "interact"])
def test_pot_takes_at_most_three_onions(mode: str) -> None:
    engine, state = kitchen(mode)
    add_onions(engine, state, 3)
    state.chefs[0].held = ONION
    interact(engine, state)
    assert state.pots[POT].onions == 3
    assert state.chefs[0].held == ONION  # the fourth onion stays in hand


def test_auto_mode_starts_cooking_at_three_onions() -> None:
    engine, state = kitchen("auto")
    add_onions(engine, state, 2)
    interact(engine, state)  # empty-handed interact does not start a partial pot
    assert state.pots[POT].idle
    add_onions(engine, state, 1)
    assert state.pots[POT].tick == 1  # started this tick, then cooked one tick


def test_interact_mode_needs_an_empty_handed_interact() -> None:
    engine, state = kitchen("interact")
    add_onions(engine, state, 3)
    engine.step(state, [STAY, STAY])
    assert state.pots[POT].idle
    interact(engine, state)
    assert state.pots[POT].tick == 1


@pytest.mark.parametrize("mode", ["auto", "interact"])
def test_cook_time_and_delivery_score(mode: str) -> None:
    engine, state = kitchen(mode)
    add_onions(engine, state, 3)
    if mode == "interact":
        interact(engine, state)
    state.chefs[0].held = DISH
    while not state.pots[POT].ready(COOK_TIME):
        assert interact(engine, state) == 0  # a dish cannot take an unfinished soup
    assert state.pots[POT].tick == COOK_TIME
    interact(engine, state)
    assert state.chefs[0].held == Soup(3, COOK_TIME) and POT not in state.pots
    state.chefs[0].pos, state.chefs[0].facing = (3, 2), (0, 1)  # facing the serving counter
    assert interact(engine, state) == SOUP_VALUE
    assert state.chefs[0].held is None and state.score == SOUP_VALUE


def test_partial_soup_scores_nothing() -> None:
    engine, state = kitchen("interact")
    add_onions(engine, state, 1)
    interact(engine, state)
    state.chefs[0].held = DISH
    interact(engine, state, COOK_TIME + 1)
    state.chefs[0].pos, state.chefs[0].facing = (3, 2), (0, 1)
    assert state.chefs[0].held == Soup(1, COOK_TIME)
    assert interact(engine, state) == 0 and state.chefs[0].held is None


def test_one_item_per_chef() -> None:
    engine, state = kitchen("auto")
    chef = state.chefs[0]
    chef.pos, chef.facing, chef.held = (1, 1), (-1, 0), ONION  # facing an onion dispenser
    interact(engine, state)
    assert chef.held == ONION
    chef.held = None
    interact(engine, state)
    assert chef.held == ONION
    chef.facing = NORTH  # a counter: put down, then pick up again
    interact(engine, state)
    assert chef.held is None and state.counters[(1, 0)] == ONION
    chef.held = DISH
    interact(engine, state)  # the counter is taken: keep the dish
    assert chef.held == DISH and state.counters[(1, 0)] == ONION


def test_collisions_keep_both_chefs_in_place() -> None:
    engine, state = kitchen("auto")
    state.chefs[0].pos, state.chefs[1].pos = (1, 1), (3, 1)
    engine.step(state, ["east", "west"])  # both into (2, 1)
    assert [c.pos for c in state.chefs] == [(1, 1), (3, 1)]
    assert [c.facing for c in state.chefs] == [(1, 0), (-1, 0)]
    state.chefs[1].pos = (2, 1)
    engine.step(state, ["east", "west"])  # swap
    assert [c.pos for c in state.chefs] == [(1, 1), (2, 1)]
