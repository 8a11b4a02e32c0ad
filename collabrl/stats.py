"""Intervals shared by evaluation, benchmarks and study reports, computed by SciPy.

- :func:`mean_ci`: mean and two-sided Student-t interval of one sample.
- :func:`paired_difference`: the mean of paired differences ``b - a`` with its Student-t
  interval (the paired t interval): what "policy B beats policy A on the same jobs" needs.

Why paired: two policies evaluated on the same jobs (task, partner profile, seat, seed) share
most of their variance, the job's difficulty; the differences cancel it, so a paired interval is
far narrower than two separate ones for the same number of episodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats


@dataclass(frozen=True)
class Interval:
    """A mean and its two-sided interval over ``n`` values."""

    n: int
    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of zero."""
        return bool(self.low > 0 or self.high < 0)

    def cell(self, digits: int = 3) -> str:
        """``mean [low, high]`` for tables."""
        if math.isnan(self.mean):
            return "n/a"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def mean_ci(values: Sequence[float], level: float = 0.95) -> Interval:
    """Mean and two-sided Student-t interval (the interval is the mean itself for n < 2 or when
    every value is equal)."""
    n = len(values)
    if n == 0:
        return Interval(0, math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n < 2 or min(values) == max(values):
        return Interval(n, mean, mean, mean)
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * stats.sem(values))
    return Interval(n, mean, mean - half, mean + half)


def paired_difference(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Interval:
    """Mean of ``b[i] - a[i]`` and its Student-t interval (pairs with a NaN on either side are
    left out, as a metric an episode lacks)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    diffs = [y - x for x, y in zip(a, b, strict=True) if not (math.isnan(x) or math.isnan(y))]
    return mean_ci(diffs, level)
