"""The run directory: where every stage reads its inputs and writes its outputs.

Why: stages talk only through files (JSONL records, JSON summaries, one .npy matrix), so any
stage can be rerun alone after a crash, a prompt change or a different engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.profiles.pipeline.config import PipelineConfig, PipelineError, load_config
from collabrl.records import read_jsonl, write_jsonl

CONFIG = "config.yaml"
TRAJECTORIES = "trajectories.jsonl"  # stage 1
WINDOWS = "windows.jsonl"  # stage 2
EMBEDDINGS = "embeddings.npy"  # stage 2, row i embeds line i of WINDOWS
CLUSTERS = "clusters.jsonl"  # stage 2
SUMMARIES = "summaries.jsonl"  # stage 3: every cluster, kept or dropped with a reason
CANDIDATES = "candidates.jsonl"  # stage 3: validated Profile records
FILTER_TRAJECTORIES = "filter_trajectories.jsonl"  # stage 4
JUDGEMENTS = "judgements.jsonl"  # stage 4: one per window and dimension
SCORES = "scores.jsonl"  # stage 4: per candidate
PROFILES = "profiles.jsonl"  # stage 4: the kept profiles (a loadable profile file)
FIDELITY_JSON = "fidelity.json"  # stage 5
FIDELITY_MD = "fidelity.md"  # stage 5

# which stage writes each input, for the error when it is missing
_WRITER = {
    TRAJECTORIES: "generate",
    WINDOWS: "cluster",
    EMBEDDINGS: "cluster",
    CLUSTERS: "cluster",
    CANDIDATES: "summarise",
    FILTER_TRAJECTORIES: "filter",
    SCORES: "filter",
}


class RunDir:
    """Paths and JSON/JSONL/NumPy reading and writing inside one run directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, name: str) -> Path:
        return self.root / name

    def need(self, name: str) -> Path:
        """The path of a stage input; missing -> one-line error naming the stage to run."""
        path = self.path(name)
        if not path.is_file():
            stage = _WRITER.get(name, "an earlier stage")
            raise PipelineError(f"{path} not found: run `collabrl profiles {stage}` first")
        return path

    def write_jsonl(self, name: str, records: Iterable[dict[str, Any]]) -> Path:
        return write_jsonl(self.path(name), records)  # atomic: a crashed stage leaves no half file

    def read_jsonl(self, name: str) -> list[dict[str, Any]]:
        return read_jsonl(self.need(name), PipelineError)

    def write_json(self, name: str, data: Any) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.path(name)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return path

    def write_text(self, name: str, text: str) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.path(name)
        path.write_text(text, encoding="utf-8")
        return path

    def write_matrix(self, name: str, matrix: np.ndarray) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.path(name)
        np.save(path, matrix)
        return path

    def read_matrix(self, name: str) -> np.ndarray:
        return np.load(self.need(name))

    def config(
        self, path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()
    ) -> PipelineConfig:
        """The run's config: a given file (saved into the run) or the saved one, plus overrides.

        With neither a file nor a saved config, the defaults are used and saved.
        """
        saved = self.path(CONFIG)
        source = path if path is not None else (saved if saved.is_file() else None)
        config = load_config(source, overrides)
        self.write_text(CONFIG, config.to_yaml())
        return config
