"""The shared intervals (collabrl.stats) at their edges: no values, two values, an interval that
touches zero. The hand-worked paired example is in tests/training/test_learning_signal.py."""

import math

import pytest

from collabrl.stats import Interval, mean_ci


def test_no_values_give_an_empty_interval() -> None:
    empty = mean_ci([])
    assert empty.n == 0 and all(math.isnan(v) for v in (empty.mean, empty.low, empty.high))
    assert empty.cell() == "n/a"


def test_two_values_already_give_a_student_t_interval() -> None:
    # mean 2, sd sqrt(2), se 1, t(0.975, 1) = 12.706205
    two = mean_ci([1.0, 3.0])
    assert (two.n, two.mean) == (2, 2.0)
    assert (two.low, two.high) == pytest.approx((-10.706205, 14.706205), abs=1e-6)
    assert mean_ci([5.0]) == Interval(1, 5.0, 5.0, 5.0)


def test_an_interval_that_touches_zero_does_not_exclude_it() -> None:
    assert not Interval(3, 1.0, 0.0, 2.0).excludes_zero
    assert not Interval(3, -1.0, -2.0, 0.0).excludes_zero
    assert Interval(3, 1.0, 0.5, 2.0).excludes_zero and Interval(3, -1.0, -2.0, -0.5).excludes_zero
