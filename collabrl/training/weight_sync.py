"""Keep the rollout engine on the trainer's weights, and out of the trainer's way on the GPUs.

The transformers engine holds the trainer's own model object: there is nothing to do. A vLLM
engine colocated with the trainer (TRL's colocate mode, verl's hybrid engine) gets, every
iteration:

- before the update, ``sleep(level)``: its weights (level 1: offloaded to CPU; level 2: dropped)
  and its KV cache give their GPU memory back to the trainer;
- after the update, its weights woken first, the new ones pushed, and only then its KV cache
  woken, so new weights and a full KV cache never hold the GPU at once;
- LoRA runs push the adapter alone through vLLM's LoRA loading (megabytes instead of the model);
  full-weight runs stream whole decoder layers in buckets of ``bucket_mb``. Under ZeRO-3 each
  bucket is gathered alone, so a push holds one bucket of full weights, not a whole copy of the
  model (about 15 GB for a 7B model in bf16), on every GPU.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import torch

from collabrl.config.training import WeightSyncSpec
from collabrl.training.policy import gathered_parameters

ADAPTER_DIR = "rollout_adapter"
"""The run folder's copy of the latest LoRA adapter, which the vLLM engine reads."""


def layer_key(name: str) -> str:
    """The unit a bucket never splits: the name up to its first number
    (``model.layers.3.self_attn.q_proj.weight`` -> ``model.layers.3``), else the module holding
    it (``model.embed_tokens``, ``lm_head``)."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if part.isdigit():
            return ".".join(parts[: i + 1])
    return ".".join(parts[:-1])


def _nbytes(param: torch.nn.Parameter) -> int:
    """Full size of a parameter, also while ZeRO-3 holds only this rank's shard of it."""
    return getattr(param, "ds_numel", param.numel()) * param.element_size()


def weight_buckets(model: torch.nn.Module, bucket_bytes: int) -> Iterator[dict[str, torch.Tensor]]:
    """The model's parameters (HF names, as the state dict has them), whole layers at a time, in
    buckets of at most ``bucket_bytes`` (a layer larger than that is a bucket of its own). Each
    bucket is gathered under ZeRO-3 while it is consumed and released after: every rank must run
    the generator to its end (collectives)."""
    layers: dict[str, list[tuple[str, torch.nn.Parameter]]] = {}
    # tied weights under each name (lm_head as well as the embedding): vLLM reloads each name's
    # tensor in place, and an lm_head left out would keep its old values
    for name, param in model.named_parameters(remove_duplicate=False):
        layers.setdefault(layer_key(name), []).append((name, param))
    bucket: list[tuple[str, torch.nn.Parameter]] = []
    size = 0
    for layer in layers.values():
        layer_size = sum(_nbytes(p) for _, p in layer)
        if bucket and size + layer_size > bucket_bytes:
            yield from _gathered(model, bucket)
            bucket, size = [], 0
        bucket += layer
        size += layer_size
    if bucket:
        yield from _gathered(model, bucket)


def _gathered(
    model: torch.nn.Module, bucket: list[tuple[str, torch.nn.Parameter]]
) -> Iterator[dict[str, torch.Tensor]]:
    with gathered_parameters(model, [p for _, p in bucket]):
        yield {name: param.detach() for name, param in bucket}


class WeightSync:
    """Sleep and wake of a colocated vLLM engine around each update, and the weight push; a
    no-op for the transformers engine. Each step returns its seconds, for the iteration's
    timings."""

    def __init__(
        self, engine, spec: WeightSyncSpec, backend: str, lora: bool, run_dir: Path, accelerator
    ) -> None:
        self.engine, self.spec, self.accelerator = engine, spec, accelerator
        self.active = backend == "vllm"
        self.lora = lora
        self.adapter_dir = run_dir / ADAPTER_DIR
        self.asleep = False

    def release(self) -> dict[str, float]:
        """Before the update: put the engine to sleep (when the recipe asks)."""
        if not (self.active and self.spec.sleep_level):
            return {}
        t0 = time.perf_counter()
        self.engine.sleep(self.spec.sleep_level)
        self.asleep = True
        return {"sleep": time.perf_counter() - t0}

    def refresh(self, model: torch.nn.Module) -> dict[str, float]:
        """After the update (or a resume): wake the weights, push the new ones, wake the KV
        cache. ``model`` is the unwrapped trainer model; every rank calls this (ZeRO-3
        gathers)."""
        if not self.active:
            return {"weight_push": 0.0}
        times = {}
        t0 = time.perf_counter()
        if self.asleep:
            self.engine.wake_up(["weights"])
        t1 = time.perf_counter()
        if self.lora:
            self._push_adapter(model)
        else:
            self.engine.load_weights(weight_buckets(model, self.spec.bucket_mb << 20))
        t2 = time.perf_counter()
        if self.asleep:
            self.engine.wake_up(["kv_cache"])
            self.asleep = False
            times["wake"] = (t1 - t0) + (time.perf_counter() - t2)
        times["weight_push"] = t2 - t1
        return times

    def _push_adapter(self, model: torch.nn.Module) -> None:
        """Rank 0 writes the adapter (gathered under ZeRO-3) into a fresh folder that replaces the
        last one whole, so no engine reads a half-written adapter; every engine then loads it."""
        from peft import PeftModel

        assert isinstance(model, PeftModel), "load_policy wraps a LoRA policy with peft"
        accelerator = self.accelerator
        adapter = [p for name, p in model.named_parameters() if "lora_" in name]
        staging = self.adapter_dir.with_name(self.adapter_dir.name + ".tmp")
        with gathered_parameters(model, adapter):
            if accelerator.is_main_process:
                shutil.rmtree(staging, ignore_errors=True)
                model.save_pretrained(staging)  # type: ignore[arg-type]  # peft says str; any path works
                shutil.rmtree(self.adapter_dir, ignore_errors=True)
                os.replace(staging, self.adapter_dir)
        accelerator.wait_for_everyone()
        self.engine.load_lora(str(self.adapter_dir))
