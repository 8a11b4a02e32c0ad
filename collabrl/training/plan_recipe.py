"""``collabrl plan RECIPE``: a recipe and its launch config turned into a memory plan
(:mod:`collabrl.training.plan`), the table it prints, and the single changes that make it fit."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from collabrl.config import Recipe
from collabrl.errors import CollabrlError
from collabrl.training.plan import GIB, Parallel, Plan, Workload, plan_memory
from collabrl.training.shapes import resolve_shape

DEFAULT_GPU_GIB = 80.0


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def find_launch_config(name: str) -> Path:
    """A path, or the name of a config in ./launch (``zero3`` -> launch/zero3.yaml)."""
    path = Path(name).expanduser()
    if path.is_file():
        return path
    candidate = Path("launch") / f"{name.removesuffix('.yaml')}.yaml"
    if "/" not in name and candidate.is_file():
        return candidate
    raise CollabrlError(f"launch config {name!r} not found (run from the repository root)")


def parallel_from_launch(path: Path) -> Parallel:
    """Read an accelerate config (and the DeepSpeed JSON it names)."""
    config = _read_yaml(path)
    kind = str(config.get("distributed_type", "NO")).upper()
    gpus = int(config.get("num_processes", 1) or 1)
    cpu = bool(config.get("use_cpu", False))
    mixed = str(config.get("mixed_precision", "no")) == "bf16"
    if kind != "DEEPSPEED":
        return Parallel(gpus=gpus, bf16=mixed and not cpu, cpu=cpu, source=f"{path}")
    ds = config.get("deepspeed_config") or {}
    file = ds.get("deepspeed_config_file")
    if file:
        json_path = Path(file)
        if not json_path.is_file():  # relative to the repository root, one above launch/
            json_path = path.resolve().parent.parent / file
        if not json_path.is_file():
            raise CollabrlError(f"{path}: its DeepSpeed config {file} was not found")
        dsc = json.loads(json_path.read_text(encoding="utf-8"))
        zero = dsc.get("zero_optimization", {})
        stage = int(zero.get("stage", 0))
        bf16 = bool(dsc.get("bf16", {}).get("enabled", False))
        off_opt = zero.get("offload_optimizer", {}).get("device", "none") not in ("none", None)
        off_par = zero.get("offload_param", {}).get("device", "none") not in ("none", None)
        source = f"{path} + {file}"
    else:
        stage = int(ds.get("zero_stage", 0))
        bf16 = mixed
        off_opt = ds.get("offload_optimizer_device", "none") not in ("none", None)
        off_par = ds.get("offload_param_device", "none") not in ("none", None)
        source = f"{path}"
    return Parallel(
        gpus=gpus,
        zero=stage,
        bf16=bf16,
        deepspeed=True,
        offload_optimizer=off_opt,
        offload_param=off_par,
        cpu=cpu,
        source=source,
    )


def launch_named_in(recipe_text: str) -> str | None:
    """The launch config a recipe's header comment runs it with (``--config_file launch/X``)."""
    for line in recipe_text.splitlines():
        found = re.search(r"--config_file\s+(\S+\.yaml)", line)
        if line.lstrip().startswith("#") and found:
            return found.group(1)
    return None


def workload_of(
    recipe: Recipe, gradient_checkpointing: bool = False, cpu: bool = False
) -> Workload:
    """The update's and the rollout's sizes as the recipe sets them (every row worst-case long;
    the transformers engine's default batch is 1 on a CPU, 64 on a GPU)."""
    policy, algo = recipe.policy, recipe.algo
    options = dict(policy.engine_options)
    response = policy.sampling.max_new_tokens
    lora = policy.lora
    batch = options.get("batch_size")
    return Workload(
        micro_batch=min(algo.micro_batch, algo.mini_batch),
        seq=policy.max_prompt_tokens + response,
        kept=response + 1,
        lora_rank=lora.rank if lora else None,
        lora_targets=lora.target_modules if lora else "all-linear",
        lora_dropout=lora.dropout if lora else 0.0,
        reference=algo.kl_coef > 0,
        gradient_checkpointing=gradient_checkpointing or policy.gradient_checkpointing,
        backend=policy.backend,
        vllm_utilization=float(options.get("gpu_memory_utilization", 0.5)),
        vllm_max_model_len=options.get("max_model_len"),
        vllm_eager=bool(options.get("enforce_eager", False)),
        vllm_bf16=str(options.get("dtype", "auto")) not in ("float32", "float"),
        sleep_level=policy.weight_sync.sleep_level,
        generate_batch=int(batch) if batch else (1 if cpu else 64),
    )


