"""The one step-efficiency formula, and that every game scored by steps uses it."""

import math

import pytest

from collabrl.envs.household.section import HouseholdSection
from collabrl.envs.step_efficiency import step_efficiency


@pytest.mark.parametrize(
    "success,steps,free_steps,rate,expected",
    [
        (True, 40, 40, 0.025, 1.0),  # within the free steps: full reward
        (True, 60, 40, 0.025, math.exp(-0.5)),  # 20 steps beyond at 0.025
        (True, 12, 4, 0.1, math.exp(-0.8)),
        (False, 10, 40, 0.025, 0.0),  # no success, no reward however short
    ],
)
def test_step_efficiency(success, steps, free_steps, rate, expected) -> None:
    summary = {"success": success, "steps": steps}
    assert step_efficiency(summary, free_steps=free_steps, rate=rate) == pytest.approx(expected)


def test_every_game_scored_by_steps_uses_it() -> None:
    tally = pytest.importorskip("tally_game.section", reason="the tally example is not installed")
    relay = pytest.importorskip("relay_game.section", reason="the relay example is not installed")
    summary = {"success": True, "steps": 57}
    for section in (HouseholdSection(), tally.TallySection(), relay.RelaySection()):
        expected = step_efficiency(
            summary, free_steps=section.free_steps, rate=section.efficiency_rate
        )
        assert section.efficiency(summary) == expected
        assert section.efficiency({**summary, "success": False}) == 0.0
