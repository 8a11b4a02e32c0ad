"""PPO loss pieces: clipping, dual clipping, KL at the first step, masking."""

import math

import pytest
import torch

from collabrl.algos.ppo import entropy_from_logits, low_var_kl, masked_mean, ppo_clip_loss


def test_kl_is_zero_when_policy_equals_reference() -> None:
    logp = torch.log(torch.tensor([[0.2, 0.5, 0.9]]))
    assert torch.allclose(low_var_kl(logp, logp), torch.zeros_like(logp))
    other = logp - 0.3
    assert (low_var_kl(logp, other) > 0).all()


def test_k3_value() -> None:
    logp, ref = torch.tensor([-1.0]), torch.tensor([-2.0])
    d = -1.0
    assert low_var_kl(logp, ref).item() == pytest.approx(math.exp(d) - d - 1)


def test_first_step_ratio_one_gives_minus_mean_advantage() -> None:
    logp = torch.tensor([[-1.0, -2.0], [-0.5, -0.1]])
    adv = torch.tensor([[1.0, 1.0], [-2.0, -2.0]])
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    loss, stats = ppo_clip_loss(logp, logp.clone(), adv, mask)
    assert loss.item() == pytest.approx(-(1 + 1 - 2) / 3)
    assert stats.clip_fraction == 0.0 and stats.approx_kl == pytest.approx(0.0)


def test_clipping_positive_and_negative_advantages() -> None:
    old = torch.zeros(1, 1)
    mask = torch.ones(1, 1)
    big = torch.full((1, 1), math.log(2.0))  # ratio 2
    loss, stats = ppo_clip_loss(big, old, torch.ones(1, 1), mask)
    assert loss.item() == pytest.approx(-1.2) and stats.clip_fraction == 1.0
    small = torch.full((1, 1), math.log(0.5))  # ratio 0.5, A < 0 -> clipped to 0.8
    loss, _ = ppo_clip_loss(small, old, -torch.ones(1, 1), mask)
    assert loss.item() == pytest.approx(0.8)


def test_dual_clip_bounds_negative_advantage() -> None:
    huge = torch.full((1, 1), math.log(10.0))  # ratio 10 with A = -1: plain PPO loss is 10
    loss, _ = ppo_clip_loss(huge, torch.zeros(1, 1), -torch.ones(1, 1), torch.ones(1, 1))
    assert loss.item() == pytest.approx(3.0)
    loss, _ = ppo_clip_loss(
        huge, torch.zeros(1, 1), -torch.ones(1, 1), torch.ones(1, 1), dual_clip=0
    )
    assert loss.item() == pytest.approx(10.0)


def test_masked_mean_ignores_padding_and_gradients_flow() -> None:
    logp = torch.zeros(1, 3, requires_grad=True)
    loss, _ = ppo_clip_loss(
        logp, torch.zeros(1, 3), torch.ones(1, 3), torch.tensor([[1.0, 1.0, 0.0]])
    )
    loss.backward()
    assert logp.grad is not None and logp.grad[0, 2] == 0 and logp.grad[0, 0] != 0
    assert masked_mean(torch.tensor([1.0, 5.0]), torch.tensor([1.0, 0.0])).item() == 1.0


def test_entropy_of_uniform() -> None:
    assert entropy_from_logits(torch.zeros(2, 4)).allclose(torch.full((2,), math.log(4)))
