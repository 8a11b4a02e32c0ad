"""Load the trained policy, wrap it with LoRA if asked, and give the trainer its reference.

On CPU (transformers backend) the rollout engine and the trainer share one model object, so new
weights are used by the next rollout with no copy. With vLLM, weights are pushed after each update
(:mod:`collabrl.training.weight_sync`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from collabrl.agents.prompts import role_prompt_stamps
from collabrl.config import PolicySpec
from collabrl.errors import CollabrlError, NonFiniteError
from collabrl.records import RunClaim, check_claim, check_writable, take_folder, write_text

if TYPE_CHECKING:
    from accelerate import Accelerator
    from transformers import PreTrainedTokenizerBase

TINY_MODELS = {
    "tiny": ("tiny", "builtin"),
    "tiny-small": ("small", "builtin"),
    "tiny-game": ("tiny", "game"),
    "tiny-small-game": ("small", "game"),
}
"""Random models made offline under the run folder: name -> (size, tokenizer corpus) of
:func:`collabrl.models.tiny.make_tiny_model`. ``-game``: the tokenizer fitted to the built-in
games' text (several times fewer tokens per decision than the generic one)."""


@dataclass
class Policy:
    """The trainable model, its tokenizer, and how to get reference logprobs."""

    model: torch.nn.Module
    tokenizer: PreTrainedTokenizerBase
    lora: bool
    reference_model: torch.nn.Module | None  # a frozen copy for full fine-tuning

    def reference(self, logprobs_of: Callable[[torch.nn.Module], torch.Tensor]) -> torch.Tensor:
        """Evaluate ``logprobs_of`` under the reference policy (the initial weights)."""
        if self.lora:
            from peft import PeftModel

            assert isinstance(self.model, PeftModel), "load_policy wraps a LoRA policy with peft"
            with self.model.disable_adapter():
                return logprobs_of(self.model)
        assert self.reference_model is not None
        return logprobs_of(self.reference_model)


def resolve_model_path(spec: PolicySpec, run_dir: Path, seed: int) -> str:
    """An HF folder for ``spec.model``; ``tiny``/``tiny-small`` are created once per run."""
    if spec.model in TINY_MODELS:
        from collabrl.models.tiny import make_tiny_model

        folder = run_dir / f"{spec.model}-model"
        if not (folder / "config.json").is_file():
            size, corpus = TINY_MODELS[spec.model]
            make_tiny_model(folder, seed=seed, size=size, corpus=corpus)
        return str(folder)
    path = Path(spec.model).expanduser()
    if not (path / "config.json").is_file():
        raise CollabrlError(
            f"policy.model {spec.model!r} is not a model folder (no config.json); give a local "
            f"HF folder (see `collabrl models prepare`), or one of {', '.join(TINY_MODELS)} for a "
            "random test model"
        )
    return str(path)


