"""The run directory: where every stage reads its inputs and writes its outputs.

Why: stages talk only through files (JSONL records, JSON summaries, one .npy matrix), so any
stage can be rerun alone after a crash, a prompt change or a different engine. Each stage's files
replace the previous ones as one set (:meth:`RunDir.staged`, :func:`collabrl.records.output_set`),
and a stage refuses an input whose set a killed stage left half replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.pipeline.config import PipelineConfig, PipelineError, load_config
from collabrl.records import (
    atomic_open,
    check_complete,
    output_set,
    read_jsonl,
    write_jsonl,
    write_text,
)

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

# which stage writes each output: its output set, and the stage to run when one is missing
_WRITER = {
    TRAJECTORIES: "generate",
    WINDOWS: "cluster",
    EMBEDDINGS: "cluster",
    CLUSTERS: "cluster",
    SUMMARIES: "summarise",
    CANDIDATES: "summarise",
    FILTER_TRAJECTORIES: "filter",
    JUDGEMENTS: "filter",
    SCORES: "filter",
    PROFILES: "filter",
    FIDELITY_JSON: "report",
    FIDELITY_MD: "report",
}


class RunDir:
    """Paths and JSON/JSONL/NumPy reading and writing inside one run directory.

    Reads come from ``root``; writes (each atomic) go to ``outputs``, which is ``root`` itself
    except in the view :meth:`staged` gives a running stage. Write methods return the path the
    file has in ``root``.
    """

    def __init__(self, root: str | Path, outputs: Path | None = None) -> None:
        self.root = Path(root)
        self._outputs = outputs or self.root

    def path(self, name: str) -> Path:
        return self.root / name

    @contextmanager
    def staged(self, stage: str) -> Iterator[RunDir]:
        """A view of the run whose writes are staged and, if the block ends without error,
        replace ``stage``'s previous outputs together (:func:`collabrl.records.output_set`).

        Why: a stage writes several files (windows, embeddings and clusters must match row for
        row); a killed stage must leave the old set whole, or a mix that the next stage refuses.
        """
        with output_set(self.root, stage) as staging:
            yield RunDir(self.root, staging)

    def need(self, name: str) -> Path:
        """The path of a stage output another stage reads; missing, or half replaced by a killed
        stage -> one-line error naming the stage to run."""
        path = self.path(name)
        stage = _WRITER[name]
        if not path.is_file():
            raise PipelineError(f"{path} not found: run `collabrl profiles {stage}` first")
        return check_complete(path, stage, f"rerun `collabrl profiles {stage}`", PipelineError)

    def write_jsonl(self, name: str, records: Iterable[dict[str, Any]]) -> Path:
        write_jsonl(self._outputs / name, records)
        return self.path(name)

    def read_jsonl(self, name: str) -> list[dict[str, Any]]:
        return read_jsonl(self.need(name), PipelineError)

    def write_json(self, name: str, data: Any) -> Path:
        return self.write_text(name, json.dumps(data, indent=2) + "\n")

    def write_text(self, name: str, text: str) -> Path:
        write_text(self._outputs / name, text)
        return self.path(name)

    def write_matrix(self, name: str, matrix: np.ndarray) -> Path:
        with atomic_open(self._outputs / name, "wb") as f:
            np.save(f, matrix)
        return self.path(name)

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
