"""A task before its name and split (:class:`Draft`), and :class:`Redraw`, raised when a draw
cannot make the task its family wants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from collabrl.envs.analysis.tasks import (
    Note,
    Step,
    Table,
    Trap,
)


@dataclass
class Draft:
    """One task before its name and split, with the answer the family designed it to have."""

    family: str
    query: str
    tables: list[Table]
    notes: list[Note]
    context: str
    variables: list[str]
    sentence: str  # the gold sentence, with {relation} where the relation goes
    workflow: list[Step]
    template: str
    expected: Any  # the value the workflow must yield
    traps: list[Trap] = field(default_factory=list)


class Redraw(Exception):
    """These random numbers do not make the task the family wants; draw again."""
