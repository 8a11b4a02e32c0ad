"""``collabrl plan``: model shapes against transformers' own parameter counts, two recipes worked
by hand, and the plan's update-phase estimate against the measured peak of real PPO updates of
tiny models on the CPU.

Measured how: :class:`collabrl.training.tensor_peak.TensorPeak` counts the bytes of every live
tensor storage between operators (what ``torch.cuda.max_memory_allocated`` counts on a GPU),
exact and the same on every run; the process's resident high-water mark moves with glibc's
allocation thresholds. The weights and the optimizer state, made before the update, are ignored,
so the peak is the update's own: gradients + activations. A warm-up update first creates the
AdamW state, as every update after the first finds it.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.config import load_recipe
from collabrl.training.plan import GIB, Parallel, Workload, plan_memory
from collabrl.training.plan_recipe import plan_from_args, plan_recipe
from collabrl.training.shapes import KNOWN_SHAPES, TINY_VOCAB, ModelShape, tiny_shape

MIB = 2**20


def part(plan, name: str) -> int:
    (found,) = [p.bytes for p in plan.parts if p.name.startswith(name)]
    return found


def meta_params(shape: ModelShape) -> int:
    """transformers' count for the same config, built on the meta device (no memory)."""
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    fields = dict(
        vocab_size=shape.vocab,
        hidden_size=shape.hidden,
        intermediate_size=shape.intermediate,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        tie_word_embeddings=shape.tied,
    )
    with torch.device("meta"):
        model = (
            Qwen2ForCausalLM(Qwen2Config(**fields))
            if shape.qkv_bias
            else LlamaForCausalLM(LlamaConfig(**fields))
        )
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name", ["qwen2.5-0.5b", "qwen2.5-7b", "llama-3.1-8b", "smollm2-135m"])
def test_known_shapes_count_what_transformers_builds(name: str) -> None:
    shape = KNOWN_SHAPES[name]
    assert shape.params() == meta_params(shape)


def test_published_sizes() -> None:
    """The model cards' totals: Qwen2.5-7B 7.61 B, Qwen2.5-1.5B 1.54 B, Llama-3.1-8B 8.03 B."""
    assert round(KNOWN_SHAPES["qwen2.5-7b"].params() / 1e9, 2) == 7.62  # 7,615,616,512
    assert round(KNOWN_SHAPES["qwen2.5-1.5b"].params() / 1e9, 2) == 1.54
    assert round(KNOWN_SHAPES["llama-3.1-8b"].params() / 1e9, 2) == 8.03


def test_lora_count_is_peft_s() -> None:
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    shape = tiny_shape("small")
    config = LlamaConfig(
        vocab_size=shape.vocab,
        hidden_size=shape.hidden,
        intermediate_size=shape.intermediate,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        tie_word_embeddings=True,
    )
    for targets in ("all-linear", ["q_proj", "v_proj"]):
        model = get_peft_model(
            LlamaForCausalLM(config), LoraConfig(r=8, target_modules=targets, task_type="CAUSAL_LM")
        )
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        assert shape.lora_params(8, targets) == trainable


