"""Peak bytes of live tensors on the CPU, the quantity ``torch.cuda.max_memory_allocated`` gives
on a GPU, so ``collabrl plan``'s arithmetic can be checked on CPU-only machines.

How: a dispatch mode sees every operator's outputs (forward and backward: the autograd engine runs
CPU backward on the calling thread, under the same mode). Each new storage is added to the live
total when it first appears and taken off once its weak reference dies; the peak is the largest
total seen between two operators. Storages that exist before (the weights, the optimizer state)
are ignored, also when an in-place operator returns them.

Why not the process's resident size: glibc keeps freed small blocks and maps large ones lazily,
so the high-water mark moves by 5-10% with allocation order and thresholds; the tensor count is
exact and the same on every run. (The resident high-water mark, reset through
/proc/self/clear_refs with MALLOC_MMAP_THRESHOLD_=65536, was 4-8% below this count on the tiny
models.) Kernel-internal scratch space that is no operator's output is not seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class TensorPeak(TorchDispatchMode):
    """``with TensorPeak(ignore=model.parameters()) as p: ...``; then ``p.peak`` (bytes)."""

    def __init__(self, ignore: Iterable[torch.Tensor] = ()) -> None:
        super().__init__()
        self._ignored = {t.untyped_storage()._cdata for t in ignore}
        self._live: dict[int, tuple[StorageWeakRef, int]] = {}
        self.bytes = 0
        self.peak = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None) -> Any:
        out = func(*args, **(kwargs or {}))
        for key in [k for k, (ref, _) in self._live.items() if ref.expired()]:
            self.bytes -= self._live.pop(key)[1]
        for t in tree_leaves(out):
            if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
                continue
            storage = t.untyped_storage()
            key = storage._cdata
            if key in self._ignored or key in self._live:
                continue
            self._live[key] = (StorageWeakRef(storage), storage.nbytes())
            self.bytes += storage.nbytes()
        self.peak = max(self.peak, self.bytes)
        return out


def optimizer_tensors(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    """The state tensors of an optimizer (AdamW: exp_avg, exp_avg_sq, step)."""
    return [v for state in optimizer.state.values() for v in state.values() if torch.is_tensor(v)]
