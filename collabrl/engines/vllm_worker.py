"""Methods mixed into every vLLM worker (``worker_extension_cls``) so the trainer can push weights.

Why: in current vLLM the model lives in worker processes; a named worker method called through
``LLM.collective_rpc`` needs no pickled callables, and a safetensors blob (bytes) survives vLLM's
RPC serialiser, which does not rebuild tensors nested in untyped arguments.
Imported by vLLM inside its workers, never by collabrl itself.
"""

from __future__ import annotations

import logging

from safetensors.torch import load

RELOAD_LOGGER = "vllm.model_executor.model_loader.reload"
"""Where vLLM warns, once per layer, about layers a reload did not receive: every bucket of a
streamed push leaves out most layers on purpose."""


class WeightSyncExtension:
    """Reloads HF-named (checkpoint-format) tensors in place with the worker's own
    ``reload_weights``, which redoes the post-load processing (fused/packed layouts) of each layer
    it receives and puts the others back as they were."""

    def collabrl_load_weights(self, blob: bytes) -> None:
        logger = logging.getLogger(RELOAD_LOGGER)
        level = logger.level
        logger.setLevel(logging.ERROR)
        try:
            weights = iter(load(blob).items())
            self.reload_weights(weights_iterator=weights, is_checkpoint_format=True)  # type: ignore[attr-defined]
        finally:
            logger.setLevel(level)
