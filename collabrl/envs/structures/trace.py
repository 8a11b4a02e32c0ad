"""The process trace: what each seat did, as the game alone can tell (for process metrics).

Why: whether a move was new work, wasted work, a gate request or a blocked wait is known only
inside the game at the moment it happens, while claims and requests in messages are read later
by the game's speech reader (the game itself never interprets dialogue). Every game records a
:class:`TraceEvent` for each decision of the kinds below; ``collabrl.eval.process`` turns the
list in ``summary()["trace"]`` into the process metrics.

Event kinds:
    ``work``: a state-changing move started (``target`` names its subgoal; ``new``: no seat had
    started that subgoal before; ``wasted``: it turned out useless, see each game's docstring);
    ``message``: a message sent (``text``); ``board``: a group-memory entry (``target`` the
    section, ``text`` the entry); ``request``: an approval request filed for a gated move
    (``target`` its subgoal); ``wait``: a tick blocked on the seat's own open request;
    ``approve`` / ``deny``: a gate owner's decision (``target`` the request id);
    ``assign``: a gate owner chosen (``target`` ``kind=seat``); ``invalid``: an unusable decision.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

EventKind = Literal[
    "work", "message", "board", "request", "wait", "approve", "deny", "assign", "invalid"
]
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)


@dataclass
class TraceEvent:
    tick: int
    seat: str
    kind: EventKind
    target: str | None = None
    text: str = ""
    new: bool = False
    wasted: bool = False


@dataclass
class Trace:
    """The events of one episode, in decision order."""

    events: list[TraceEvent] = field(default_factory=list)
    started: set[str] = field(default_factory=set)

    def add(
        self, tick: int, seat: str, kind: EventKind, target: str | None = None, text: str = ""
    ) -> int:
        """Record an event; returns its index (to flag it wasted later)."""
        self.events.append(TraceEvent(tick, seat, kind, target, text))
        return len(self.events) - 1

    def work(
        self, tick: int, seat: str, target: str, wasted: bool = False, instance: str | None = None
    ) -> int:
        """Record a started move on subgoal ``target``; new when nobody had started that subgoal
        (or its ``instance``, when a subgoal recurs: the kitchen's jobs, once per soup)."""
        index = self.add(tick, seat, "work", target)
        key = instance or target
        self.events[index].new = key not in self.started
        self.events[index].wasted = wasted
        self.started.add(key)
        return index

    def waste(self, index: int) -> None:
        self.events[index].wasted = True

    def records(self) -> list[dict[str, Any]]:
        return [asdict(e) for e in self.events]


@dataclass(frozen=True)
class Speech:
    """What one message or board entry claims for its speaker and asks of teammates, as the
    subgoal targets that ``work`` events carry (so a claim can be checked against later work)."""

    claims: tuple[str, ...] = ()
    requests: tuple[str, ...] = ()
