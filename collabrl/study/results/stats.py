"""The statistics a study report needs, computed by SciPy (the ``study`` extra).

- :func:`~collabrl.stats.mean_ci` (re-exported): mean and two-sided Student-t interval.
- :func:`wilcoxon`: the Wilcoxon signed-rank test for paired samples (within-subject), two-sided.
  Zero differences are dropped (Wilcoxon's convention). The p-value is exact (every sign
  assignment counted) for up to ``EXACT_MAX_N`` differences without ties, otherwise the normal
  approximation with the tie-corrected variance and no continuity correction.
- :func:`mann_whitney`: the Mann-Whitney U test for independent samples (between-subject),
  two-sided, normal approximation with tie and continuity corrections.
- :func:`holm`: Holm's step-down adjustment of a family of p-values (SciPy has none, and six lines
  do not justify statsmodels).

Degenerate samples (no nonzero difference, an empty group, all values equal) give p = 1 with the
reason as the method, instead of SciPy's NaN or warning: the report prints every comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from collabrl.stats import Interval, mean_ci

__all__ = ["Interval", "Test", "holm", "mann_whitney", "mean_ci", "wilcoxon"]

EXACT_MAX_N = 50
"""The most nonzero differences for which the Wilcoxon p-value is exact (SciPy's own bound)."""


@dataclass(frozen=True)
class Test:
    name: str
    statistic: float
    p: float
    n: int
    method: str


def wilcoxon(x: list[float], y: list[float]) -> Test:
    """Two-sided Wilcoxon signed-rank test of paired ``x`` and ``y``."""
    if len(x) != len(y):
        raise ValueError("wilcoxon needs paired samples of equal length")
    d = [a - b for a, b in zip(x, y, strict=True) if a != b]
    n = len(d)
    if n == 0:
        return Test("wilcoxon", 0.0, 1.0, 0, "no nonzero differences")
    magnitudes = [abs(v) for v in d]
    exact = n <= EXACT_MAX_N and len(set(magnitudes)) == n
    method = "exact" if exact else "asymptotic"
    result = stats.wilcoxon(d, zero_method="wilcox", correction=False, method=method)
    return Test("wilcoxon", float(result.statistic), float(result.pvalue), n, method)


def mann_whitney(x: list[float], y: list[float]) -> Test:
    """Two-sided Mann-Whitney U test of independent ``x`` and ``y`` (normal approximation)."""
    n = len(x) + len(y)
    if not x or not y:
        return Test("mann-whitney", math.nan, 1.0, n, "empty sample")
    if len(set(x) | set(y)) == 1:
        return Test("mann-whitney", len(x) * len(y) / 2, 1.0, n, "all equal")
    result = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
    return Test("mann-whitney", float(result.statistic), float(result.pvalue), n, "asymptotic")


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values, in the given order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
