"""The relay game: couriers with half a map each carry parcels along a corridor, hand to hand.

A corridor of rooms 0..N-1 (west to east) is split into one zone per seat; neighbouring zones
share a hand-off room. A seat walks only within its own zone, so a parcel bound for another zone
is dropped in a hand-off room for the next seat to carry on. Nobody sees the whole picture: the
even seats (Ann, ...) hold the pickup map (where each parcel lay at the start), the odd seats
(Ben, ...) the destination map (where each must go), and every seat sees the parcels lying in
its own room. The game never interprets messages: what a seat learns from a teammate, it learns
by reading the dialogue.

Action space (per seat, rebuilt at each of its decision points; ``Observation.actions``):
    ``[goto] room <r>`` for every other room of the seat's zone (``WALK_TICKS`` per room walked);
    ``[pickup] <parcel>`` for each undelivered parcel lying in the seat's room while its hands
    are free (``CARRY_LIMIT``; ``PICKUP_TICKS``); ``[drop] <parcel>`` for the parcel it carries
    (``DROP_TICKS``; dropped in its destination room, the parcel is delivered and leaves play,
    anywhere else it lies there for anyone to pick up); ``[wait]`` (``WAIT_TICKS``); and
    ``[send_message]`` (``MESSAGE_TICKS``; the ``<message>`` text goes to every teammate). An
    action not on the list, a message action without text, or no action idles the seat
    ``IDLE_TICKS`` and counts as invalid; a listed action from a reply flagged invalid still runs
    and counts as invalid. Effects happen when the action ends: two seats picking up one parcel
    in the same tick resolve in seat order, and the later one ends empty-handed.
Observation: ``text`` (goal, time, zones, own room and hands, parcels seen here, own map,
    delivered parcels, the last ``DIALOGUE_LINES`` dialogue lines verbatim, own last actions,
    lettered actions), ``state`` (the same as data, with the whole dialogue; see
    :func:`relay_game.render.build_state`) and ``anchor`` (own room, hands, parcels seen here,
    delivered parcels: no tick, map or dialogue).
Rewards: ``PROGRESS_REWARD`` to every seat per parcel newly delivered (the efficiency reward comes
    from ``summary()["steps"]``, see :class:`relay_game.section.RelaySection`).
Episode end: terminated when every parcel is delivered (``steps`` = that tick); truncated at
    ``max_ticks`` ("time limit"; ``steps`` = ``max_ticks``). Every decision costs at least one
    tick, so the clock advances with every ``step`` and no seat decides more than ``max_ticks``
    times.

Args:
    task: a task name (``relay_game.tasks``, e.g. ``"r5p2v0"``) or a :class:`Task`.
    seats: seat names, two to ``rooms - 1`` of them (every zone spans at least two rooms).
    max_ticks: the time limit (``TIME_LIMIT``).

Version: 1 (``VERSION``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collabrl.envs.base import (
    EMPTY_MESSAGE,
    MESSAGE_ACTION,
    Decision,
    Observation,
    StepResult,
    message_text,
)
from relay_game import render
from relay_game.tasks import Task, get_task, zones

VERSION = 1  # bumped whenever a rule or number changes the episodes a seed plays
TIME_LIMIT = 60  # ticks per episode; a failure is scored as this many steps
MIN_SEATS = 2  # a relay needs somebody to hand to
CARRY_LIMIT = 1  # parcels a seat can carry at once
WALK_TICKS = 1  # per room walked
PICKUP_TICKS = 1  # picking a parcel up
DROP_TICKS = 1  # putting a parcel down (delivering it, in its destination room)
WAIT_TICKS = 1  # the wait action
MESSAGE_TICKS = 1  # sending a message
IDLE_TICKS = 1  # what an unusable decision costs
PROGRESS_REWARD = 0.2  # to every seat, per parcel newly delivered
MAP_KINDS = ("pickup", "destination")  # seat k holds the map MAP_KINDS[k % 2]
WAIT = "[wait]"
SUCCESS, TIME_UP, RUNNING = "success", "time limit", "running"  # outcomes


@dataclass(frozen=True)
class Event:
    """A seat's current action, taking effect when it ends at ``tick`` (``kind``: goto, pickup,
    drop, wait, message or idle; only the first three change the world)."""

    tick: int
    kind: str
    arg: Any = None


class RelayGame:
    """One relay episode (see the module docstring; follows ``collabrl.envs.base.Game``)."""

    name = "relay"
    message_action = MESSAGE_ACTION

    def __init__(
        self,
        task: str | Task,
        seats: Sequence[str] = ("Ann", "Ben"),
        max_ticks: int = TIME_LIMIT,
    ) -> None:
        self.task = get_task(task) if isinstance(task, str) else task
        names = list(seats)
        if len(names) < MIN_SEATS or len(set(names)) != len(names):
            raise ValueError(f"need {MIN_SEATS} or more distinct seat names, got {names!r}")
        self.agents = names
        self.zones = zones(self.task.rooms, len(names))
        self.max_ticks = max_ticks
        self.dest = {p.name: p.dest for p in self.task.parcels}
        self.maps = [self._map(self.map_kind(k)) for k in range(len(names))]
        self.tick = 0
        self.delivered: list[str] = []  # set here too: progress is read before the first reset
        self._done = True

    @staticmethod
    def map_kind(i: int) -> str:
        """Which half of the picture seat i holds: the even seats the pickups, the odd the
        destinations (so every pair of neighbours holds both halves)."""
        return MAP_KINDS[i % len(MAP_KINDS)]

    def _map(self, kind: str) -> dict[str, int]:
        """A seat's half of the picture: parcel -> start room, or parcel -> destination room."""
        return {p.name: p.start if kind == "pickup" else p.dest for p in self.task.parcels}

    # ----------------------------------------------------------------- episode control
    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start an episode; the seed draws each seat's start room within its zone (no seed: the
        west end of the zone). The parcels are the task's, whatever the seed."""
        rng = random.Random(seed)
        self.rooms = [rng.randint(lo, hi) if seed is not None else lo for lo, hi in self.zones]
        self.lying = {p.name: p.start for p in self.task.parcels}  # undelivered, not carried
        self.holding: list[list[str]] = [[] for _ in self.agents]
        self.delivered: list[str] = []
        self.events: list[Event | None] = [None] * len(self.agents)
        self.dialogue: list[tuple[int, str, str]] = []
        self.history: list[list[str]] = [[] for _ in self.agents]
        self.decisions = [0] * len(self.agents)
        self.invalid = [0] * len(self.agents)
        self.messages = [0] * len(self.agents)
        self.offers: list[dict[str, tuple[str, Any]]] = [{} for _ in self.agents]
        self.tick = 0
        self.success_tick: int | None = None
        self.outcome = RUNNING
        self._done = False
        return self._observations(range(len(self.agents)))

    @property
    def done(self) -> bool:
        return self._done

    @property
    def progress(self) -> int:
        """Parcels delivered so far (the unit of the optional progress reward)."""
        return len(self.delivered)

    def step(self, decisions: Mapping[str, Decision | None]) -> StepResult:
        """Apply one decision per pending seat, then run the clock to the next decision point."""
        if self._done:
            raise RuntimeError("episode is over; call reset()")
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        before = self.progress
        for i in self._pending():
            infos[self.agents[i]] = self._decide(i, decisions.get(self.agents[i]))
        pending = self._run_clock()
        for info in infos.values():
            info["tick"] = self.tick
        terminated = self.success_tick is not None
        truncated = self._done and not terminated
        seats = self.agents
        return StepResult(
            observations={} if self._done else self._observations(pending),
            rewards={a: PROGRESS_REWARD * (self.progress - before) for a in seats},
            terminations={a: terminated for a in seats},
            truncations={a: truncated for a in seats},
            infos=infos,
        )

    def intro(self, seat: str) -> str:
        """Rules and goal for a seat's prompt."""
        return render.intro_text(self, self.agents.index(seat))

    def summary(self) -> dict[str, Any]:
        """Episode result; ``steps`` is the success tick, or ``max_ticks`` on failure."""
        success = self.success_tick is not None
        parcels = len(self.task.parcels)
        return {
            "task": self.task.name,
            "success": success,
            "steps": self.success_tick if success else self.max_ticks,
            "ticks": self.tick,
            "outcome": self.outcome,
            "decisions": dict(zip(self.agents, self.decisions, strict=True)),
            "invalid": dict(zip(self.agents, self.invalid, strict=True)),
            "messages": dict(zip(self.agents, self.messages, strict=True)),
            "delivered": len(self.delivered),
            "goal_progress": len(self.delivered) / parcels,
        }

    # ----------------------------------------------------------------- decisions
    def _pending(self) -> list[int]:
        return [i for i, event in enumerate(self.events) if event is None]

    def _decide(self, i: int, decision: Decision | None) -> dict[str, Any]:
        self.decisions[i] += 1
        action = decision.action if decision is not None else None
        offer = self.offers[i].get(action) if action is not None else None
        if offer is None:
            return self._idle_invalid(i, action or "no action", "action not available")
        kind, arg = offer
        if kind == "message" and not message_text(decision.message):
            return self._idle_invalid(i, f"{action} with no message", EMPTY_MESSAGE)
        self.invalid[i] += not decision.valid
        self.history[i].append(action)
        if kind == "message":
            self.messages[i] += 1
            self.dialogue.append((self.tick, self.agents[i], message_text(decision.message)))
        self.events[i] = Event(self.tick + self._duration(i, kind, arg), kind, arg)
        return {"invalid": not decision.valid, "action": action}

    def _duration(self, i: int, kind: str, arg: Any) -> int:
        """Ticks an action takes (at least one, so the clock always moves)."""
        if kind == "goto":
            return WALK_TICKS * abs(arg - self.rooms[i])
        return {
            "pickup": PICKUP_TICKS,
            "drop": DROP_TICKS,
            "wait": WAIT_TICKS,
            "message": MESSAGE_TICKS,
        }[kind]

    def _idle_invalid(self, i: int, what: str, reason: str) -> dict[str, Any]:
        """An unusable decision: the seat idles and the decision counts as invalid."""
        self.invalid[i] += 1
        self.events[i] = Event(self.tick + IDLE_TICKS, "idle")
        self.history[i].append(f"(invalid: {what}) [idle]")
        return {"invalid": True, "action": None, "reason": reason}

    # ----------------------------------------------------------------- the clock
    def _run_clock(self) -> list[int]:
        """Apply events in time (then seat) order until a seat is idle or the episode ends."""
        while True:
            if self.success_tick is not None:
                return self._finish(SUCCESS)
            pending = self._pending()
            if pending:
                return self._finish(TIME_UP) if self.tick >= self.max_ticks else pending
            now = min(event.tick for event in self.events if event is not None)
            if now > self.max_ticks:
                self.tick = self.max_ticks
                return self._finish(TIME_UP)
            self.tick = now
            for i, event in enumerate(self.events):
                if event is not None and event.tick == now:
                    self.events[i] = None
                    self._apply(i, event)

    def _finish(self, outcome: str) -> list[int]:
        self._done = True
        self.outcome = outcome
        return []

    def _apply(self, i: int, event: Event) -> None:
        if event.kind == "goto":
            self.rooms[i] = event.arg
        elif event.kind == "pickup" and self.lying.get(event.arg) == self.rooms[i]:
            del self.lying[event.arg]  # else a teammate took it first: the pickup does nothing
            self.holding[i].append(event.arg)
        elif event.kind == "drop":
            self._drop(i, event.arg)

    def _drop(self, i: int, parcel: str) -> None:
        self.holding[i].remove(parcel)
        if self.rooms[i] != self.dest[parcel]:
            self.lying[parcel] = self.rooms[i]
            return
        self.delivered.append(parcel)
        if len(self.delivered) == len(self.task.parcels):
            self.success_tick = self.tick

    # ----------------------------------------------------------------- offers
    def here(self, i: int) -> list[str]:
        """Parcels lying in seat i's room (what it sees), in task order."""
        return [p for p, room in self.lying.items() if room == self.rooms[i]]

    def _offers(self, i: int) -> dict[str, tuple[str, Any]]:
        """Available actions of seat i (action text -> (kind, argument)), in letter order."""
        lo, hi = self.zones[i]
        offers: dict[str, tuple[str, Any]] = {
            f"[goto] room {r}": ("goto", r) for r in range(lo, hi + 1) if r != self.rooms[i]
        }
        if len(self.holding[i]) < CARRY_LIMIT:
            offers.update({f"[pickup] <{p}>": ("pickup", p) for p in self.here(i)})
        offers.update({f"[drop] <{p}>": ("drop", p) for p in self.holding[i]})
        offers[WAIT] = ("wait", None)
        offers[MESSAGE_ACTION] = ("message", None)
        return offers

    def _observations(self, seats: Any) -> dict[str, Observation]:
        out = {}
        for i in seats:
            self.offers[i] = self._offers(i)
            out[self.agents[i]] = render.observation(self, i, list(self.offers[i]))
        return out
