"""Approval gates: selected action types take effect only after a designated teammate approves.

Why: collaboration scripts and human-in-the-loop sign-off route consequential steps through a
named approver; the study this follows calls them simulated HITL gates. The rules, shared by
the games:

- A gate covers one action *kind* of the game (household: ``put``; kitchen: ``deliver_soup``;
  analysis: ``edit``, ``submit``, ``run``)
  and has at most one owner (a seat). Actions of a kind without an owner, and the owner's own
  actions, run freely.
- A seat choosing a gated action files a request to the owner: nothing happens in the world and
  the seat idles ``REQUEST_TICKS``. Choosing the same action again while the request is open
  idles it ``WAIT_TICKS`` (blocked, counted). Once approved, choosing it again carries it out and
  uses the approval up; after a denial, choosing it again files a new request.
- Only the owner is offered ``approve`` and ``deny`` for an open request, so a decision by any
  other seat is not an available action and idles that seat as an invalid decision.
- Owners are preassigned by action kind (structure ``gates``) or chosen by the team during the
  episode (``scaffolded``: ``assign`` records the owner; the latest assignment holds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

REQUEST_TICKS = 1  # filing a request, like sending a message
WAIT_TICKS = 1  # choosing an action whose request is still open: blocked for a tick
SHOWN_OWN_REQUESTS = 3  # a seat's latest requests shown in its observation


def check_gate_owners(
    gate_owners: Mapping[str, str], gated: Sequence[str], seats: Sequence[str], kind: str = "kind"
) -> None:
    """A game section's ``gate_owners`` names gated action kinds (a ``kind``: what the game calls
    them) and seats only; raises ValueError naming the first that is neither."""
    for name, owner in gate_owners.items():
        if name not in gated:
            raise ValueError(f"gate_owners: {name!r} is not a gated {kind} ({list(gated)})")
        if owner not in seats:
            raise ValueError(f"gate_owners: {owner!r} is not a seat ({list(seats)})")


Status = Literal["open", "approved", "denied", "used"]
Verdict = Literal["free", "approved", "request", "wait"]


@dataclass
class Request:
    """One request for approval of one action."""

    id: int
    seat: str
    action: str  # the action text the seat chose
    kind: str
    owner: str
    tick: int
    status: Status = "open"
    decided_tick: int | None = None


@dataclass
class Gates:
    """The gates of one episode: owners per kind and every request."""

    seats: Sequence[str]
    kinds: Sequence[str]
    owners: dict[str, str | None] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    @classmethod
    def preassigned(
        cls, seats: Sequence[str], kinds: Sequence[str], owners: Mapping[str, str]
    ) -> Gates:
        """Owners fixed by action kind (kinds missing from ``owners`` stay ungated)."""
        return cls(seats, kinds, {k: owners.get(k) for k in kinds})

    @classmethod
    def team_chosen(cls, seats: Sequence[str], kinds: Sequence[str]) -> Gates:
        """No owners yet: the team assigns them during the episode."""
        return cls(seats, kinds, dict.fromkeys(kinds))

    # ----------------------------------------------------------------- the rules
    def verdict(self, seat: str, kind: str, action: str) -> Verdict:
        """What choosing ``action`` (of ``kind``) means for ``seat`` now (see the module rules)."""
        owner = self.owners.get(kind)
        if owner is None or owner == seat:
            return "free"
        latest = self._latest(seat, action)
        if latest is None or latest.status in ("denied", "used"):
            return "request"
        return "wait" if latest.status == "open" else "approved"

    def file(self, seat: str, kind: str, action: str, tick: int) -> Request:
        owner = self.owners[kind]
        assert owner is not None, "file only after verdict() said 'request'"
        request = Request(len(self.requests) + 1, seat, action, kind, owner, tick)
        self.requests.append(request)
        return request

    def use(self, seat: str, action: str) -> None:
        """The approved action runs: its approval is spent."""
        latest = self._latest(seat, action)
        assert latest is not None and latest.status == "approved"
        latest.status = "used"

    def decide(self, request_id: int, approve: bool, tick: int) -> Request:
        request = self.requests[request_id - 1]
        request.status = "approved" if approve else "denied"
        request.decided_tick = tick
        return request

    def assign(self, kind: str, owner: str) -> None:
        self.owners[kind] = owner

    # ----------------------------------------------------------------- what seats see
    def to_decide(self, owner: str) -> list[Request]:
        """Open requests ``owner`` may approve or deny."""
        return [r for r in self.requests if r.status == "open" and r.owner == owner]

    def own(self, seat: str) -> list[Request]:
        """``seat``'s latest requests (what it is told about their fate)."""
        return [r for r in self.requests if r.seat == seat][-SHOWN_OWN_REQUESTS:]

    def anchor(self, seat: str) -> tuple:
        """Gate state of ``seat`` for GiGPO: owners, requests it must decide, its own open and
        approved requests (their count, not their ids)."""
        mine = [
            r.status for r in self.requests if r.seat == seat and r.status in ("open", "approved")
        ]
        return (
            tuple(sorted((k, o or "") for k, o in self.owners.items())),
            len(self.to_decide(seat)),
            tuple(sorted(mine)),
        )

    def records(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.requests]

    def _latest(self, seat: str, action: str) -> Request | None:
        return next(
            (r for r in reversed(self.requests) if r.seat == seat and r.action == action), None
        )
