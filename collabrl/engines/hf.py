"""Policy engine on Hugging Face ``transformers``: batched ``generate`` on CPU or GPU.

Why: the CPU path of training (and a GPU fallback without vLLM); the engine holds the very model
object the trainer updates, so new weights are used at the next call with no copy.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GenerationConfig,
    LogitsProcessorList,
    PreTrainedTokenizerBase,
    StoppingCriteriaList,
    StopStringCriteria,
    TemperatureLogitsWarper,
    TopPLogitsWarper,
)

from collabrl.engines.factory import build_options
from collabrl.engines.hf_capture import SampledLogprobRecorder, StopStepRecorder
from collabrl.engines.options import TransformersOptions
from collabrl.engines.stops import truncate_at_stop
from collabrl.engines.types import (
    Completion,
    Conversation,
    FinishReason,
    GenerationResult,
    SamplingParams,
)
from collabrl.errors import CollabrlError

if TYPE_CHECKING:
    from transformers import PreTrainedConfig
    from transformers.generation.utils import GenerateOutput

    from collabrl.engines.factory import EngineConfig

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def _resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


@contextmanager
def seeded(seed: int | None, device: torch.device) -> Iterator[None]:
    """Seed a forked RNG so a seeded call is reproducible and leaves the caller's RNG alone."""
    if seed is None:
        yield
        return
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        yield


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Left padding for batched decoding; a pad token (eos if none: rows are masked by the
    attention mask and by recorded lengths, never by comparing against the pad id)."""
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


class CausalLM(Protocol):
    """What the engine uses of its model: a transformers causal LM (``AutoModelForCausalLM``),
    or peft's LoRA wrapper of one (the trainer's model, shared with the rollout)."""

    config: PreTrainedConfig
    generation_config: GenerationConfig

    @property
    def device(self) -> torch.device: ...

    def generate(self, **kwargs: Any) -> GenerateOutput | torch.LongTensor: ...


class TransformersEngine:
    """Batched chat generation with sampled-token logprobs; see :class:`Completion` for their
    exact meaning. ``engine.model`` is shared, not copied: update it in place to push weights.
    ``chat_template_kwargs``: extra variables of the chat template (``enable_thinking``, ...)."""

    def __init__(
        self,
        model: CausalLM,
        tokenizer: PreTrainedTokenizerBase,
        options: TransformersOptions | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.options = options or TransformersOptions()
        self.chat_template_kwargs = chat_template_kwargs or {}
        self.model = model
        self.tokenizer = prepare_tokenizer(tokenizer)
        eos = model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        self.eos_ids: list[int] = [eos] if isinstance(eos, int) else list(eos)
        self.max_context = self.options.max_context or getattr(
            model.config, "max_position_embeddings", None
        )
        self._stop_criteria: dict[tuple[str, ...], StopStringCriteria] = {}

    @classmethod
    def from_pretrained(
        cls, path: str, options: TransformersOptions | None = None
    ) -> TransformersEngine:
        """Load an HF folder (e.g. from :func:`collabrl.models.tiny.make_tiny_model`)."""
        options = options or TransformersOptions()
        if not (Path(path).expanduser() / "config.json").is_file():
            raise CollabrlError(
                f"model {path!r} is not a local model folder (no config.json); models are never "
                "downloaded at run time: see `collabrl models prepare`"
            )
        if options.dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {sorted(_DTYPES)}, got {options.dtype!r}")
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=_DTYPES[options.dtype])
        model.to(_resolve_device(options.device)).eval()  # type: ignore[arg-type]  # transformers: wraps() drops self
        return cls(model, tokenizer, options)

    @classmethod
    def from_config(cls, config: EngineConfig) -> TransformersEngine:
        return cls.from_pretrained(
            config.model, build_options(TransformersOptions, config.options, "transformers")
        )

    def encode(self, conversation: Conversation) -> list[int]:
        """Prompt token ids: chat template with the assistant turn opened."""
        text = self.tokenizer.apply_chat_template(
            list(conversation),
            add_generation_prompt=True,
            tokenize=False,
            **self.chat_template_kwargs,
        )
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        """One result per conversation, in order; bad requests get ``error`` set."""
        results = [GenerationResult() for _ in conversations]
        ready: list[tuple[GenerationResult, list[int]]] = []
        for i, conv in enumerate(conversations):
            try:
                ids = self.encode(conv)
            except Exception as e:  # a broken conversation must not sink the batch
                results[i].error = f"chat template failed: {type(e).__name__}: {e}"
                continue
            results[i].prompt_token_ids, results[i].prompt_tokens = ids, len(ids)
            if self.max_context and len(ids) + params.max_new_tokens > self.max_context:
                results[i].error = (
                    f"prompt too long: {len(ids)} tokens + max_new_tokens "
                    f"{params.max_new_tokens} > context {self.max_context}"
                )
            else:
                ready.append((results[i], ids))
        size = self.options.batch_size or (1 if self.model.device.type == "cpu" else 64)
        with seeded(params.seed, self.model.device):
            for start in range(0, len(ready), size):
                self._run_batch(ready[start : start + size], params)
        return results

    def _run_batch(
        self, batch: list[tuple[GenerationResult, list[int]]], params: SamplingParams
    ) -> None:
        """Generate for ``batch`` (each request with its prompt ids) and fill in its results."""
        t0 = time.perf_counter()
        try:
            completions = self._generate_ids([ids for _, ids in batch], params)
        except Exception as e:  # e.g. out of memory: report on each request of this batch
            for r, _ in batch:
                r.error = f"generation failed: {type(e).__name__}: {e}"
            return
        latency = time.perf_counter() - t0
        for k, (r, _) in enumerate(batch):
            r.completions = completions[k * params.n : (k + 1) * params.n]
            r.completion_tokens = sum(len(c.token_ids or []) for c in r.completions)
            r.latency_s = latency

    def _stop_criterion(self, stop: tuple[str, ...]) -> StopStringCriteria:
        # building one scans the vocabulary: keep it per stop tuple
        if stop not in self._stop_criteria:
            self._stop_criteria[stop] = StopStringCriteria(self.tokenizer, list(stop))
        return self._stop_criteria[stop]

    @torch.inference_mode()
    def _generate_ids(self, prompts: list[list[int]], params: SamplingParams) -> list[Completion]:
        device = self.model.device
        enc = self.tokenizer.pad({"input_ids": prompts}, padding=True, return_tensors="pt")
        input_ids, attention = enc["input_ids"].to(device), enc["attention_mask"].to(device)
        prompt_len = input_ids.shape[1]

        recorder = SampledLogprobRecorder(params.temperature)
        processors = LogitsProcessorList([recorder])
        if not params.greedy and params.temperature != 1.0:
            processors.append(TemperatureLogitsWarper(params.temperature))
        if not params.greedy and params.top_p < 1.0:
            processors.append(TopPLogitsWarper(params.top_p))
        stop_rec = None
        criteria = StoppingCriteriaList()
        if params.stop:
            stop_rec = StopStepRecorder(self._stop_criterion(params.stop), prompt_len)
            criteria.append(stop_rec)

        config = GenerationConfig(
            max_new_tokens=params.max_new_tokens,
            do_sample=not params.greedy,
            # sampling warpers are ours (after the recorder); neutralise any a checkpoint's
            # generation_config would add, so samples follow the distribution we record
            temperature=1.0,
            top_p=1.0,
            top_k=None if params.greedy else 0,
            repetition_penalty=1.0,
            no_repeat_ngram_size=0,
            typical_p=1.0,
            min_length=0,
            num_return_sequences=params.n,
            eos_token_id=self.eos_ids,
            pad_token_id=self.tokenizer.pad_token_id,
            return_dict_in_generate=True,
        )
        out = self.model.generate(
            input_ids=input_ids,
            attention_mask=attention,
            generation_config=config,
            logits_processor=processors,
            stopping_criteria=criteria,
        )
        assert not isinstance(out, torch.Tensor), "return_dict_in_generate gives an output object"
        generated = out.sequences[:, prompt_len:]
        logprobs = recorder.finish(out.sequences)
        lengths, reasons = self._row_lengths(generated, stop_rec)
        rows = generated.tolist()
        lp_rows = logprobs.tolist()
        completions = []
        for row, lp, length, reason in zip(rows, lp_rows, lengths, reasons, strict=True):
            text: str = self.tokenizer.decode(row[:length], skip_special_tokens=True)  # type: ignore[assignment]  # one row decodes to a str
            text, _ = truncate_at_stop(text, params.stop)
            completions.append(Completion(text, reason, row[:length], lp[:length]))
        return completions

    def _row_lengths(
        self, generated: torch.Tensor, stop_rec: StopStepRecorder | None
    ) -> tuple[list[int], list[FinishReason]]:
        """Real length of each row: up to and including its first eos token or the token that
        completed a stop string; everything after is padding (which may be the eos id)."""
        steps = generated.shape[1]
        is_eos = torch.isin(generated, torch.tensor(self.eos_ids, device=generated.device))
        first_eos = torch.where(is_eos.any(1), is_eos.int().argmax(1) + 1, steps + 1)
        stopped = (
            stop_rec.stopped_at
            if stop_rec is not None and stop_rec.stopped_at is not None
            else None
        )
        if stopped is not None:
            first_eos = torch.minimum(first_eos, torch.where(stopped > 0, stopped, steps + 1))
        lengths = first_eos.clamp(max=steps).tolist()
        reasons: list[FinishReason] = [
            "stop" if e <= steps else "length" for e in first_eos.tolist()
        ]
        return lengths, reasons

    def close(self) -> None:
        """Nothing to release: the model belongs to whoever passed it in or to this object."""
