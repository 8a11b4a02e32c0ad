"""Each reward term on its own."""

import math

import pytest

from collabrl.rewards.terms import (
    communication_reward,
    format_reward,
    household_efficiency,
    interactivity_reward,
    kitchen_efficiency,
)


def test_household_efficiency() -> None:
    assert household_efficiency(True, 30) == 1.0
    assert household_efficiency(True, 40) == 1.0
    assert household_efficiency(True, 80) == pytest.approx(math.exp(-1.0))
    assert household_efficiency(False, 30) == 0.0
    assert household_efficiency(True, 50, free_steps=0, rate=0.1) == pytest.approx(math.exp(-5))


def test_kitchen_efficiency() -> None:
    assert kitchen_efficiency(160) == pytest.approx(1.6)
    assert kitchen_efficiency(20, scale=20) == 1.0


def test_format_and_communication() -> None:
    assert format_reward(True) == 0.0 and format_reward(False) == pytest.approx(-0.1)
    assert communication_reward(True, True) == pytest.approx(0.01)
    assert communication_reward(False, True) == 0.0
    assert communication_reward(True, False) == 0.0


def test_interactivity() -> None:
    assert interactivity_reward(0.8, True) == pytest.approx(0.2)
    assert interactivity_reward(0.8, False) == 0.0
    assert interactivity_reward(None, True) is None
    with pytest.raises(ValueError):
        interactivity_reward(1.5, True)
