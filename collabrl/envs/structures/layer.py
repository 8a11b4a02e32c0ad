"""Collaboration structures as one piece a game plugs in: the board, the gates, their actions.

A game builds one :class:`Structures` per episode and asks it, per seat, for the extra actions
to offer (:meth:`Structures.offers`), the observation lines, structured view and anchor part it
adds, and the intro rules; it hands it the structure actions seats choose (:meth:`apply`) and
asks it, for every move of a gated kind, whether the move runs (:meth:`gate`). Structures:

``default``: nothing (the game as it always was; offers, texts and anchors are unchanged).
``memory``: the group-memory board (:mod:`.board`): shown to every seat; ``update`` writes the
    decision's message as an entry of one section and costs one tick, like a message. With a
    build phase (``build_ticks`` > 0, the team-structures study's rule) the board is written only
    during the first ``build_ticks`` ticks and is a fixed reference afterwards; with none (the
    household's and kitchen's default) it stays writable all episode.
``gates``: approval gates (:mod:`.gates`) with owners preassigned by action kind.
``scaffolded``: the board plus gates whose owners the team chooses: ``assign`` records on the
    board who approves a kind (until then that kind runs freely); with a build phase, owners are
    chosen during it only, and kinds left without one stay ungated.

Each game words the actions its own way (:class:`Vocabulary`); a board entry with no text is an
invalid decision (:data:`EMPTY_ENTRY`), as an empty message is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from collabrl.envs.structures.board import SECTION_TITLES, SECTIONS, Board
from collabrl.envs.structures.gates import Gates, Request, Verdict
from collabrl.envs.structures.trace import EventKind

Structure = Literal["default", "memory", "gates", "scaffolded"]
STRUCTURES: tuple[Structure, ...] = get_args(Structure)
BOARD_TICKS = 1  # writing a board entry or assigning a gate owner, like a message
DECIDE_TICKS = 1  # approving or denying a request
EMPTY_ENTRY = "the board action needs a non-empty <message> (the entry to write)"

# ("update", section) | ("approve", request id) | ("deny", request id) | ("assign", (kind, seat))
Move = tuple[str, Any]


@dataclass(frozen=True)
class Vocabulary:
    """How a game writes structure actions (``str.format`` templates); the defaults are the
    bracketed words the household and analysis games share."""

    kind: str  # {kind}: how the game's actions of a gated kind look, for rules and requests
    update: str = "[update_memory] {section}"  # {section}
    approve: str = "[approve] #{id}"  # {id}
    deny: str = "[deny] #{id}"  # {id}
    assign: str = "[assign_gate] {kind}: {seat}"  # {kind} {seat}


def uses_board(structure: Structure) -> bool:
    return structure in ("memory", "scaffolded")


def uses_gates(structure: Structure) -> bool:
    return structure in ("gates", "scaffolded")


def default_owner(seats: Sequence[str]) -> str | None:
    """The preassigned owner of every gate unless a recipe names one: the second seat (the first
    teammate of Agent 1); a team of one has nobody to ask."""
    return seats[1] if len(seats) > 1 else None


class Structures:
    """The structure of one episode for a team of ``seats``."""

    def __init__(
        self,
        structure: Structure,
        seats: Sequence[str],
        words: Vocabulary,
        gated: Sequence[str] = (),
        owners: Mapping[str, str] | None = None,
        build_ticks: int = 0,
    ) -> None:
        if structure not in STRUCTURES:
            raise ValueError(
                f"unknown structure {structure!r}; choose from {', '.join(STRUCTURES)}"
            )
        self.name = structure
        self.seats = list(seats)
        self.words = words
        self.board = Board() if uses_board(structure) else None
        self.build_ticks = build_ticks if self.board is not None else 0
        self.gates: Gates | None = None
        if structure == "scaffolded":
            self.gates = Gates.team_chosen(self.seats, gated)
        elif structure == "gates":
            fallback = default_owner(self.seats)
            chosen = {k: (owners or {}).get(k, fallback) for k in gated}
            self.gates = Gates.preassigned(
                self.seats, gated, {k: o for k, o in chosen.items() if o}
            )

    @property
    def active(self) -> bool:
        return self.name != "default"

    def building(self, tick: int) -> bool:
        """Whether ``tick`` falls in the build phase (never, without one)."""
        return tick < self.build_ticks

    def writable(self, tick: int) -> bool:
        """Whether the board takes entries at ``tick``: always without a build phase, during it
        only with one (afterwards it is a fixed reference)."""
        return self.board is not None and (not self.build_ticks or self.building(tick))

    # ----------------------------------------------------------------- actions
    def offers(self, seat: str, tick: int = 0) -> dict[str, Move]:
        """Structure actions ``seat`` may choose at ``tick`` (action text -> move)."""
        w = self.words
        out: dict[str, Move] = {}
        if self.writable(tick):
            for section in SECTIONS:
                out[w.update.format(section=section)] = ("update", section)
        if self.gates is not None:
            for r in self.gates.to_decide(seat):
                out[w.approve.format(id=r.id)] = ("approve", r.id)
                out[w.deny.format(id=r.id)] = ("deny", r.id)
            for kind, choices in self._assignable(tick).items():
                for other, action in choices.items():
                    out[action] = ("assign", (kind, other))
        return out

    def _assignable(self, tick: int = 0) -> dict[str, dict[str, str]]:
        """Scaffolded teams of two or more: kind -> seat it could be given to -> action text
        (with a build phase, only during it)."""
        if self.gates is None or self.name != "scaffolded" or len(self.seats) < 2:
            return {}
        if self.build_ticks and not self.building(tick):
            return {}
        return {
            kind: {s: self.words.assign.format(kind=kind, seat=s) for s in self.seats if s != owner}
            for kind, owner in self.gates.owners.items()
        }

    def needs_text(self, move: Move) -> bool:
        """Whether the move carries the decision's message (a board entry does)."""
        return move[0] == "update"

    def apply(self, seat: str, move: Move, text: str, tick: int) -> tuple[EventKind, str | None]:
        """Carry out a structure move; returns the trace kind and target."""
        verb, arg = move
        if verb == "update":
            assert self.board is not None
            self.board.write(tick, seat, arg, text)
            return "board", arg
        assert self.gates is not None
        if verb in ("approve", "deny"):
            approve = verb == "approve"
            self.gates.decide(arg, approve, tick)
            return ("approve" if approve else "deny"), str(arg)
        kind, owner = arg
        self.gates.assign(kind, owner)
        if self.board is not None:
            self.board.write(tick, seat, "responsibilities", self._gate_note(kind, owner))
        return "assign", f"{kind}={owner}"

    def gate(self, seat: str, kind: str, action: str, tick: int) -> Verdict:
        """Whether a move of ``kind`` runs now; files the request or spends the approval."""
        if self.gates is None or kind not in self.gates.kinds:
            return "free"
        verdict = self.gates.verdict(seat, kind, action)
        if verdict == "request":
            self.gates.file(seat, kind, action, tick)
        elif verdict == "approved":
            self.gates.use(seat, action)
        return verdict

    def owner(self, kind: str) -> str | None:
        return None if self.gates is None else self.gates.owners.get(kind)

    # ----------------------------------------------------------------- what seats see
    def view(self, seat: str, tick: int = 0) -> dict[str, Any]:
        """The structured part of ``seat``'s observation at ``tick`` (empty for ``default``;
        ``update`` is empty once a build phase has frozen the board)."""
        if not self.active:
            return {}
        w = self.words
        out: dict[str, Any] = {"name": self.name}
        if self.build_ticks:
            out["build_ticks"] = self.build_ticks
        if self.board is not None:
            out["board"] = self.board.records(self.board.shown())
            out["update"] = (
                {s: w.update.format(section=s) for s in SECTIONS} if self.writable(tick) else {}
            )
        if self.gates is not None:
            out["owners"] = dict(self.gates.owners)
            out["to_decide"] = [
                {
                    **self._request(r),
                    "approve": w.approve.format(id=r.id),
                    "deny": w.deny.format(id=r.id),
                }
                for r in self.gates.to_decide(seat)
            ]
            out["mine"] = [self._request(r) for r in self.gates.own(seat)]
            out["assign"] = self._assignable(tick)
        return out

    def lines(self, seat: str, tick: int = 0) -> list[str]:
        """Observation lines for ``seat`` at ``tick`` (none for ``default``)."""
        out: list[str] = []
        if self.board is not None:
            if self.building(tick):
                out.append(
                    f"Build phase (until step {self.build_ticks}): record on the board who knows "
                    "what, who does what, the plan and the evidence the answer needs."
                )
            frozen = (
                " (fixed since the build phase)"
                if self.build_ticks and not self.building(tick)
                else ""
            )
            out.append(f"Group memory board (the whole team sees it){frozen}:")
            out += self.board.lines()
        if self.gates is not None:
            out.append(
                "Approval gates: " + "; ".join(self._owner_line(k) for k in self.gates.kinds)
            )
            waiting = [
                f"#{r.id} from {r.seat}: {r.action} (asked at step {r.tick})"
                for r in self.gates.to_decide(seat)
            ]
            out.append(f"Requests waiting for your approval: {'; '.join(waiting) or 'none'}.")
            own = [self._fate(r) for r in self.gates.own(seat)]
            out.append(f"Your approval requests: {'; '.join(own) or 'none'}.")
        return out

    def intro(self, seat: str) -> list[str]:
        """Rule lines for ``seat``'s prompt (none for ``default``)."""
        w, out = self.words, []
        if self.board is not None:
            out.append(
                "- The team shares a group memory board with four sections: "
                + ", ".join(f"{s} ({SECTION_TITLES[s]})" for s in SECTIONS)
                + f". Everyone sees it. {w.update.format(section='<section>')} writes your "
                "message there as an entry and costs one time step, like a message."
            )
            if self.build_ticks:
                out.append(
                    f"- The first {self.build_ticks} time steps are a build phase: the team fills "
                    "the board (and may talk) before the task starts; afterwards the board is a "
                    "fixed reference that everyone reads and nobody writes."
                )
        if self.gates is None:
            return out
        kinds = " and ".join(w.kind.format(kind=k) for k in self.gates.kinds)
        if self.name == "scaffolded":
            when = " during the build phase" if self.build_ticks else ""
            out.append(
                f"- Approval gates the team chooses: {w.assign.format(kind='<kind>', seat='<name>')}"
                f" records on the board who must approve {kinds} actions (one time step){when}; "
                "actions of a kind nobody is chosen for need no approval."
            )
        else:
            out.append(
                f"- Approval gates: {'; '.join(self._owner_line(k) for k in self.gates.kinds)}."
            )
        out.append(
            "- A gated action by anyone but its approver only files a request (one time step); "
            "choosing it again while the request is open waits one time step; once it is approved,"
            " choose it again to carry it out. The approver sees "
            f"{w.approve.format(id='N')} and {w.deny.format(id='N')} for each request."
        )
        return out

    def anchor(self, seat: str) -> tuple:
        """What the structure adds to ``seat``'s GiGPO anchor: which board sections are filled,
        and the gate state (owners, requests to decide, own open or approved requests)."""
        board = self.board.anchor() if self.board is not None else ()
        gates = self.gates.anchor(seat) if self.gates is not None else ()
        return (board, gates)

    def summary(self) -> dict[str, Any]:
        """The structure's record for ``summary()``: board entries and approval requests."""
        out: dict[str, Any] = {"structure": self.name}
        if self.build_ticks:
            out["build_ticks"] = self.build_ticks
        if self.board is not None:
            out["board"] = self.board.records()
        if self.gates is not None:
            out["gated"] = list(self.gates.kinds)
            out["gate_owners"] = dict(self.gates.owners)
            out["gate_requests"] = self.gates.records()
        return out

    # ----------------------------------------------------------------- wording
    def _owner_line(self, kind: str) -> str:
        action = self.words.kind.format(kind=kind)
        owner = self.owner(kind)
        if owner is None:
            return f"{action} needs no approval (no approver chosen)"
        return f"{action} by anyone but {owner} needs {owner}'s approval"

    def _gate_note(self, kind: str, owner: str) -> str:
        return f"Gate: {self.words.kind.format(kind=kind)} needs {owner}'s approval."

    @staticmethod
    def _request(r: Request) -> dict[str, Any]:
        return {
            "id": r.id,
            "seat": r.seat,
            "action": r.action,
            "owner": r.owner,
            "tick": r.tick,
            "status": r.status,
        }

    @staticmethod
    def _fate(r: Request) -> str:
        head = f"#{r.id} {r.action}"
        if r.status == "open":
            return f"{head}: waiting for {r.owner} since step {r.tick}"
        if r.status == "approved":
            return (
                f"{head}: approved by {r.owner} at step {r.decided_tick}; choose it again to do it"
            )
        if r.status == "denied":
            return f"{head}: DENIED by {r.owner} at step {r.decided_tick}"
        return f"{head}: approved and done"


def replay_options(summary: dict[str, Any]) -> dict[str, Any]:
    """The game options that replay an episode's structure from its ``summary()``: structure,
    gated kinds, for preassigned gates their owners (a scaffolded team chose its own), and the
    build phase when the episode had one."""
    structure = summary.get("structure", "default")
    out: dict[str, Any] = {"structure": structure}
    if "gated" in summary:
        out["gated"] = summary["gated"]
    if structure == "gates":
        out["gate_owners"] = {k: o for k, o in summary["gate_owners"].items() if o}
    if "build_ticks" in summary:
        out["build_ticks"] = summary["build_ticks"]
    return out