def test_paper_recipe_by_hand() -> None:
    """cwah_gigpo under launch/zero3.yaml (named in its header): Qwen2.5-7B, 8 GPUs, bf16."""
    plan = plan_from_args(["cwah_gigpo"])
    h, i, layers, vocab, kv = 3584, 18944, 28, 152064, 4 * 128
    layer = (
        h * h * 2 + h * kv * 2 + 3 * h * i + (h + 2 * kv) + 2 * h
    )  # q, o; k, v; MLP; bias; norms
    psi = 2 * vocab * h + layers * layer + h  # untied embedding and head, final norm
    assert psi == 7_615_616_512
    assert part(plan, "trainer weights") == 2 * psi // 8
    assert part(plan, "reference model") == 2 * psi // 8
    assert part(plan, "gradients") == 2 * psi // 8
    assert part(plan, "fp32 gradient partition") == 4 * psi // 8
    assert part(plan, "AdamW state") == 12 * psi // 8  # 10.64 GiB
    # B = 2 rows of T = 4096 + 4096 tokens, K = 4097 positions with logits, e = 2 (bf16)
    per_layer = 2 * (4 + 2) * h + 2 * 2 * h + 2 * (2 * h + 2 * kv) + 4 * 2 * i  # 225,280 B
    assert per_layer == 225_280
    top = (4 + 2) * h + 2 * h
    saved = 2 * (8192 * (layers * per_layer + top) + 4097 * 4 * vocab)
    assert part(plan, "activations saved") == saved  # 101.7 GiB: the worst case does not fit
    assert part(plan, "activations: backward") == 3 * 4 * 2 * 4097 * vocab  # the loss's logits
    assert part(plan, "vLLM reservation") == int(0.35 * 80 * GIB)
    assert part(plan, "vLLM during the update (sleep level 2)") == GIB // 2
    assert not plan.fits
    assert round(plan.peak / GIB, 1) == 134.2
    # micro_batch=1 halves the activations: 76.6 GiB, fits 80 GiB
    one = plan_from_args(["cwah_gigpo", "algo.micro_batch=1"])
    assert one.fits and round(one.peak / GIB, 1) == 76.6
    # vLLM: 0.35 x 80 GiB - 14.19 GiB weights - 0.80 activations - 0.5 graphs = 12.52 GiB of KV,
    # 2 x 28 layers x 512 x 2 B = 57,344 B per token
    kv_bytes = int(0.35 * 80 * GIB) - 2 * psi - 8192 * (2 * i + 4 * h) * 2 - GIB // 2
    assert plan.kv_tokens == kv_bytes // 57_344


def test_lora_cpu_recipe_by_hand() -> None:
    """cwah_gigpo_smollm2_cpu under launch/cpu.yaml: SmolLM2-135M (shape table), LoRA rank 16
    on all linears, float32, micro-batches of 2 rows of 3000 + 160 tokens, KL on."""
    plan = plan_from_args(["cwah_gigpo_smollm2_cpu"], launch="cpu")
    h, i, layers, vocab, kv, r = 576, 1536, 30, 49152, 3 * 64, 16
    psi = vocab * h + layers * (2 * h * h + 2 * h * kv + 3 * h * i + 2 * h) + h  # tied head
    assert psi == 134_515_008
    lora = layers * r * ((h + h) + 2 * (h + kv) + (h + h) + 2 * (h + i) + (i + h))
    assert lora == 4_884_480
    assert part(plan, "trainer weights") == 4 * (psi + lora)  # float32, no DeepSpeed
    assert "reference model" not in {p.name for p in plan.parts}  # adapters off instead
    assert part(plan, "gradients") == 4 * lora
    assert part(plan, "AdamW state") == 8 * lora
    # frozen norms keep float32 inputs; no dropout: shared inputs + 7 adapters' rank-wide inputs
    per_layer = 2 * 4 * h + 4 * (2 * h + 2 * h + 2 * kv + 4 * i + 7 * r)
    saved = 2 * (3160 * (layers * per_layer + 4 * h) + 161 * 4 * vocab)
    assert part(plan, "activations saved") == saved
    assert part(plan, "activations: backward") == 2 * 3160 * (4 * i + 5 * h) * 4  # reference pass
    assert "CUDA context and workspaces" not in {p.name for p in plan.parts}
    assert plan.fits


@pytest.fixture(scope="module")
def tiny_folders(tmp_path_factory):
    from collabrl.models.tiny import make_tiny_model

    root = tmp_path_factory.mktemp("plan")
    return {size: make_tiny_model(root / size, size=size) for size in ("tiny", "small")}


