"""The report's statistics against brute force and published values."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy.stats import rankdata

from collabrl.study.results.stats import holm, mann_whitney, mean_ci, wilcoxon


def brute_force_wilcoxon_p(d: list[float]) -> float:
    """Two-sided exact p by enumerating every sign assignment of the ranks."""
    r = list(rankdata([abs(v) for v in d]))
    observed = sum(rank for rank, v in zip(r, d, strict=True) if v > 0)
    total = sum(r)
    low = min(observed, total - observed)
    hits = 0
    for signs in itertools.product((0, 1), repeat=len(d)):
        plus = sum(rank for rank, s in zip(r, signs, strict=True) if s)
        hits += min(plus, total - plus) <= low
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", range(5))
def test_exact_wilcoxon_matches_enumeration(seed: int) -> None:
    import random

    rng = random.Random(seed)
    x = [rng.random() for _ in range(9)]
    y = [rng.random() + 0.2 for _ in range(9)]
    test = wilcoxon(x, y)
    assert test.method == "exact"
    assert test.p == pytest.approx(
        brute_force_wilcoxon_p([a - b for a, b in zip(x, y, strict=True)])
    )


def test_published_values() -> None:
    # Hollander & Wolfe's depression scores (SciPy's documented example: W=5, p=0.0390625)
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    test = wilcoxon(x, y)
    assert (test.statistic, test.p) == (5.0, pytest.approx(0.0390625))
    interval = mean_ci([1, 2, 3, 4, 5])  # t(0.975, 4) = 2.7764, standard error 0.7071
    assert (interval.low, interval.high) == (
        pytest.approx(1.0368, abs=1e-4),
        pytest.approx(4.9632, abs=1e-4),
    )
    pair = mean_ci([2.0, 4.0])  # t(0.975, 1) = 12.7062, standard error 1
    assert (pair.low, pair.high) == (
        pytest.approx(3 - 12.7062, abs=1e-4),
        pytest.approx(3 + 12.7062, abs=1e-4),
    )
    assert (mean_ci([7.0]).low, mean_ci([7.0]).high) == (7.0, 7.0)


def test_ties_zeros_and_other_tests() -> None:
    tied = wilcoxon([3, 4, 4, 5, 5, 5], [1, 2, 2, 3, 5, 3])
    # differences 2, 2, 2, 2, 2 (one zero dropped): W = 0, mean 7.5, tie-corrected variance
    # 5*6*11/24 - (5**3 - 5)/48 = 11.25, z = -2.236
    assert tied.method == "asymptotic" and tied.n == 5 and tied.statistic == 0.0
    assert tied.p == pytest.approx(math.erfc(7.5 / math.sqrt(11.25) / math.sqrt(2)))
    assert wilcoxon([1, 1], [1, 1]).p == 1.0
    u = mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11])
    z = (15 - 0.5) / math.sqrt(30)
    assert u.p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert mann_whitney([3, 3], [3, 3, 3]).p == 1.0 and mann_whitney([], [1]).p == 1.0
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
