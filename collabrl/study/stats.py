"""The few statistics a study report needs, in plain Python (SciPy is not a dependency).

- :func:`mean_ci`: mean and two-sided 95% Student-t interval. The t quantile comes from the
  regularized incomplete beta function (continued fraction, Numerical Recipes' ``betacf``),
  inverted by bisection.
- :func:`wilcoxon`: the Wilcoxon signed-rank test for paired samples (within-subject), two-sided.
  Zero differences are dropped (Wilcoxon's convention, SciPy's default ``zero_method="wilcox"``);
  ties share average ranks. Exact p (the distribution of the positive-rank sum by counting
  sign assignments) when n <= 25 and no ties; otherwise the normal approximation with the tie
  correction of the variance and no continuity correction (SciPy's defaults).
- :func:`mann_whitney`: the Mann-Whitney U test for independent samples (between-subject),
  two-sided, normal approximation with tie and continuity corrections.
- :func:`holm`: Holm's step-down adjustment of a family of p-values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EXACT_MAX_N = 25


@dataclass(frozen=True)
class Interval:
    n: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True)
class Test:
    name: str
    statistic: float
    p: float
    n: int
    method: str


def _nonzero(v: float, tiny: float = 1e-300) -> float:
    return v if abs(v) > tiny else tiny


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 / _nonzero(1.0 - qab * x / qap)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 / _nonzero(1.0 + aa * d)
        c = _nonzero(1.0 + aa / c)
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 / _nonzero(1.0 + aa * d)
        c = _nonzero(1.0 + aa / c)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on :func:`t_cdf`)."""
    low, high = -1e4, 1e4
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def mean_ci(values: list[float], level: float = 0.95) -> Interval:
    """Mean and two-sided Student-t interval (the interval is the mean itself for n < 2)."""
    n = len(values)
    if n == 0:
        return Interval(0, math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n < 2:
        return Interval(n, mean, mean, mean)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Interval(n, mean, mean - half, mean + half)


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def _tie_counts(values: list[float]) -> list[int]:
    counts: dict[float, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return [c for c in counts.values() if c > 1]


def _signed_rank_counts(n: int) -> list[int]:
    """How many of the 2**n sign assignments give each positive-rank sum 0..n(n+1)/2."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        for s in range(len(counts) - 1, r - 1, -1):
            counts[s] += counts[s - r]
    return counts


def wilcoxon(x: list[float], y: list[float]) -> Test:
    """Two-sided Wilcoxon signed-rank test of paired ``x`` and ``y``."""
    if len(x) != len(y):
        raise ValueError("wilcoxon needs paired samples of equal length")
    d = [a - b for a, b in zip(x, y, strict=True) if a != b]
    n = len(d)
    if n == 0:
        return Test("wilcoxon", 0.0, 1.0, 0, "no nonzero differences")
    r = ranks([abs(v) for v in d])
    plus = sum(rank for rank, v in zip(r, d, strict=True) if v > 0)
    total = n * (n + 1) / 2
    statistic = min(plus, total - plus)
    ties = _tie_counts([abs(v) for v in d])
    if n <= EXACT_MAX_N and not ties:
        counts = _signed_rank_counts(n)
        tail = sum(counts[: int(statistic) + 1]) / 2**n
        return Test("wilcoxon", statistic, min(1.0, 2 * tail), n, "exact")
    mean = total / 2
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(t**3 - t for t in ties) / 48
    z = (statistic - mean) / math.sqrt(var) if var > 0 else 0.0
    return Test("wilcoxon", statistic, min(1.0, 2 * normal_sf(abs(z))), n, "normal")


def mann_whitney(x: list[float], y: list[float]) -> Test:
    """Two-sided Mann-Whitney U test of independent ``x`` and ``y`` (normal approximation)."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return Test("mann-whitney", math.nan, 1.0, n1 + n2, "empty sample")
    r = ranks([*x, *y])
    u1 = sum(r[:n1]) - n1 * (n1 + 1) / 2
    mean = n1 * n2 / 2
    n = n1 + n2
    ties = _tie_counts([*x, *y])
    var = n1 * n2 / 12 * ((n + 1) - sum(t**3 - t for t in ties) / (n * (n - 1)))
    if var <= 0:
        return Test("mann-whitney", u1, 1.0, n, "all equal")
    z = (abs(u1 - mean) - 0.5) / math.sqrt(var)
    return Test("mann-whitney", u1, min(1.0, 2 * normal_sf(max(z, 0.0))), n, "normal")


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values, in the given order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
