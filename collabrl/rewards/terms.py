"""The step-level terms of the hybrid training reward, one small function each (weights come
from the recipe): format, communication, interactivity (judge). The episode-level efficiency
reward is the game's (``GameSection.efficiency``)."""

from __future__ import annotations

JUDGE_LEVELS = tuple(round(0.1 * i, 1) for i in range(1, 11))


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
