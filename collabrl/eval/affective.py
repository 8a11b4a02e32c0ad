"""CB-Affective aggregation: turn per-window judge deductions into one 0-5 score per dimension.

Each judged window w of K = 3 agent decisions starts at 5 and loses the summed deductions V_w, so
its score is s_w = max(0, 5 - V_w). Over n windows:
    S = clip(5 - a * sum_w V_w / n - b * max_w (5 - s_w) - P_msg(rho), 0, 5)
where rho is the share of agent steps that sent a message and
    P_msg(rho) = 0                                          if rho >= eps
               = p_max * (exp(k x) - 1) / (exp(k) - 1)      else, with x = (eps - rho) / eps.
The mean term rewards being good on average, the max term punishes the single worst window, and
P_msg punishes a silent partner.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def message_penalty(
    message_ratio: float, *, eps: float = 0.15, k: float = 4.0, p_max: float = 2.0
) -> float:
    """P_msg: 0 when at least ``eps`` of the steps send a message, rising to ``p_max`` at 0."""
    rho = min(max(float(message_ratio), 0.0), 1.0)
    if rho >= eps:
        return 0.0
    x = (eps - rho) / eps
    return p_max * (math.exp(k * x) - 1.0) / (math.exp(k) - 1.0)


def aggregate_dimension(
    window_deductions: Sequence[float],
    message_ratio: float,
    *,
    a: float = 0.8,
    b: float = 0.8,
    eps: float = 0.15,
    k: float = 4.0,
    p_max: float = 2.0,
) -> float:
    """Trajectory score of one affective dimension (contract; formula in the module docstring).

    ``a`` weighs the mean deduction per window (sum_w V_w / n), ``b`` the worst window's
    deduction (max_w (5 - s_w)); ``eps``, ``k`` and ``p_max`` shape the message-ratio penalty
    P_msg. With no windows (an episode shorter than one window) only the message penalty applies.
    """
    deductions = [max(0.0, float(v)) for v in window_deductions]
    penalty = message_penalty(message_ratio, eps=eps, k=k, p_max=p_max)
    if not deductions:
        return min(5.0, max(0.0, 5.0 - penalty))
    mean_term = a * sum(deductions) / len(deductions)
    worst_term = b * max(5.0 - max(0.0, 5.0 - v) for v in deductions)
    return min(5.0, max(0.0, 5.0 - mean_term - worst_term - penalty))
