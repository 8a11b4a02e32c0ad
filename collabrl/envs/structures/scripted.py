"""What scripted players (experts, personas) read from a structure and the choices they share.

A scripted player never sees the structure's objects, only its seat's observation: the
``structure`` part of ``Observation.state`` (see :meth:`Structures.view`), read here into a
:class:`StructureView` with the exact action texts to choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

ASSIGN_GRACE = 10  # ticks a non-organiser waits for someone else to choose gate owners


@dataclass(frozen=True)
class StructureView:
    """The structure part of one observation."""

    name: str
    board: list[dict[str, Any]] = field(default_factory=list)
    update: dict[str, str] = field(default_factory=dict)  # section -> action text
    owners: dict[str, str | None] = field(default_factory=dict)
    to_decide: list[dict[str, Any]] = field(default_factory=list)
    mine: list[dict[str, Any]] = field(default_factory=list)
    assign: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> seat -> action
    build_ticks: int = 0  # the build phase's length (0: none; the board stays writable)

    @classmethod
    def of(cls, state: dict[str, Any]) -> StructureView | None:
        """The view of an observation's state; None when the game runs without a structure."""
        raw = state.get("structure")
        return cls(**raw) if raw else None

    @property
    def has_board(self) -> bool:
        """Whether the board takes entries now (false once a build phase has frozen it)."""
        return bool(self.update)

    def unassigned(self) -> list[str]:
        """Gated kinds nobody approves yet (scaffolded: the team still has to choose)."""
        return [k for k, owner in self.owners.items() if owner is None and k in self.assign]

    def waiting(self, action: str) -> bool:
        """Whether this seat's own request for ``action`` is still open."""
        return any(r["action"] == action and r["status"] == "open" for r in self.mine)


def pick_owner(view: StructureView, me: str, seats: Sequence[str]) -> str:
    """Whom a scripted organiser makes approver: the first teammate who recorded expertise on the
    board (they know the task best), otherwise the seat after the organiser."""
    experts = [e["author"] for e in view.board if e["section"] == "expertise" and e["author"] != me]
    if experts:
        return experts[0]
    return seats[(list(seats).index(me) + 1) % len(seats)]


def organises(view: StructureView, me: str, seats: Sequence[str], tick: int) -> bool:
    """Whether a scripted player should choose gate owners now: the first seat at once, anyone
    else once ``ASSIGN_GRACE`` ticks have passed with the gates still unowned."""
    return bool(view.unassigned()) and (seats[0] == me or tick >= ASSIGN_GRACE)
