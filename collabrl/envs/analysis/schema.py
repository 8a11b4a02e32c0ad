"""The analysis game's task schema (the models of :mod:`collabrl.envs.analysis.tasks`, which
loads the shipped tasks; kept apart so that the DiscoveryBench loader builds tasks without
importing the loader of the shipped ones)."""

from __future__ import annotations

import string
from typing import Literal

from pydantic import Field, model_validator

from collabrl.sections import Strict

Cell = float | int | str | None
Role = Literal["chronology", "materials", "statistics"]  # the expertise a note belongs to
Profile = Literal["D", "R"]  # a collaborator profile of the team-structures study
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
    profile: Profile | None = None
    """The collaborator profile that holds it in a profiled team (D: data side, R: research
    side; a DiscoveryBench task's guidance); None: a trap's note goes to the trap's profile and
    any other note to the agent."""


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
    context_template: str = ""
    """``gold.context`` with ``{value}`` where the analysis decides it (a DiscoveryBench gold's
    year sits in its leading clause); empty: the context is worded as ``gold.context``."""
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
        for name in ("relation_template", "context_template"):
            fields = {f for _, f, _, _ in string.Formatter().parse(getattr(self, name)) if f}
            if not fields <= {"value"}:
                raise ValueError(f"{name} may hold only {{value}}, not {sorted(fields)}")
        return self


def _check_identifier(kind: str, name: str) -> None:
    if not name.isidentifier():
        raise ValueError(f"{kind} name {name!r} is not an identifier")


def _check_distinct(what: str, names: list[str]) -> None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{what} must be distinct; repeated: {repeated}")
