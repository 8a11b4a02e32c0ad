"""The PPO update's subtle parts, each checked by what it does to a tiny model: the KL penalty
pulls towards the reference, the entropy bonus raises entropy, micro-batches of unequal length
give the exact token mean, pi_old comes from the trainer, and the TIS weights scale the step."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from accelerate import Accelerator
from transformers import LlamaConfig, LlamaForCausalLM

from collabrl.algos.ppo import low_var_kl, masked_mean, ppo_clip_loss
from collabrl.config import AlgoSpec
from collabrl.errors import NonFiniteError
from collabrl.training.policy import ensure_finite_weights, save_policy
from collabrl.training.update import (
    Optimisation,
    collate,
    ppo_update,
    token_logprobs,
    trainer_logprobs,
)

VOCAB = 48
RESPONSE_LENGTHS = (1, 2, 7, 12)  # very unequal, so per-micro-batch weighting would show


def tiny_model(seed: int) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    model = LlamaForCausalLM(config).float()
    with torch.no_grad():  # sharper than a fresh init, so entropy and KL have room to move
        model.lm_head.weight.mul_(20.0)
    return model


def samples(rollout_shift: float = 0.0) -> list[SimpleNamespace]:
    """Four samples with prompts of 3-6 tokens; rollout logprobs are the model's own (seed 0)
    plus ``rollout_shift``."""
    rng = np.random.default_rng(0)
    model = tiny_model(0)
    out = []
    for n in RESPONSE_LENGTHS:
        prompt = rng.integers(1, VOCAB, int(rng.integers(3, 7))).tolist()
        response = rng.integers(1, VOCAB, n).tolist()
        batch = collate([prompt], [response], [[0.0] * n], [0.0], 0)
        with torch.no_grad():
            logp = token_logprobs(model, batch, 1.0)[0][0, len(prompt) - 1 :].tolist()
        out.append(
            SimpleNamespace(
                prompt_ids=prompt,
                response_ids=response,
                rollout_logprobs=[v + rollout_shift for v in logp],
            )
        )
    return out


def optimisation(model, micro_batch: int, lr: float = 0.05, reference=None, **algo) -> Optimisation:
    spec = AlgoSpec(mini_batch=4, micro_batch=micro_batch, lr=lr, grad_clip=1e9, **algo)
    accelerator = Accelerator(gradient_accumulation_steps=4 // micro_batch)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)

    def ref_logprobs(batch):
        return token_logprobs(reference, batch, 1.0)[0]

    return Optimisation(
        model, optimizer, scheduler, accelerator, spec, 1.0, 0, ref_logprobs if reference else None
    )


def full_batch(data, advantages):
    return collate(
        [s.prompt_ids for s in data],
        [s.response_ids for s in data],
        [s.rollout_logprobs for s in data],
        advantages,
        0,
    )


def mean_kl(model, reference, data) -> float:
    batch = full_batch(data, [0.0] * len(data))
    with torch.no_grad():
        logp = token_logprobs(model, batch, 1.0)[0]
        ref = token_logprobs(reference, batch, 1.0)[0]
    return float(masked_mean(low_var_kl(logp, ref), batch.response_mask))


def mean_entropy(model, data) -> float:
    batch = full_batch(data, [0.0] * len(data))
    with torch.no_grad():
        return float(
            masked_mean(
                token_logprobs(model, batch, 1.0, with_entropy=True)[1], batch.response_mask
            )
        )


def update(opt: Optimisation, data, advantages, old=None) -> None:
    old = [s.rollout_logprobs for s in data] if old is None else old
    ppo_update(opt, data, advantages, old, np.random.default_rng(0))


def test_kl_penalty_pulls_the_policy_towards_the_reference() -> None:
    data, model, reference = samples(), tiny_model(0), tiny_model(1).eval()
    before = mean_kl(model, reference, data)
    opt = optimisation(model, 4, lr=0.2, reference=reference, kl_coef=1.0)
    for _ in range(3):
        update(opt, data, [0.0] * 4)
    assert before > 0.1
    assert mean_kl(model, reference, data) < before - 0.1


def test_entropy_bonus_raises_entropy() -> None:
    data, model = samples(), tiny_model(0)
    before = mean_entropy(model, data)
    opt = optimisation(model, 4, lr=0.2, kl_coef=0.0, entropy_coef=1.0)
    for _ in range(3):
        update(opt, data, [0.0] * 4)
    assert mean_entropy(model, data) > before + 1e-3


def param_step(opt_model, run) -> torch.Tensor:
    """The change of every parameter made by ``run`` (flattened)."""
    start = torch.cat([p.detach().flatten().clone() for p in opt_model.parameters()])
    run()
    return torch.cat([p.detach().flatten() for p in opt_model.parameters()]) - start


def test_micro_batches_of_unequal_length_give_the_exact_token_mean() -> None:
    data, advantages = samples(), [1.0, -2.0, 0.5, 3.0]
    # the definition: one token-mean PPO loss over the whole mini-batch, one SGD step
    model = tiny_model(0)
    batch = full_batch(data, advantages)
    loss, _ = ppo_clip_loss(
        token_logprobs(model, batch, 1.0)[0],
        batch.old_logprobs,
        batch.advantages,
        batch.response_mask,
    )
    loss.backward()
    expected = -0.05 * torch.cat([p.grad.flatten() for p in model.parameters()])
    for micro in (1, 2, 4):
        model = tiny_model(0)
        opt = optimisation(model, micro, kl_coef=0.0)
        got = param_step(model, lambda opt=opt: update(opt, data, advantages))
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-7)


def test_pi_old_is_recomputed_by_the_trainer_and_the_gap_is_measured() -> None:
    data, model = samples(rollout_shift=0.1), tiny_model(0)
    opt = optimisation(model, 2, kl_coef=0.0)
    old = trainer_logprobs(opt, data)
    for s, values in zip(data, old.values, strict=True):
        assert values == pytest.approx([v - 0.1 for v in s.rollout_logprobs], abs=1e-5)
    assert old.mismatch_mean == pytest.approx(0.1, abs=1e-5)
    assert old.mismatch_max == pytest.approx(0.1, abs=1e-5)
    # with the trainer's pi_old the first step's ratio is exactly 1; the sampler's is off by e^0.1
    fresh = ppo_update(opt, data, [1.0] * 4, old.values, np.random.default_rng(0))
    assert fresh.approx_kl == pytest.approx(0.0, abs=1e-6)
    biased = ppo_update(
        optimisation(tiny_model(0), 2, kl_coef=0.0),
        data,
        [1.0] * 4,
        [s.rollout_logprobs for s in data],
        np.random.default_rng(0),
    )
    assert biased.approx_kl == pytest.approx(0.1, abs=1e-5)


@pytest.mark.parametrize("shift,weight", [(math.log(2.0), 0.5), (-math.log(8.0), 2.0)])
def test_truncated_importance_weights_scale_the_step(shift: float, weight: float) -> None:
    data, advantages = samples(rollout_shift=shift), [1.0, -2.0, 0.5, 3.0]
    old = [[v - shift for v in s.rollout_logprobs] for s in data]  # the trainer's own logprobs
    plain_model, tis_model = tiny_model(0), tiny_model(0)
    plain = optimisation(plain_model, 4, kl_coef=0.0)
    plain_step = param_step(plain_model, lambda: update(plain, data, advantages, old))
    tis = optimisation(tis_model, 4, kl_coef=0.0, rollout_correction="tis", tis_cap=2.0)
    tis_step = param_step(tis_model, lambda: update(tis, data, advantages, old))
    # weight min(pi_old / pi_rollout, cap): 0.5 below the cap, 8 truncated to 2
    assert plain_step.abs().max() > 1e-3
    torch.testing.assert_close(tis_step, weight * plain_step, rtol=1e-3, atol=1e-6)


def test_tis_needs_the_trainer_logprobs() -> None:
    with pytest.raises(ValueError, match="needs old_logprobs=trainer"):
        AlgoSpec(rollout_correction="tis", old_logprobs="rollout")


def test_nonfinite_gradient_stops_or_is_skipped_and_never_applied() -> None:
    data = samples()
    model = tiny_model(0)
    with pytest.raises(NonFiniteError, match="algo.nonfinite=skip"):
        param_step(model, lambda: update(optimisation(model, 2), data, [float("nan")] * 4))
    opt = optimisation(model, 2, nonfinite="skip")
    step = param_step(model, lambda: update(opt, data, [float("nan")] * 4))
    assert bool((step == 0).all())  # nothing applied in either mode
    stats = ppo_update(
        opt, data, [float("nan")] * 4, [s.rollout_logprobs for s in data], np.random.default_rng(0)
    )
    assert (stats.skipped_steps, stats.mini_batches) == (1, 0)
    assert stats.loss == 0.0  # skipped mini-batches do not pollute the averages


def test_non_finite_weights_stop_the_run_and_are_never_saved(tmp_path) -> None:
    model = tiny_model(0)
    accelerator = Accelerator()
    ensure_finite_weights(accelerator, model, 0)  # a healthy model passes
    with torch.no_grad():
        model.lm_head.weight[0, 0] = float("inf")
    with pytest.raises(NonFiniteError, match="iteration 3"):
        ensure_finite_weights(accelerator, model, 3)
    with pytest.raises(NonFiniteError, match="refusing to save"):
        save_policy(model, None, tmp_path / "policy")
    assert not (tmp_path / "policy").exists()


# Golden numbers of a seeded 3-iteration update (torchtune style): pi_old recomputed, then one
# PPO epoch of two mini-batches with KL to a reference and an entropy bonus, AdamW. Any change to
# the update's arithmetic (ratio, clipping, KL, entropy, token weighting) moves them. Measured
# with torch 2.13.0 on CPU; the tolerance only absorbs floating-point summation order.
GOLDEN_UPDATE = {
    "loss": [0.16572101307766776, 0.9237447768743884, 1.4354765728900307],
    "pg_loss": [-0.3153459302016667, 0.22948707692455822, 1.0335307309502049],
    "kl": [5.013776553528649, 7.134542149409913, 4.174657130450533],
    "entropy": [2.0310719843421663, 1.9196598393875255, 1.551991459570433],
    "clip_fraction": [0.25, 0.18421052553151782, 0.16666666666666666],
}


def test_seeded_update_matches_golden_numbers() -> None:
    data, model, reference = samples(), tiny_model(0), tiny_model(1).eval()
    spec = AlgoSpec(mini_batch=2, micro_batch=1, kl_coef=0.1, entropy_coef=0.01, lr=1e-2)
    accelerator = Accelerator(gradient_accumulation_steps=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=spec.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)
    opt = Optimisation(
        model,
        optimizer,
        scheduler,
        accelerator,
        spec,
        1.0,
        0,
        lambda batch: token_logprobs(reference, batch, 1.0)[0],
    )
    rows = []
    for iteration in range(3):
        advantages = np.random.default_rng(iteration).standard_normal(len(data)).tolist()
        old = trainer_logprobs(opt, data).values
        stats = ppo_update(opt, data, advantages, old, np.random.default_rng(iteration))
        rows.append(stats)
    for key, expected in GOLDEN_UPDATE.items():
        assert [getattr(r, key) for r in rows] == pytest.approx(expected, rel=1e-4, abs=1e-6), key


class FixedDistribution(torch.nn.Module):
    """A "model" whose next-token distribution is the same at every position: ``probs``."""

    def __init__(self, probs: list[float]) -> None:
        super().__init__()
        self.logits = torch.nn.Parameter(torch.tensor(probs).log())

    def forward(self, input_ids, attention_mask, logits_to_keep):
        rows = input_ids.shape[0]
        return SimpleNamespace(logits=self.logits.expand(rows, logits_to_keep, -1))


def test_the_logged_entropy_is_the_policy_s_true_entropy_without_an_entropy_bonus() -> None:
    probs = [0.5, 0.25, 0.125, 0.125]
    true_entropy = -sum(p * math.log(p) for p in probs)  # 1.75 ln 2 = 1.2130 nats
    data = [
        SimpleNamespace(prompt_ids=[0, 1, 2], response_ids=r, rollout_logprobs=[0.0] * len(r))
        for r in ([1, 2], [3], [0, 0, 1], [2])
    ]
    model = FixedDistribution(probs)
    opt = optimisation(model, 4, kl_coef=0.0, entropy_coef=0.0)
    stats = ppo_update(
        opt,
        data,
        [1.0, -1.0, 0.5, 0.0],
        [s.rollout_logprobs for s in data],
        np.random.default_rng(0),
    )
    assert stats.mini_batches == 1
    assert stats.entropy == pytest.approx(true_entropy, rel=1e-6)