def load_policy(spec: PolicySpec, path: str, need_reference: bool) -> Policy:
    """Tokenizer + fp32 model (optionally LoRA-wrapped) and its reference for the KL term."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    if spec.gradient_checkpointing:  # in train mode only: generation (eval mode) is unchanged
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if spec.lora is not None:
        from peft import LoraConfig, get_peft_model  # a core dependency, imported when used

        config = LoraConfig(
            r=spec.lora.rank,
            lora_alpha=spec.lora.alpha,
            lora_dropout=spec.lora.dropout,
            target_modules=spec.lora.target_modules,
            task_type="CAUSAL_LM",
        )
        adapted = get_peft_model(model, config)
        return Policy(adapted, tokenizer, lora=True, reference_model=None)
    reference = None
    if need_reference:  # loaded, not deep-copied: under ZeRO-3 the weights are already sharded
        reference = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
        reference.eval().requires_grad_(False)
    return Policy(model, tokenizer, lora=False, reference_model=reference)


def prepare_reference(reference: torch.nn.Module, accelerator) -> torch.nn.Module:
    """Put the frozen reference where the trainer computes. Under ZeRO-3 it stays sharded and
    becomes an inference-only DeepSpeed engine, whose hooks gather each layer as it runs."""
    plugin = accelerator.state.deepspeed_plugin
    if plugin is None or plugin.zero_stage != 3:
        return reference.to(accelerator.device)
    import deepspeed

    config = {
        k: v
        for k, v in plugin.deepspeed_config.items()
        if k not in ("optimizer", "scheduler", "gradient_accumulation_steps", "train_batch_size")
    }
    zero = {k: v for k, v in config["zero_optimization"].items() if v != "auto"}
    config["zero_optimization"] = {**zero, "offload_optimizer": {"device": "none"}}
    engine, *_ = deepspeed.initialize(model=reference, config=config)
    engine.eval()  # DeepSpeedEngine.eval returns None, unlike Module.eval
    return engine


@contextmanager
def gathered_parameters(
    model: torch.nn.Module, params: Iterable[torch.nn.Parameter] | None = None
) -> Iterator[None]:
    """Full weights of ``params`` (default: all of ``model``'s) on every rank for the block when
    ZeRO-3 shards them (a collective: every rank must enter); a no-op otherwise. Changes made
    inside are dropped on exit."""
    chosen = model.parameters() if params is None else params
    params = [p for p in chosen if hasattr(p, "ds_id")]
    if not params:
        yield
        return
    import deepspeed

    with deepspeed.zero.GatheredParameters(params, modifier_rank=None):
        yield


@contextmanager
def merged_weights(model: torch.nn.Module) -> Iterator[dict[str, torch.Tensor]]:
    """The state dict of a plain model, or of a LoRA model with its adapters merged into the base
    weights (names as in the base model); the merge is undone on exit, so training is untouched
    and no second copy of the model is held. Under ZeRO-3 every rank must enter (see
    :func:`gathered_parameters`)."""
    with gathered_parameters(model):
        if not hasattr(model, "merge_adapter"):
            yield model.state_dict()
            return
        from peft import PeftModel

        assert isinstance(model, PeftModel), "only peft's LoRA wrapper has adapters to merge"
        model.merge_adapter()
        try:
            yield {
                k.removeprefix("base_model.model.").replace(".base_layer", ""): v
                for k, v in model.state_dict().items()
                if "lora_" not in k
            }
        finally:
            model.unmerge_adapter()


def save_policy(model: torch.nn.Module, tokenizer, folder: Path, write: bool = True) -> None:
    """Write an HF folder every engine loads by path (LoRA adapters merged in, no adapter files).
    Every rank calls it (ZeRO-3 gathers the shards); only ranks with ``write`` save. Weights that
    are not finite are refused (every rank holds the same full weights, so all raise together)."""
    from transformers import PreTrainedModel

    base = model
    if hasattr(model, "get_base_model"):
        from peft import PeftModel

        assert isinstance(model, PeftModel), "only peft's LoRA wrapper has a base model"
        base = model.get_base_model()
    assert isinstance(base, PreTrainedModel), "a policy is a transformers model"
    with merged_weights(model) as state:
        bad = [k for k, v in state.items() if v.is_floating_point() and not torch.isfinite(v).all()]
        if bad:
            raise NonFiniteError(
                f"refusing to save a policy with non-finite weights ({len(bad)} tensors, "
                f"e.g. {bad[0]})"
            )
        if write:
            base.save_pretrained(folder, state_dict=state)
            tokenizer.save_pretrained(folder)


def ensure_finite_weights(accelerator, model: torch.nn.Module, iteration: int) -> None:
    """Stop the run if any rank holds a weight that is NaN or infinite after an update (an
    absurd learning rate does that with a finite gradient); under ZeRO-3 each rank checks its
    shard."""
    local = all(bool(torch.isfinite(getattr(p, "ds_tensor", p)).all()) for p in model.parameters())
    flags = accelerator.gather(torch.tensor([float(local)], device=accelerator.device))
    if not bool(flags.all()):
        raise NonFiniteError(
            f"iteration {iteration}: the update left non-finite weights (learning rate too "
            "high?); the run stops without saving them"
        )


def fill_deepspeed_config(accelerator, micro_batch: int, grad_clip: float) -> None:
    """Give DeepSpeed the recipe's micro-batch size and clipping wherever its config says "auto"
    (accelerate infers the size only from a DataLoader, and our trainers prepare none)."""
    plugin = accelerator.state.deepspeed_plugin
    if plugin is None:
        return
    config = plugin.deepspeed_config
    if config.get("train_micro_batch_size_per_gpu", "auto") == "auto":
        config["train_micro_batch_size_per_gpu"] = micro_batch
    if config.get("gradient_clipping", "auto") == "auto":
        config["gradient_clipping"] = grad_clip


def start_run(recipe, accumulation_steps: int, claim: RunClaim) -> tuple[Accelerator, Path, str]:
    """What every trainer does first: an Accelerator, seeded RNGs, the run directory claimed for
    this run (:func:`collabrl.records.claim_folder`) holding the resolved recipe and the role
    prompts' version stamps (``prompts.json``), and the policy's
    model folder (created once, by rank 0, for tiny models).

    Every rank checks the folder before any rank changes it, so all refuse it together."""
    from accelerate import Accelerator
    from accelerate.utils import set_seed
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    accelerator = Accelerator(gradient_accumulation_steps=max(1, accumulation_steps))
    set_seed(recipe.seed)
    run_dir = Path(recipe.output_dir)
    action = check_claim(check_writable(run_dir), claim)
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        take_folder(run_dir, claim, action)
        write_text(run_dir / "recipe.yaml", recipe.to_yaml())
        write_text(run_dir / "prompts.json", json.dumps(role_prompt_stamps(), indent=2))
    accelerator.wait_for_everyone()
    with accelerator.main_process_first():  # rank 0 writes the tiny model, the others read it
        model_path = resolve_model_path(recipe.policy, run_dir, recipe.seed)
    return accelerator, run_dir, model_path
