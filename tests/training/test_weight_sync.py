"""The colocated-vLLM path on CPU: sleep, wake, streamed full-weight pushes and LoRA adapter pushes
happen in the right order around each update (the training loop driving a recording engine), and
a streamed push delivers exactly the trainer's weights, also under ZeRO-3."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from collabrl.config import Recipe, load_recipe
from collabrl.engines.hf import TransformersEngine, TransformersOptions
from collabrl.models.tiny import make_tiny_model
from collabrl.training import loop
from collabrl.training.weight_sync import ADAPTER_DIR, layer_key, weight_buckets

ROOT = Path(__file__).resolve().parents[2]
FAST = [
    "partner.kind=expert",
    "reward.judge.kind=none",
    "game.max_decisions=3",
    "rollout.groups=1",
    "rollout.episodes_per_group=2",
    "policy.sampling.max_new_tokens=8",
    "train.wandb=disabled",
    "train.iterations=2",
    "train.checkpoint_every=0",
    "algo.mini_batch=8",
    "algo.micro_batch=4",
    "algo.lr=0.01",
    "policy.backend=vllm",
    "policy.engine_options.enable_sleep_mode=true",
]


class RecordingVLLM:
    """Stands in for ``VLLMEngine``: generates with the trainer's own model (so the run can
    learn), records every call, and keeps what each push delivered."""

    def __init__(self, inner: TransformersEngine, calls: list[str]) -> None:
        self.inner, self.calls = inner, calls
        self.awake = True
        self.pushes: list[list[dict[str, torch.Tensor]]] = []
        self.adapters: list[dict[str, torch.Tensor]] = []

    def generate(self, conversations, params):
        assert self.awake, "generate while asleep"
        if not self.calls or self.calls[-1] != "generate":
            self.calls.append("generate")
        return self.inner.generate(conversations, params)

    def sleep(self, level: int) -> None:
        self.calls.append(f"sleep({level})")
        self.awake = False

    def wake_up(self, tags=None) -> None:
        self.calls.append(f"wake_up({','.join(tags or ['all'])})")
        self.awake = "kv_cache" in (tags or ["kv_cache"])

    def load_weights(self, buckets) -> None:
        self.calls.append("load_weights")
        self.pushes.append([{k: v.clone() for k, v in b.items()} for b in buckets])

    def load_lora(self, adapter_dir: str) -> None:
        self.calls.append("load_lora")
        self.adapters.append(load_file(Path(adapter_dir) / "adapter_model.safetensors"))

    def close(self) -> None:
        """Nothing to release: the recording engine holds no process or memory."""


def run_recorded(tmp_path: Path, monkeypatch, *overrides: str):
    """Train in this process with ``RecordingVLLM`` as the rollout engine and every PPO update
    recorded; returns (calls, engine, final model state)."""
    calls: list[str] = []
    engines: list[RecordingVLLM] = []
    models: list[torch.nn.Module] = []

    def fake_engine(recipe, model, tokenizer, model_path):
        options = TransformersOptions(max_context=4096)
        engines.append(RecordingVLLM(TransformersEngine(model, tokenizer, options), calls))
        models.append(model)
        return engines[-1]

    update = loop.ppo_update

    def recorded_update(*args, **kwargs):
        calls.append("update")
        return update(*args, **kwargs)

    monkeypatch.setattr(loop, "_rollout_engine", fake_engine)
    monkeypatch.setattr(loop, "ppo_update", recorded_update)
    # the recording engine stands in for vLLM, which this environment need not have
    monkeypatch.setattr(Recipe, "check_extras", lambda self: None)
    recipe = load_recipe("cwah_gigpo_cpu", [*FAST, f"output_dir={tmp_path}", *overrides])
    loop.train(recipe)
    return calls, engines[0], models[0]


ITERATION = ["generate", "update", "wake_up(weights)", "PUSH", "wake_up(kv_cache)"]


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_full_weights_sleep_before_each_update_and_stream_after(tmp_path, monkeypatch):
    calls, engine, model = run_recorded(
        tmp_path, monkeypatch, "policy.weight_sync.sleep_level=2", "policy.weight_sync.bucket_mb=1"
    )
    expected = [c.replace("PUSH", "load_weights") for c in ITERATION]
    expected.insert(1, "sleep(2)")
    assert calls == expected * 2
    last = engine.pushes[-1]
    assert len(last) > 1, "a 1 MiB bucket cannot hold the whole tiny model"
    pushed = {k: v for bucket in last for k, v in bucket.items()}
    assert pushed.keys() == dict(model.named_parameters(remove_duplicate=False)).keys()
    for name, param in model.named_parameters(remove_duplicate=False):  # the trained weights
        assert torch.equal(pushed[name], param.detach()), name
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert all({"time/sleep", "time/wake", "time/weight_push"} <= m.keys() for m in metrics)


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_lora_runs_push_adapters_through_vllm_lora_loading(tmp_path, monkeypatch):
    calls, engine, model = run_recorded(
        tmp_path, monkeypatch, "policy.lora.rank=4", "policy.weight_sync.sleep_level=1"
    )
    expected = [c.replace("PUSH", "load_lora") for c in ITERATION]
    expected.insert(1, "sleep(1)")
    assert calls == expected * 2
    assert not engine.pushes  # no full weights travel in a LoRA run
    trained = {n: p.detach() for n, p in model.named_parameters() if "lora_" in n}
    adapter = engine.adapters[-1]
    assert len(adapter) == len(trained) > 0
    for name, tensor in adapter.items():  # PEFT drops the adapter name from saved keys
        live = name.replace(".lora_A.weight", ".lora_A.default.weight").replace(
            ".lora_B.weight", ".lora_B.default.weight"
        )
        assert torch.equal(tensor, trained[live]), name
    assert (tmp_path / ADAPTER_DIR / "adapter_config.json").is_file()


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_without_sleep_the_push_alone_follows_the_update(tmp_path, monkeypatch):
    calls, _, _ = run_recorded(tmp_path, monkeypatch, "policy.weight_sync.sleep_level=0")
    assert calls == ["generate", "update", "load_weights"] * 2


def test_buckets_hold_whole_layers_within_the_size(tmp_path):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(make_tiny_model(tmp_path, seed=0))
    named = dict(model.named_parameters(remove_duplicate=False))  # tied: both names
    layer_bytes = {}
    for name, p in named.items():
        layer_bytes[layer_key(name)] = layer_bytes.get(layer_key(name), 0) + p.nbytes
    limit = max(layer_bytes.values()) * 2
    buckets = list(weight_buckets(model, limit))
    seen = [name for bucket in buckets for name in bucket]
    assert sorted(seen) == sorted(named) and len(seen) == len(set(seen))
    for bucket in buckets:
        assert sum(t.nbytes for t in bucket.values()) <= limit
    owner = {layer_key(n): i for i, bucket in enumerate(buckets) for n in bucket}
    assert all(owner[layer_key(n)] == i for i, bucket in enumerate(buckets) for n in bucket)
    assert layer_key("model.layers.3.self_attn.q_proj.weight") == "model.layers.3"
    assert layer_key("lm_head.weight") == "lm_head"


ZERO3_SCRIPT = textwrap.dedent(
    """
    import sys
    import torch
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM
    from collabrl.training.policy import fill_deepspeed_config
    from collabrl.training.weight_sync import weight_buckets

    path, out = sys.argv[1:]
    accelerator = Accelerator()
    fill_deepspeed_config(accelerator, 1, 1.0)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    unwrapped = accelerator.unwrap_model(model)
    assert all(p.numel() == 0 for p in unwrapped.parameters()), "ZeRO-3 did not shard"
    buckets = [{k: v.clone() for k, v in b.items()} for b in weight_buckets(unwrapped, 1 << 18)]
    assert all(p.numel() == 0 for p in unwrapped.parameters()), "a bucket stayed gathered"
    torch.save(buckets, out)
    """
)


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_zero3_streamed_push_gathers_each_bucket_exactly(tmp_path):
    if importlib.util.find_spec("deepspeed") is None:
        pytest.skip("deepspeed not installed (DS_BUILD_OPS=0 pip install deepspeed)")
    exe = shutil.which("accelerate")
    if exe is None:
        pytest.skip("accelerate CLI not on PATH")
    model_dir = make_tiny_model(tmp_path / "tiny", seed=0)
    script, out = tmp_path / "push.py", tmp_path / "buckets.pt"
    script.write_text(ZERO3_SCRIPT)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_PORT": "29537"}
    cmd = [exe, "launch", "--config_file", "launch/zero3_cpu.yaml", str(script)]
    result = subprocess.run(
        [*cmd, str(model_dir), str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    buckets = torch.load(out)
    assert len(buckets) > 1
    from transformers import AutoModelForCausalLM

    plain = AutoModelForCausalLM.from_pretrained(model_dir).named_parameters(remove_duplicate=False)
    plain = dict(plain)
    pushed = {k: v for bucket in buckets for k, v in bucket.items()}
    assert pushed.keys() == plain.keys()
    for name, param in plain.items():
        assert torch.equal(pushed[name], param.detach()), name


def test_sleep_settings_that_would_fail_or_lose_weights_are_refused_at_lint():
    from collabrl.errors import CollabrlError

    with pytest.raises(CollabrlError, match="needs backend=vllm"):
        load_recipe("cwah_gigpo_cpu", ["policy.weight_sync.sleep_level=1"])
    with pytest.raises(CollabrlError, match="enable_sleep_mode=true"):
        load_recipe("cwah_gigpo", ["policy.engine_options.enable_sleep_mode=false"])
    with pytest.raises(CollabrlError, match="use sleep_level=1"):
        load_recipe("cwah_gigpo", ["policy.lora.rank=8"])
    assert load_recipe("cwah_gigpo", []).policy.weight_sync.sleep_level == 2
