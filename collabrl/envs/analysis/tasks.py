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
import string
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import Field, model_validator

from collabrl.errors import UnknownNameError
from collabrl.sections import Strict

Cell = float | int | str | None
Role = Literal["chronology", "materials", "statistics"]  # the expertise a note belongs to
TrapKind = Literal[
    "first_vs_second",
    "peak_vs_plateau",
    "bce_order",
    "smoothed_column",
    "required_filter",
    "unit_or_bin",
]


class Column(Strict):
    name: str
    """The column's name in the table (a valid identifier)."""
    description: str
    """What the column holds, as the task's data card says it."""

    @model_validator(mode="after")
    def _identifier(self) -> Column:
        """Steps name columns bare (``filter(t, cu > 2)``): a name must read as one word."""
        _check_identifier("column", self.name)
        return self


class Table(Strict):
    name: str
    """The table's name (a valid identifier; steps refer to it)."""
    description: str
    """What one row is."""
    columns: list[Column]
    """Every column, in order."""
    rows: list[list[Cell]]
    """The values, one list per row, in column order."""

    @model_validator(mode="after")
    def _shape(self) -> Table:
        """A row of another length or two equal column names would shift or merge values."""
        _check_identifier("table", self.name)
        _check_distinct(f"column names of table {self.name!r}", [c.name for c in self.columns])
        for index, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(
                    f"table {self.name!r} row {index} has {len(row)} values for "
                    f"{len(self.columns)} columns"
                )
        return self


class Note(Strict):
    id: str
    """Unique within the task (``n1``, ``n2``, ...)."""
    role: Role
    """The expertise that knows it: the seat holding that role sees it in its observation."""
    text: str
    """The knowledge, as a collaborator would say it."""


class Hypothesis(Strict):
    context: str
    """Where the relation holds (the population, site, period range, filter)."""
    variables: list[str]
    """The variables the relation is about (column names or their meaning)."""
    relation: str
    """The relation itself, short and checkable ("peaks in period 5")."""
    sentence: str
    """The whole hypothesis as one sentence."""


class Step(Strict):
    step: str
    """One analysis-language step, e.g. ``r1 = filter(samples, site == "A")``."""
    why: str
    """Why an acceptable analysis takes it."""
    alternatives: list[str] = Field(default_factory=list)
    """Other steps that are equally acceptable here."""


class Trap(Strict):
    kind: TrapKind
    """Which mistake."""
    note: str
    """The id of the note that avoids it."""
    at: int
    """Index of the workflow step an analyst without the note replaces..."""
    naive_step: str
    """...by this step (the mistake)."""


class AnalysisTask(Strict):
    name: str
    """Unique task name (``arch-03``)."""
    split: Literal["train", "test"]
    """Train or test."""
    domain: str = "archaeology"
    """The field the data comes from."""
    query: str
    """The question the team must answer with a hypothesis."""
    tables: list[Table]
    """The data."""
    notes: list[Note]
    """Domain knowledge, each note held by one role."""
    gold: Hypothesis
    """The answer."""
    workflow: list[Step]
    """A reference analysis whose last step's value is the answer's value."""
    relation_template: str
    """``gold.relation`` with ``{value}`` for that value: how an analyst words its result."""
    traps: list[Trap] = Field(default_factory=list)
    """Where an analyst without a note goes wrong."""

    @model_validator(mode="after")
    def _references(self) -> AnalysisTask:
        """Every name a trap, a step or the template points at exists: a dangling one would
        surface only mid-episode, as a player that cannot take its step."""
        _check_distinct("table names", [t.name for t in self.tables])
        _check_distinct("note ids", [n.id for n in self.notes])
        if not self.workflow:
            raise ValueError("the workflow needs at least one step")
        notes = {n.id for n in self.notes}
        for trap in self.traps:
            if trap.note not in notes:
                raise ValueError(f"trap {trap.kind} names note {trap.note!r}, which is not a note")
            if not 0 <= trap.at < len(self.workflow):
                raise ValueError(f"trap {trap.kind} replaces step {trap.at}, which is not a step")
        fields = {f for _, f, _, _ in string.Formatter().parse(self.relation_template) if f}
        if not fields <= {"value"}:
            raise ValueError(f"relation_template may hold only {{value}}, not {sorted(fields)}")
        return self


def _check_identifier(kind: str, name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"{kind} name {name!r} is not an identifier")


def _check_distinct(what: str, names: list[str]) -> None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{what} must be distinct; repeated: {repeated}")


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
