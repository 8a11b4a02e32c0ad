"""The efficiency reward of the games scored by steps: full up to a free number of steps, then
decaying exponentially, and nothing without success.

Why one function: the household game (the paper's CWAH reward, 40 free steps and a 0.025 decay)
and the example games (their own free steps and decay) share the shape; each section keeps only
its two numbers.
"""

from __future__ import annotations

import math
from typing import Any


def step_efficiency(summary: dict[str, Any], *, free_steps: int, rate: float) -> float:
    """``exp(-rate * max(0, steps - free_steps))`` for a successful episode, else 0.

    ``summary`` is the game's ``summary()`` (its ``success`` and ``steps``).
    """
    if not summary["success"]:
        return 0.0
    return math.exp(-rate * max(0, summary["steps"] - free_steps))
