"""GiGPO advantages against hand-computed cases."""

import math

import numpy as np
import pytest

from collabrl.algos.gigpo import gigpo_advantages, step_returns


def test_episode_and_anchor_levels_by_hand() -> None:
    # One group, two episodes (returns 1 and 0), two samples each.
    group = ["g", "g", "g", "g"]
    episode = [0, 0, 1, 1]
    anchor = ["s0", "s1", "s0", "s2"]
    step_reward = [0.5, 0.1, 0.3, 0.2]
    episode_return = [1.0, 1.0, 0.0, 0.0]
    adv = gigpo_advantages(group, episode, anchor, step_reward, episode_return, eps=0.0)
    # A_E: mean 0.5, unbiased std sqrt(0.5) -> +-0.5/sqrt(0.5) = +-0.7071
    a_e = 0.5 / math.sqrt(0.5)
    # A_S: anchor s0 holds 0.5 and 0.3: mean 0.4, std sqrt(0.02) -> +-0.7071; s1, s2 singletons.
    a_s = 0.1 / math.sqrt(0.02)
    np.testing.assert_allclose(adv, [a_e + a_s, a_e, -a_e - a_s, -a_e])


def test_singleton_groups_get_zero() -> None:
    adv = gigpo_advantages(["a", "b"], [0, 0], ["x", "x"], [1.0, 2.0], [3.0, 5.0])
    np.testing.assert_array_equal(adv, [0.0, 0.0])  # each group one episode, anchors not shared


def test_repeated_anchor_inside_one_episode_joins() -> None:
    adv = gigpo_advantages(
        ["g"] * 3,
        [0, 0, 1],
        ["s", "s", "t"],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 1.0],
        mode="mean_norm",
    )
    # Episode returns equal -> A_E = 0; anchor s: [1, 0] mean 0.5 -> +-0.5; t singleton.
    np.testing.assert_allclose(adv, [0.5, -0.5, 0.0])


def test_gamma_discounts_within_episode_only() -> None:
    codes = np.array([0, 0, 0, 1, 1])
    r = np.array([1.0, 0.0, 2.0, 1.0, 1.0])
    np.testing.assert_allclose(step_returns(codes, r, 0.5), [1.5, 1.0, 2.0, 1.5, 1.0])
    np.testing.assert_allclose(step_returns(codes, r, 0.0), r)


def test_gamma_changes_step_advantage() -> None:
    args = (
        ["g"] * 4,
        [0, 0, 1, 1],
        ["a", "b", "a", "b"],
        [0.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 1.0, 1.0],
    )
    no_discount = gigpo_advantages(*args, gamma=0.0, mode="mean_norm")
    discounted = gigpo_advantages(*args, gamma=0.9, mode="mean_norm")
    np.testing.assert_allclose(no_discount, [0.0, 0.5, 0.0, -0.5])
    np.testing.assert_allclose(discounted, [0.45, 0.5, -0.45, -0.5])


def test_omega_zero_is_grpo_and_episode_ids_are_per_group() -> None:
    # Episode id 0 appears in two groups: they are different episodes.
    adv = gigpo_advantages(
        ["a", "a", "b", "b"],
        [0, 1, 0, 1],
        ["x"] * 4,
        [0.0] * 4,
        [2.0, 0.0, 1.0, 1.0],
        omega=0.0,
        mode="mean_norm",
    )
    np.testing.assert_allclose(adv, [1.0, -1.0, 0.0, 0.0])


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        gigpo_advantages([1], [1, 2], [1], [0.0], [0.0])
    with pytest.raises(ValueError, match="mode"):
        gigpo_advantages([1, 1], [0, 1], ["a", "a"], [0.0, 1.0], [0.0, 1.0], mode="bad")  # type: ignore[arg-type]
    assert gigpo_advantages([], [], [], [], []).shape == (0,)


def test_sample_level_episode_norm_weighs_every_step_sample() -> None:
    # verl-agent's form: each sample's own score, normalised over the group's samples
    group, episode, anchor = ["g"] * 3, [0, 0, 1], ["a", "b", "c"]
    scores = [1.0, 0.0, 2.0]
    adv = gigpo_advantages(
        group, episode, anchor, [0.0] * 3, scores, eps=0.0, episode_norm="samples"
    )
    np.testing.assert_allclose(adv, [0.0, -1.0, 1.0])  # mean 1, unbiased std 1
    per_episode = gigpo_advantages(group, episode, anchor, [0.0] * 3, [1.0, 1.0, 2.0], eps=0.0)
    np.testing.assert_allclose(per_episode, [-0.7071068, -0.7071068, 0.7071068], rtol=1e-6)
    with pytest.raises(ValueError, match="episode_norm"):
        gigpo_advantages(group, episode, anchor, [0.0] * 3, scores, episode_norm="tokens")


def test_the_step_level_can_keep_its_own_scale() -> None:
    # The by-hand case above, with the step level centred only (step_mode="mean_norm"): anchor s0
    # holds 0.5 and 0.3, so A_S = +-0.1 instead of +-0.7071; the episode level is unchanged.
    args = (["g"] * 4, [0, 0, 1, 1], ["s0", "s1", "s0", "s2"], [0.5, 0.1, 0.3, 0.2])
    adv = gigpo_advantages(*args, [1.0, 1.0, 0.0, 0.0], eps=0.0, step_mode="mean_norm")
    a_e = 0.5 / math.sqrt(0.5)
    np.testing.assert_allclose(adv, [a_e + 0.1, a_e, -a_e - 0.1, -a_e])
