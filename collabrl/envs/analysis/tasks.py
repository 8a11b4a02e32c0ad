"""The analysis game's tasks: tables, who knows what about them, the question and its answer.

A task is what one episode analyses (archaeology-style, after DiscoveryBench's archaeology
subset): one or more tables with column descriptions, domain-knowledge notes held by seats of
different expertise, a query, a gold hypothesis in DiscoveryBench's structure (context,
variables, relation, sentence) and a reference workflow in the analysis language
(:mod:`collabrl.envs.analysis.language`). Traps are the places where an analyst without the
right note takes another step (the second event for the first, the peak for the plateau, years
BCE sorted the wrong way, a smoothed column, a missing filter, a unit or bin convention) and so
reaches another relation: expertise changes what is right, not only how fast it is found.

Shipped tasks live in ``collabrl/data/analysis/tasks.json`` (``scripts/make_analysis_tasks.py``
writes them; ``--check`` compares); :func:`load_tasks`, :func:`get_task` and :func:`task_names`
read them, :func:`frames` turns a task's tables into DataFrames. Tasks in DiscoveryBench's own
folder format load with :mod:`collabrl.envs.analysis.discoverybench`.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Literal

import pandas as pd

from collabrl.envs.analysis.schema import (
    AnalysisTask,
    Cell,
    Column,
    Hypothesis,
    Note,
    Role,
    Step,
    Table,
    Trap,
    TrapKind,
)
from collabrl.errors import UnknownNameError

__all__ = [
    "AnalysisTask",
    "Cell",
    "Column",
    "Hypothesis",
    "Note",
    "Role",
    "Step",
    "Table",
    "Trap",
    "TrapKind",
    "frames",
    "get_task",
    "load_tasks",
    "task_names",
]


# ---------------------------------------------------------------------------- the shipped tasks


DISCOVERYBENCH_ENV = "COLLABRL_DISCOVERYBENCH"
"""A local DiscoveryBench folder (its own format: metadata JSON, CSVs, an answer-key CSV): when
set, its queries join the test split as tasks named ``<domain>-<id>-<qid>``, so a researcher who
has the real benchmark plays, evaluates and trains on it by name like the shipped tasks."""


@lru_cache(maxsize=1)
def load_tasks() -> tuple[AnalysisTask, ...]:
    """Every shipped task, in file order, then the tasks of the DiscoveryBench folder named by
    ``COLLABRL_DISCOVERYBENCH`` if set (read and validated once: games, players and eval all look
    tasks up by name, many times per run)."""
    text = files("collabrl.data.analysis").joinpath("tasks.json").read_text(encoding="utf-8")
    shipped = tuple(AnalysisTask.model_validate(record) for record in json.loads(text))
    root = os.environ.get(DISCOVERYBENCH_ENV)
    if not root:
        return shipped
    from collabrl.envs.analysis.discoverybench import load_discoverybench

    return (*shipped, *load_discoverybench(Path(root)))


def task_names(split: Literal["train", "test"] | None = None) -> tuple[str, ...]:
    """The names of the shipped tasks of ``split`` (all of them for None), in file order."""
    if split not in (None, "train", "test"):
        raise ValueError(f"unknown split {split!r}; use 'train', 'test' or None")
    return tuple(t.name for t in load_tasks() if split is None or t.split == split)


def get_task(name: str) -> AnalysisTask:
    """The shipped task called ``name``; an unknown name is one line with examples of real ones."""
    for task in load_tasks():
        if task.name == name:
            return task
    examples = ", ".join(task_names("test")[:2] + task_names("train")[:1])
    raise UnknownNameError(
        f"unknown analysis task {name!r}; names are arch-test-NN or arch-train-NN, e.g. {examples}"
    )


def frames(task: AnalysisTask) -> dict[str, pd.DataFrame]:
    """The task's tables as fresh DataFrames by name (pandas infers each column's type; an empty
    cell is missing). Fresh on every call, so that no episode can change another's data."""
    return {t.name: pd.DataFrame(t.rows, columns=[c.name for c in t.columns]) for t in task.tables}
