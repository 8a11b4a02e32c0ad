"""The hybrid training reward, one small function per term (weights come from the recipe).

Episode level: efficiency. Step level: format, communication, interactivity (judge).
"""

from __future__ import annotations

import math

JUDGE_LEVELS = tuple(round(0.1 * i, 1) for i in range(1, 11))


def household_efficiency(
    success: bool, steps: int, *, free_steps: int = 40, rate: float = 0.025
) -> float:
    """exp(-rate * max(0, T - free_steps)) for an episode finished at tick T, else 0."""
    return math.exp(-rate * max(0, steps - free_steps)) if success else 0.0


def kitchen_efficiency(score: float, *, scale: float = 100.0) -> float:
    """Game score / scale (a 3-onion soup pays 20, so five soups give 1.0)."""
    return score / scale


def format_reward(valid: bool, *, penalty: float = -0.1) -> float:
    """``penalty`` for a response with a missing tag or an unavailable action, else 0."""
    return 0.0 if valid else penalty


def communication_reward(valid: bool, sent_message: bool, *, bonus: float = 0.01) -> float:
    """``bonus`` for a valid step whose action sends a message."""
    return bonus if valid and sent_message else 0.0


def interactivity_reward(level: float | None, valid: bool, *, weight: float = 0.25) -> float | None:
    """weight x judge level (0.1..1.0); 0 on an invalid step; None when the judge failed.

    None means "missing": callers exclude and count it rather than treating it as 0.
    """
    if not valid:
        return 0.0
    if level is None:
        return None
    if not 0.1 <= level <= 1.0:
        raise ValueError(f"judge level must be in [0.1, 1.0], got {level}")
    return weight * level
