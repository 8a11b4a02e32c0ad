"""Launch configs under launch/: every accelerate YAML parses and has what accelerate needs, the
DeepSpeed JSONs are consistent with the trainer, and short runs go end to end through
``accelerate launch`` (plain CPU always; DeepSpeed ZeRO-2 on CPU when deepspeed is installed)."""

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = ROOT / "launch"
CONFIGS = sorted(LAUNCH.glob("*.yaml"))
EXPECTED = {
    "cpu.yaml",
    "multi_gpu.yaml",
    "zero2.yaml",
    "zero3.yaml",
    "zero2_cpu.yaml",
    "zero3_cpu.yaml",
}
DISTRIBUTED_TYPES = {"NO", "MULTI_CPU", "MULTI_GPU", "DEEPSPEED", "FSDP"}
# accelerate refuses these next to deepspeed_config_file (they must live in the JSON)
DS_FILE_EXCLUSIVE = {
    "gradient_accumulation_steps",
    "gradient_clipping",
    "zero_stage",
    "offload_optimizer_device",
    "offload_param_device",
    "zero3_save_16bit_model",
}
TINY = [
    "recipe=cwah_gigpo_cpu",
    "train.iterations=1",
    "partner.kind=expert",
    "reward.judge.kind=none",
    "train.wandb=disabled",
    "rollout.groups=1",
    "game.max_decisions=2",
    "policy.sampling.max_new_tokens=8",
    "algo.mini_batch=4",
    "algo.micro_batch=2",
]


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict), f"{path.name} is not a mapping"
    return data


def test_expected_configs_exist() -> None:
    assert {p.name for p in CONFIGS} >= EXPECTED
    assert (LAUNCH / "README.md").is_file()


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_has_what_accelerate_needs(path: Path) -> None:
    config = load(path)
    assert config["compute_environment"] == "LOCAL_MACHINE"
    assert config["distributed_type"] in DISTRIBUTED_TYPES
    assert isinstance(config["num_processes"], int) and config["num_processes"] >= 1
    assert config.get("num_machines", 1) >= 1
    # every file starts with a comment header saying when to use it
    assert path.read_text().startswith("# ")


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_accelerate_accepts_config(path: Path) -> None:
    """accelerate's own loader: unknown keys or bad enum values raise here."""
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import load_config_from_file

    config = load_config_from_file(str(path))
    assert config.num_processes >= 1


@pytest.mark.parametrize(
    "path", [p for p in CONFIGS if p.name.startswith("zero")], ids=lambda p: p.name
)
def test_deepspeed_configs(path: Path) -> None:
    config = load(path)
    assert config["distributed_type"] == "DEEPSPEED"
    ds = config["deepspeed_config"]
    assert isinstance(ds, dict)
    # "auto" here becomes an env var that Accelerator() cannot parse as an int
    assert ds.get("gradient_accumulation_steps") != "auto"
    stage = 3 if "zero3" in path.name else 2
    if "deepspeed_config_file" in ds:
        assert not DS_FILE_EXCLUSIVE & set(ds), "these keys belong in the DeepSpeed JSON"
        assert "mixed_precision" not in config, "set bf16/fp16 in the DeepSpeed JSON"
        ds_json = json.loads((ROOT / ds["deepspeed_config_file"]).read_text())
        assert ds_json["zero_optimization"]["stage"] == stage
        # the trainer prepares no DataLoader: accelerate cannot fill an "auto" micro-batch
        assert isinstance(ds_json["train_micro_batch_size_per_gpu"], int)
        # filled from Accelerator(gradient_accumulation_steps=mini_batch // micro_batch)
        assert ds_json["gradient_accumulation_steps"] == "auto"
        assert ds_json["gradient_clipping"] > 0
        gpu = not path.name.endswith("_cpu.yaml")
        assert ds_json["bf16"]["enabled"] is gpu
    else:
        assert ds["zero_stage"] == stage


def test_shell_launchers_parse() -> None:
    scripts = [*LAUNCH.glob("*.sh"), *LAUNCH.glob("*.sbatch")]
    assert any(p.suffix == ".sbatch" or "multinode" in p.name for p in scripts)
    for script in scripts:
        assert os.access(script, os.X_OK), f"{script.name} is not executable"
        subprocess.run(["bash", "-n", str(script)], check=True)
    text = "\n".join(p.read_text() for p in scripts)
    for flag in ("--num_machines", "--machine_rank", "--main_process_ip", "launch/zero3.yaml"):
        assert flag in text


def accelerate_run(config: str, out: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    exe = shutil.which("accelerate")
    if exe is None:
        pytest.skip("accelerate CLI not on PATH")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_PORT": "29531"}
    cmd = [exe, "launch", "--config_file", f"launch/{config}", "train.py", *TINY]
    return subprocess.run(
        [*cmd, f"output_dir={out}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def check_run(result: subprocess.CompletedProcess, out: Path) -> None:
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [0]
    assert (out / "checkpoints" / "iter_000000" / "policy" / "config.json").is_file()


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_accelerate_launch_cpu_runs_one_iteration(tmp_path) -> None:
    out = tmp_path / "cpu"
    check_run(accelerate_run("cpu.yaml", out), out)


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_deepspeed_zero2_and_zero3_cpu_train_the_same_policy(tmp_path) -> None:
    """ZeRO-3 shards the weights (and its reference model): the saved HF policy must still hold
    the full, identically trained weights."""
    if importlib.util.find_spec("deepspeed") is None:
        pytest.skip("deepspeed not installed (DS_BUILD_OPS=0 pip install deepspeed)")
    from safetensors.torch import load_file

    weights = {}
    for stage in ("zero2", "zero3"):
        out = tmp_path / stage
        check_run(accelerate_run(f"{stage}_cpu.yaml", out), out)
        assert (out / "checkpoints" / "iter_000000" / "pytorch_model").is_dir()  # DeepSpeed state
        weights[stage] = load_file(out / "checkpoints/iter_000000/policy/model.safetensors")
    initial = load_file(tmp_path / "zero2" / "tiny-model" / "model.safetensors")
    assert weights["zero2"].keys() == weights["zero3"].keys() == initial.keys()
    moved = max((weights["zero2"][k] - initial[k]).abs().max().item() for k in initial)
    gap = max((weights["zero3"][k] - weights["zero2"][k]).abs().max().item() for k in initial)
    assert moved > 1e-6 and gap < moved / 100
