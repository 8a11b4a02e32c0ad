"""A shared structured workspace beside a chat: named fields (text, number or a choice) the
room's participants and agents fill in together, each field editable only by the seats it
names.

Declared on a chat page::

    workspace:
      - {id: destination, label: Where to, kind: choice, options: [coast, hills]}
      - {id: budget, label: Budget (GBP), kind: number, editable_by: [p1]}
      - {id: notes, label: Notes, editable_by: [p1, agent]}

Seats are the room's participants' (``p1``, ``p2``, ... as the match page groups them; ``p1``
alone without one) and ``agent`` for the room's agents (through their ``edit_workspace`` tool).
Every edit is a ``workspace_edit`` event; the export lists them in ``workspace_edits.csv``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, model_validator

from collabrl.sections import Strict

AGENT_SEAT = "agent"
"""The seat name of a room's agents in ``editable_by``."""


class WorkspaceField(Strict):
    """One field of a shared workspace."""

    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    """Name in events and the export (and in an agent's edit_field tag)."""
    label: str = Field(min_length=1, max_length=200)
    """What participants see beside the field."""
    kind: Literal["text", "number", "choice"] = "text"
    """text (up to max_chars), number, or choice (one of options)."""
    options: list[str] = Field(default_factory=list)
    """choice: the options."""
    max_chars: int = Field(500, ge=1, le=20_000)
    """text: the longest value."""
    editable_by: list[str] | None = None
    """Seats that may edit it (p1, p2, ..., agent); null: everyone in the room."""

    @model_validator(mode="after")
    def _options(self) -> WorkspaceField:
        if (self.kind == "choice") != bool(self.options):
            raise ValueError(f"workspace field {self.id}: options go with kind choice")
        return self

    def may_edit(self, seat: str) -> bool:
        return self.editable_by is None or seat in self.editable_by

    def value(self, raw: Any) -> str | float:
        """``raw`` as the field stores it; raises ValueError (the words beside the field)."""
        if self.kind == "number":
            try:
                number = float(raw)
            except (TypeError, ValueError):
                number = math.nan
            if isinstance(raw, bool) or not math.isfinite(number):
                raise ValueError("enter a number")
            return number
        if not isinstance(raw, str):
            raise ValueError("enter some text")
        if self.kind == "choice" and raw not in self.options:
            raise ValueError(f"choose one of {', '.join(self.options)}")
        if len(raw) > self.max_chars:
            raise ValueError(f"at most {self.max_chars} characters")
        return raw


def check_workspace(fields: list[WorkspaceField], seats: list[str], where: str) -> None:
    """Field ids are unique and ``editable_by`` names only the room's seats; raises
    ValueError (one line)."""
    ids = [f.id for f in fields]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{where} workspace: field ids repeat: {repeated}")
    known = [*seats, AGENT_SEAT]
    for f in fields:
        unknown = sorted(set(f.editable_by or []) - set(known))
        if unknown:
            raise ValueError(
                f"{where} workspace field {f.id}: editable_by names {unknown}; the seats are "
                f"{', '.join(known)}"
            )