def measured_update_peak(folder, recipe) -> tuple[int, dict[str, int]]:
    """Peak tensor bytes of a second PPO update (the trainer's loader, optimizer and loss) over
    micro-batches of worst-case rows, and the sizes of what existed before it."""
    from accelerate import Accelerator
    from transformers import get_scheduler

    from collabrl.training.policy import load_policy
    from collabrl.training.tensor_peak import TensorPeak, optimizer_tensors
    from collabrl.training.update import Optimisation, ppo_update, token_logprobs

    torch.manual_seed(0)
    algo = recipe.algo
    policy = load_policy(recipe.policy, str(folder), need_reference=algo.kl_coef > 0)
    accelerator = Accelerator(cpu=True)
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=algo.lr)
    model, opt, sched = accelerator.prepare(
        policy.model, optimizer, get_scheduler("constant", optimizer)
    )
    model.train()  # as the loop does before each update
    temperature = recipe.policy.sampling.temperature

    def reference(batch):
        return policy.reference(lambda m: token_logprobs(m, batch, temperature)[0])

    run = Optimisation(model, opt, sched, accelerator, algo, temperature, 0, reference)
    rng = np.random.default_rng(0)
    prompt, reply = recipe.policy.max_prompt_tokens, recipe.policy.sampling.max_new_tokens
    samples = [
        SimpleNamespace(
            prompt_ids=rng.integers(3, TINY_VOCAB, prompt).tolist(),
            response_ids=rng.integers(3, TINY_VOCAB, reply).tolist(),
            rollout_logprobs=[-1.0] * reply,
        )
        for _ in range(algo.micro_batch)
    ]
    advantages = rng.standard_normal(len(samples)).tolist()
    old = [s.rollout_logprobs for s in samples]
    ppo_update(run, samples, advantages, old, np.random.default_rng(1))  # creates AdamW's state
    before = list(model.parameters()) + optimizer_tensors(opt)
    if policy.reference_model is not None:
        before += list(policy.reference_model.parameters())
    with TensorPeak(before) as peak:
        ppo_update(run, samples, advantages, old, np.random.default_rng(1))

    def size(tensors) -> int:
        return sum(t.numel() * t.element_size() for t in tensors)

    statics = {
        "trainer weights": size(model.parameters()),
        "AdamW state": size(t for t in optimizer_tensors(opt) if t.dim() > 0),
    }
    if policy.reference_model is not None:
        statics["reference model"] = size(policy.reference_model.parameters())
    return peak.peak, statics


CASES = {
    # the cwah_gigpo_cpu recipe as it is: one 2720 + 160 token row per micro-batch, KL on
    "tiny, full fine-tuning": ("tiny", ()),
    "tiny, gradient checkpointing": ("tiny", ("policy.gradient_checkpointing=true",)),
    "tiny-small, LoRA with dropout, 2 rows": (
        "small",
        (
            "policy.model=tiny-small",
            "policy.lora.rank=16",
            "policy.lora.dropout=0.05",
            "algo.micro_batch=2",
            "policy.max_prompt_tokens=1200",
            "policy.sampling.max_new_tokens=200",
        ),
    ),
}


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
@pytest.mark.parametrize("case", CASES)
def test_update_peak_within_15_percent_of_the_plan(case: str, tiny_folders) -> None:
    size, overrides = CASES[case]
    recipe = load_recipe("cwah_gigpo_cpu", list(overrides))
    plan = plan_recipe(recipe, launch="launch/cpu.yaml")
    assert plan.parallel.cpu
    measured, statics = measured_update_peak(tiny_folders[size], recipe)
    for name, nbytes in statics.items():  # what exists before the update: exact
        assert part(plan, name) == nbytes, name
    estimate = sum(p.bytes for p in plan.parts if p.phase in ("update", "activations"))
    assert abs(estimate - measured) <= 0.15 * measured, (estimate / MIB, measured / MIB)


def test_tiny_vocabulary_is_the_tokenizer_s(tiny_folders) -> None:
    import json

    config = json.loads((tiny_folders["tiny"] / "config.json").read_text())
    assert config["vocab_size"] == TINY_VOCAB


def test_plan_memory_without_vllm_counts_the_generate_cache() -> None:
    shape = tiny_shape("tiny")
    work = Workload(micro_batch=1, seq=100, kept=11, generate_batch=4)
    plan = plan_memory(shape, Parallel(cpu=True), work, GIB)
    assert part(plan, "generate KV cache") == 4 * 100 * shape.kv_bytes_per_token(4)


def test_cli_exit_codes_and_knobs() -> None:
    runner = CliRunner()
    over = runner.invoke(cli, ["plan", "cwah_gigpo"])
    assert over.exit_code == 1
    assert "does NOT fit" in over.output
    assert "try algo.micro_batch=1: peak 76.62 GiB (fits)" in over.output
    fits = runner.invoke(cli, ["plan", "cwah_gigpo", "--gpu-memory", "141", "algo.micro_batch=1"])
    assert fits.exit_code == 0, fits.output
    assert "fits" in fits.output.splitlines()[-1]
    small = runner.invoke(cli, ["plan", "cwah_gigpo_cpu", "--launch", "cpu"])
    assert small.exit_code == 0 and "MiB" in small.output


def test_unknown_model_is_one_line() -> None:
    from collabrl.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "cwah_sft_lora"])
    assert exit_info.value.code == 2
