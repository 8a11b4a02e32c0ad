"""The human proxy's futile actions: what it never samples because it would change nothing.

cramped_room (x right, y down)::

    X X P X X
    O . . . O
    X . . . X
    X D X S X
"""

import numpy as np
import pytest

from collabrl.envs.kitchen.engine import (
    ACTIONS,
    EAST,
    NORTH,
    WEST,
    Chef,
    KitchenEngine,
    KitchenState,
    Soup,
)
from collabrl.envs.kitchen.human_proxy import TEMPERATURE, HumanProxy, futile
from collabrl.envs.kitchen.layouts import load_layout

ENGINE = KitchenEngine(load_layout("cramped_room"), cook_mode="interact")


def kitchen(me: Chef, pots: dict | None = None) -> KitchenState:
    return KitchenState(chefs=[me, Chef((3, 2), NORTH)], pots=pots or {})


@pytest.mark.parametrize(
    ("me", "action", "expected"),
    [
        (Chef((1, 2), WEST), "interact", True),  # empty hands at an empty counter
        (Chef((1, 2), WEST, "onion"), "interact", False),  # puts the onion down
        (Chef((1, 2), WEST), "west", True),  # presses into the counter it already faces
        (Chef((1, 2), NORTH), "west", False),  # turns to face it
        (Chef((1, 2), WEST), "north", False),  # walks
        (Chef((2, 2), EAST), "east", True),  # into the other chef it already faces
        (Chef((2, 1), NORTH), "interact", True),  # empty hands at an empty pot
        (Chef((1, 1), WEST), "interact", False),  # takes an onion
    ],
)
def test_an_action_that_changes_nothing_is_futile(me: Chef, action: str, expected: bool) -> None:
    assert futile(ENGINE, kitchen(me), 0, action) is expected


def test_starting_or_filling_a_pot_is_never_futile() -> None:
    full = {(2, 0): Soup(3)}
    assert not futile(ENGINE, kitchen(Chef((2, 1), NORTH), full), 0, "interact")
    cooking = {(2, 0): Soup(2)}
    assert not futile(ENGINE, kitchen(Chef((2, 1), NORTH, "onion"), cooking), 0, "interact")
    state = kitchen(Chef((2, 1), NORTH), {(2, 0): Soup(3, 5)})
    assert futile(ENGINE, state, 0, "interact")  # the clock runs on by itself
    assert state.pots[(2, 0)].tick == 5  # judged on a copy


def test_the_proxy_samples_no_futile_action_and_sharpens_the_rest() -> None:
    proxy = HumanProxy()
    proxy.reset("Player 0", 0)
    model = np.array([0.1, 0.1, 0.1, 0.2, 0.3, 0.2])  # the model's distribution
    p = proxy.adjust(model.copy(), "cramped_room", kitchen(Chef((1, 2), WEST)), 0)
    assert {a for a, q in zip(ACTIONS, p, strict=True) if q == 0} == {"west", "interact"}
    kept = model ** (1 / TEMPERATURE)
    for a, q, k in zip(ACTIONS, p, kept, strict=True):
        if q:
            assert q == pytest.approx(k), a
