"""Methods mixed into every vLLM worker (``worker_extension_cls``) so the trainer can push weights.

Why: in current vLLM the model lives in worker processes; a named worker method called through
``LLM.collective_rpc`` needs no pickled callables, and a safetensors blob (bytes) survives vLLM's
RPC serialiser, which does not rebuild tensors nested in untyped arguments.
Imported by vLLM inside its workers, never by collabrl itself.
"""

from __future__ import annotations

from safetensors.torch import load


class WeightSyncExtension:
    """Reloads HF-named (checkpoint-format) tensors in place with the worker's own
    ``reload_weights``, which redoes the post-load processing (fused/packed layouts)."""

    def collabrl_load_weights(self, blob: bytes) -> None:
        self.reload_weights(weights_iterator=iter(load(blob).items()), is_checkpoint_format=True)  # type: ignore[attr-defined]
