"""Each reward term on its own, and how a rollout's decisions are scored with them."""

import math

import pytest

from collabrl.config import RewardSpec
from collabrl.config.roles import TrainingJudgeSpec
from collabrl.envs.household.section import HouseholdSection
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.rewards.terms import communication_reward, format_reward, interactivity_reward
from collabrl.training.lockstep import EpisodeSlot, Sample
from collabrl.training.rewards import score_rollout


def household_efficiency(success: bool, steps: int, **shape) -> float:
    """The household game's efficiency reward (free_steps, efficiency_rate: its section's)."""
    section = HouseholdSection(
        **{k.replace("rate", "efficiency_rate"): v for k, v in shape.items()}
    )
    return section.efficiency({"success": success, "steps": steps})


def kitchen_efficiency(score: float, scale: float = 100.0) -> float:
    return KitchenSection(efficiency_scale=scale).efficiency({"score": score})


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


def _slot(episode: int, valid: list[bool], messages: list[bool], summary: dict) -> EpisodeSlot:
    slot = EpisodeSlot(episode, episode, None, {}, "Alice", None, None, 0, summary=summary)
    slot.samples = [
        Sample(episode, episode, k, k, [1], [2], [0.0], ("a", k), v, m, "t", "o")
        for k, (v, m) in enumerate(zip(valid, messages, strict=True))
    ]
    return slot


@pytest.mark.parametrize("episode_level", ["efficiency", "efficiency_plus_step"])
def test_rollout_scoring_keeps_efficiency_out_of_step_rewards(episode_level) -> None:
    spec = RewardSpec(judge=TrainingJudgeSpec(kind="heuristic"), episode_level=episode_level)
    won = _slot(0, [True, False, True], [True, False, False], {"success": True, "steps": 60})
    lost = _slot(1, [True, True], [False, False], {"success": False, "steps": 250})
    levels = {(0, 0, 0): 1.0, (0, 0, 2): 0.4, (1, 1, 0): None, (1, 1, 1): 0.2}
    scored = score_rollout([won, lost], levels, spec, HouseholdSection())
    efficiency = household_efficiency(True, 60)
    won_steps = [0.01 + 0.25, -0.1, 0.25 * 0.4]
    lost_steps = [0.0, 0.25 * 0.2]  # a failed judge call is left out (and counted)
    assert scored.step_rewards == pytest.approx(won_steps + lost_steps)
    assert lost.samples[0].rewards["judge"] is None  # left out of the sum, not a zero
    assert (won.efficiency, lost.efficiency) == pytest.approx((efficiency, 0.0))
    if episode_level == "efficiency":  # the paper: one value per episode
        scores = [efficiency] * 3 + [0.0] * 2
    else:  # the released code: each sample's efficiency + its own step terms, no episode sum
        scores = [efficiency + r for r in won_steps] + lost_steps
    assert scored.episode_scores == pytest.approx(scores)
    assert scored.per_sample_scores == (episode_level == "efficiency_plus_step")