def plan_recipe(
    recipe: Recipe,
    recipe_text: str = "",
    *,
    launch: str | None = None,
    gpus: int | None = None,
    gpu_gib: float = DEFAULT_GPU_GIB,
    gradient_checkpointing: bool = False,
) -> Plan:
    """The plan of ``recipe`` under ``launch`` (default: the config its header names, else one
    float32 process), on ``gpus`` GPUs (default: the launch config's processes) of ``gpu_gib``."""
    named = launch or launch_named_in(recipe_text)
    if named:
        par = parallel_from_launch(find_launch_config(named))
        if not launch:
            par = replace(par, source=f"{par.source} (named in the recipe's header)")
    else:
        par = Parallel()
    if gpus is not None:
        par = replace(par, gpus=gpus)
    if par.gpus < 1:
        raise CollabrlError(f"--gpus must be at least 1, got {par.gpus}")
    work = workload_of(recipe, gradient_checkpointing, par.cpu)
    plan = plan_memory(resolve_shape(recipe.policy.model), par, work, int(gpu_gib * GIB))
    if par.zero >= 3 and work.backend == "transformers":
        plan.notes.append(
            "ZeRO-3 with the transformers engine deadlocks across ranks: use policy.backend=vllm"
        )
    return plan


@dataclass(frozen=True)
class Knob:
    """A change that lowers the peak: how to make it, and the plan it gives."""

    change: str
    plan: Plan


