"""Policy engine on an in-process ``vllm.LLM``: fast rollouts on GPU (or vLLM's CPU build).

Why: rollouts dominate RL wall time; vLLM batches them well. The trainer pushes new weights after
each update (full weights in buckets through the workers' ``reload_weights``, or a LoRA adapter
folder through vLLM's LoRA loading), and sleep/wake frees GPU memory while the trainer runs on the
same GPU (:mod:`collabrl.training.weight_sync` drives both).

Logprobs: the engine runs with ``logprobs_mode="processed_logprobs"``, i.e. after temperature
(and top-p) processing. With ``top_p == 1`` this is ``log_softmax(logits / T)`` over the full
vocabulary, exactly what the transformers engine returns; with ``top_p < 1`` vLLM renormalises
over the nucleus. For greedy decoding (T = 0) the values are at T = 1.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import vllm
from safetensors.torch import save
from vllm.lora.request import LoRARequest

from collabrl.engines.factory import build_options
from collabrl.engines.options import VLLMOptions
from collabrl.engines.stops import truncate_at_stop
from collabrl.engines.types import Completion, Conversation, GenerationResult, SamplingParams

if TYPE_CHECKING:
    import torch

    from collabrl.engines.factory import EngineConfig


class VLLMEngine:
    """Batched chat generation on vLLM with sampled-token logprobs and prompt token ids.
    ``chat_template_kwargs``: extra variables of the chat template (``enable_thinking``, ...)."""

    def __init__(
        self,
        model: str,
        options: VLLMOptions | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.options = o = options or VLLMOptions()
        self.chat_template_kwargs = chat_template_kwargs or None
        kwargs: dict[str, Any] = {
            "dtype": o.dtype,
            "gpu_memory_utilization": o.gpu_memory_utilization,
            "enforce_eager": o.enforce_eager,
            "enable_sleep_mode": o.enable_sleep_mode,
            "tensor_parallel_size": o.tensor_parallel_size,
            "seed": o.seed,
            "logprobs_mode": "processed_logprobs",
            "worker_extension_cls": "collabrl.engines.vllm_worker.WeightSyncExtension",
        }
        if o.max_model_len is not None:
            kwargs["max_model_len"] = o.max_model_len
        if o.enable_lora:
            kwargs.update(enable_lora=True, max_lora_rank=o.max_lora_rank)
        self.llm = vllm.LLM(model=model, **{**kwargs, **o.llm_kwargs})
        self._lora: LoRARequest | None = None
        self._lora_versions = 0

    @classmethod
    def from_config(cls, config: EngineConfig) -> VLLMEngine:
        return cls(config.model, build_options(VLLMOptions, config.options, "vllm"))

    def _sampling(self, params: SamplingParams, index: int) -> vllm.SamplingParams:
        return vllm.SamplingParams(
            n=params.n,
            temperature=params.temperature,
            top_p=params.top_p,
            max_tokens=params.max_new_tokens,
            stop=list(params.stop),
            include_stop_str_in_output=True,
            seed=None if params.seed is None else params.seed + index,
            logprobs=0,  # only the sampled token's logprob
        )

    def generate(
        self, conversations: Sequence[Conversation], params: SamplingParams
    ) -> list[GenerationResult]:
        """One result per conversation. vLLM rejects a bad request by failing the whole call, so
        on failure the requests are retried one by one to pin the error on the right ones."""
        sampling = [self._sampling(params, i) for i in range(len(conversations))]
        t0 = time.perf_counter()
        try:
            outputs = self._chat(list(conversations), sampling)
        except Exception:
            return [
                self._generate_one(c, s, params)
                for c, s in zip(conversations, sampling, strict=True)
            ]
        latency = time.perf_counter() - t0
        return [self._result(out, params, latency) for out in outputs]

    def _chat(
        self, conversations: list[Conversation], sampling: list[vllm.SamplingParams]
    ) -> list[Any]:
        messages = [[dict(m) for m in conv] for conv in conversations]
        return self.llm.chat(
            messages,
            sampling_params=sampling,
            use_tqdm=False,
            lora_request=self._lora,
            chat_template_kwargs=self.chat_template_kwargs,
        )

    def _generate_one(
        self, conv: Conversation, sampling: vllm.SamplingParams, params: SamplingParams
    ) -> GenerationResult:
        t0 = time.perf_counter()
        try:
            (out,) = self._chat([conv], [sampling])
        except Exception as e:
            return GenerationResult(error=f"generation failed: {type(e).__name__}: {e}")
        return self._result(out, params, time.perf_counter() - t0)

    @staticmethod
    def _result(out: Any, params: SamplingParams, latency: float) -> GenerationResult:
        completions = []
        for c in out.outputs:
            ids = list(c.token_ids)
            logprobs = [step[t].logprob for t, step in zip(ids, c.logprobs or [], strict=True)]
            text, _ = truncate_at_stop(c.text, params.stop)
            completions.append(
                Completion(text, "length" if c.finish_reason == "length" else "stop", ids, logprobs)
            )
        prompt_ids = list(out.prompt_token_ids or [])
        return GenerationResult(
            completions=completions,
            prompt_token_ids=prompt_ids,
            prompt_tokens=len(prompt_ids),
            completion_tokens=sum(len(c.token_ids or []) for c in completions),
            latency_s=latency,
        )

    def load_weights(self, buckets: Iterable[Mapping[str, torch.Tensor]]) -> None:
        """Push full weights (HF parameter names), one RPC per bucket, e.g.
        ``[model.state_dict()]`` or :func:`collabrl.training.weight_sync.weight_buckets`, whose
        buckets are gathered one at a time under ZeRO-3 as this loop asks for them. A bucket must
        hold whole layers: vLLM reprocesses each layer it receives, and a fused layer (qkv, gate
        and up) given only some of its parts would lose the others. Cached prefixes computed with
        the old weights are dropped at the end."""
        for bucket in buckets:
            # clone: tied weights share storage, which safetensors refuses to serialise
            blob = save({name: t.detach().cpu().contiguous().clone() for name, t in bucket.items()})
            self.llm.collective_rpc("collabrl_load_weights", args=(blob,))
        self.llm.reset_prefix_cache()

    def load_lora(self, adapter_dir: str) -> None:
        """Generate with the LoRA adapter saved in ``adapter_dir`` (a fresh id per push, so vLLM
        reads the folder again even when its path is the same)."""
        if not self.options.enable_lora:
            raise ValueError("start the vllm engine with enable_lora=True to use adapters")
        self._lora_versions += 1
        self._lora = LoRARequest(f"policy-{self._lora_versions}", self._lora_versions, adapter_dir)

    def sleep(self, level: int = 1) -> None:
        """Free accelerator memory for training (1: offload weights, 2: drop them too)."""
        self.llm.sleep(level=level)

    def wake_up(self, tags: Sequence[str] | None = None) -> None:
        """Reallocate what sleep freed: all of it, or only ``tags`` ("weights", "kv_cache"), so
        new weights can be loaded before the KV cache takes its memory back."""
        self.llm.wake_up(tags=list(tags) if tags else None)

    def close(self) -> None:
        del self.llm
