"""CB-Affective aggregation against hand-computed cases."""

import math

import pytest

from collabrl.eval.affective import aggregate_dimension, message_penalty


def test_perfect_windows_and_enough_messages_score_five() -> None:
    assert aggregate_dimension([0, 0, 0], 0.3) == 5.0


def test_mean_and_worst_window_terms() -> None:
    # V = [1, 3]: mean term 0.8 * 4 / 2 = 1.6; worst term 0.8 * min(5, 3) = 2.4.
    assert aggregate_dimension([1, 3], 0.5) == pytest.approx(5 - 1.6 - 2.4)


def test_worst_window_is_capped_at_five_points() -> None:
    # V = [9]: s_w = 0 so the worst term is 0.8 * 5 = 4; mean term 0.8 * 9 = 7.2 -> clipped to 0.
    assert aggregate_dimension([9], 1.0) == 0.0
    assert aggregate_dimension([6, 0, 0, 0, 0, 0], 1.0, a=0.1) == pytest.approx(5 - 0.1 - 4.0)


def test_message_penalty_shape() -> None:
    assert message_penalty(0.15) == 0.0 and message_penalty(0.9) == 0.0
    assert message_penalty(0.0) == pytest.approx(2.0)
    x = (0.15 - 0.075) / 0.15
    assert message_penalty(0.075) == pytest.approx(2 * (math.exp(4 * x) - 1) / (math.exp(4) - 1))
    assert message_penalty(-1.0) == pytest.approx(2.0)


def test_penalty_enters_the_score() -> None:
    assert aggregate_dimension([1], 0.0) == pytest.approx(5 - 0.8 - 0.8 - 2.0)
    assert aggregate_dimension([], 0.0) == pytest.approx(3.0)
    assert aggregate_dimension([], 0.5) == 5.0


def test_coefficients_are_parameters() -> None:
    assert aggregate_dimension([2], 0.0, a=0.0, b=0.0, p_max=1.0) == pytest.approx(4.0)


def test_a_weighs_the_mean_deduction_and_b_the_worst_window() -> None:
    # V = [1, 3] with a rich message ratio: a multiplies the mean (2), b the worst window (3);
    # neither touches the message penalty.
    assert aggregate_dimension([1, 3], 0.5, a=1.0, b=0.0) == pytest.approx(5 - 2.0)
    assert aggregate_dimension([1, 3], 0.5, a=0.0, b=1.0) == pytest.approx(5 - 3.0)
    assert aggregate_dimension([], 0.0, a=0.0, b=0.0) == pytest.approx(5 - 2.0)  # P_msg alone