def _changes(plan: Plan) -> list[tuple[str, Parallel, Workload]]:
    """The single changes a plan could take: recipe keys, launch configs, GPUs."""
    par, w = plan.parallel, plan.work
    out: list[tuple[str, Parallel, Workload]] = []
    if w.backend == "vllm" and w.sleep_level == 0:
        level = 1 if w.lora_rank else 2
        out.append((f"policy.weight_sync.sleep_level={level}", par, replace(w, sleep_level=level)))
    if w.micro_batch > 1:
        out.append(
            (
                f"algo.micro_batch={w.micro_batch // 2}",
                par,
                replace(w, micro_batch=w.micro_batch // 2),
            )
        )
    if w.backend == "vllm":
        lower = [u for u in (0.3, 0.25, 0.2) if u < w.vllm_utilization]
        higher = [u for u in (0.5, 0.6, 0.7) if u > w.vllm_utilization] if plan.kv_short else []
        for util in lower + higher:
            key = f"policy.engine_options.gpu_memory_utilization={util}"
            out.append((key, par, replace(w, vllm_utilization=util)))
    if par.deepspeed and par.zero < 3:
        out.append(("launch/zero3.yaml (ZeRO-3)", replace(par, zero=3), w))
    if not par.deepspeed and not par.cpu:
        zero3 = replace(par, deepspeed=True, zero=3, bf16=True, weights_bf16=False)
        out.append(("launch/zero3.yaml (DeepSpeed ZeRO-3, bf16)", zero3, w))
    if par.deepspeed and par.zero >= 2:
        gpus = par.gpus * 2
        out.append(
            (
                f"{gpus} GPUs (--gpus {gpus}; ZeRO-{par.zero} shards over them)",
                replace(par, gpus=gpus),
                w,
            )
        )
    if par.deepspeed and not par.offload_optimizer:
        offload = 'offload_optimizer {"device": "cpu"} in the DeepSpeed JSON (slower steps)'
        out.append((offload, replace(par, offload_optimizer=True), w))
    if w.lora_rank is None:
        out.append(("policy.lora.rank=32 (LoRA)", par, replace(w, lora_rank=32)))
    if w.kept > 2:
        new = w.kept // 2
        shorter = replace(w, kept=new, seq=w.seq - (w.kept - new))
        out.append((f"policy.sampling.max_new_tokens={new - 1}", par, shorter))
    if not w.gradient_checkpointing:
        checkpointed = replace(w, gradient_checkpointing=True)
        out.append(("policy.gradient_checkpointing=true", par, checkpointed))
    return out


def knobs(plan: Plan) -> list[Knob]:
    """Each single change, re-planned, that lowers the peak (or lets vLLM start), best first:
    those that fit, by peak."""
    found = []
    for change, par, work in _changes(plan):
        other = plan_memory(plan.shape, par, work, plan.gpu_bytes)
        if other.peak < plan.peak or (plan.kv_short and not other.kv_short):
            found.append(Knob(change, other))
    return sorted(found, key=lambda k: (not k.plan.fits, k.plan.peak))


def combined(plan: Plan, steps: int = 4) -> list[Knob]:
    """Changes taken greedily, the best each time, until the plan fits (empty: none helps)."""
    taken: list[Knob] = []
    while not plan.fits and len(taken) < steps:
        found = [k for k in knobs(plan) if k.change not in {t.change for t in taken}]
        if not found:
            break
        taken.append(found[0])
        plan = found[0].plan
    return taken if plan.fits else []


def _size(n: float, unit: int) -> str:
    return f"{n / unit:.2f}"


def format_plan(plan: Plan) -> str:
    """The table, the phase totals, the verdict and (when it does not fit) the knobs."""
    from tabulate import tabulate

    s, par = plan.shape, plan.parallel
    unit, uname = (GIB, "GiB") if plan.peak >= GIB else (2**20, "MiB")
    count = s.params()
    size = f"{count / 1e9:.2f} B" if count >= 1e9 else f"{count / 1e6:.2f} M"
    setup = (f"DeepSpeed ZeRO-{par.zero}" if par.deepspeed else "no DeepSpeed") + (
        ", bf16" if par.compute_bytes == 2 else ", float32"
    )
    where = "CPU" if par.cpu else f"{par.gpus} GPU(s) of {plan.gpu_bytes / GIB:.0f} GiB"
    lines = [
        f"model: {s.name}, {size} parameters ({s.source})",
        f"launch: {par.source}: {where}, {setup}"
        + (", optimizer offloaded" if par.offload_optimizer else ""),
        "",
    ]
    rows = [[p.name, _size(p.bytes, unit), p.phase, p.how] for p in plan.parts]
    lines.append(
        tabulate(rows, headers=["per GPU", uname, "phase", "how counted"], tablefmt="github")
    )
    lines.append("")
    update, rollout = plan.total("update"), plan.total("rollout")
    lines.append(
        f"update phase {_size(update, unit)} {uname}, rollout phase {_size(rollout, unit)} {uname}"
        " (every row at max_prompt_tokens + max_new_tokens)"
    )
    lines += [f"- {n}" for n in plan.notes]
    verdict = "fits" if plan.fits else "does NOT fit"
    lines.append(f"peak {_size(plan.peak, unit)} {uname} per GPU: {verdict}")
    if plan.kv_short:
        lines.append("vLLM's KV cache cannot hold one max-length sequence: vLLM would not start")
    if not plan.fits:
        for k in knobs(plan)[:5]:
            mark = "fits" if k.plan.fits else "still over"
            lines.append(f"  try {k.change}: peak {_size(k.plan.peak, unit)} {uname} ({mark})")
        together = combined(plan)
        if len(together) > 1:
            last = together[-1].plan
            changes = " + ".join(k.change for k in together)
            lines.append(f"  together: {changes}: peak {_size(last.peak, unit)} {uname} (fits)")
        elif not together:
            lines.append("  no combination of these fits: a larger GPU, or more of them")
    return "\n".join(lines) + "\n"


def plan_from_args(
    args: tuple[str, ...] | list[str],
    *,
    launch: str | None = None,
    gpus: int | None = None,
    gpu_gib: float = DEFAULT_GPU_GIB,
    gradient_checkpointing: bool = False,
) -> Plan:
    """``collabrl plan RECIPE [KEY=VALUE]...``: the recipe as training would load it."""
    from collabrl.cli_options import split_recipe_args
    from collabrl.config import load_recipe
    from collabrl.config.loader import RECIPES, read_source

    name, overrides = split_recipe_args(args)
    recipe = load_recipe(name, overrides)
    text = read_source(RECIPES, name).text
    if gpu_gib <= 0:
        raise CollabrlError(f"--gpu-memory must be positive, got {gpu_gib}")
    return plan_recipe(
        recipe,
        text,
        launch=launch,
        gpus=gpus,
        gpu_gib=gpu_gib,
        gradient_checkpointing=gradient_checkpointing,
    )
