"""The household game engine (CWAH-MultiPlayer in pure Python): shared clock, actions, goals.

High-level actions are scheduled as timed events (arrive, open, grab, put); effects happen when
the event's tick comes, so a teammate can change the world in between (e.g. take the object).
A seat acts only on what it has seen itself; messages are dialogue the game never interprets.

Version: 2 (``VERSION``), bumped whenever a rule or number changes what a seed plays (2: the
conversation opens with the seeded exchange by default, :mod:`collabrl.envs.opening`).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from collabrl.envs.base import (
    EMPTY_MESSAGE,
    MESSAGE_ACTION,
    Decision,
    Observation,
    StepResult,
    message_text,
)
from collabrl.envs.household import render
from collabrl.envs.household.knowledge import PartnerView, SeatMind
from collabrl.envs.household.tasks import Task, get_task
from collabrl.envs.household.world import (
    APPROACH_TICKS,
    HOLD_LIMIT,
    Apartment,
    load_apartments,
    token,
)
from collabrl.envs.opening import Opening, seeded_lines
from collabrl.envs.structures import (
    BOARD_TICKS,
    DECIDE_TICKS,
    EMPTY_ENTRY,
    REQUEST_TICKS,
    WAIT_TICKS,
    Structure,
    Structures,
    Trace,
    Vocabulary,
)

VERSION = 2  # the rules version (see the module docstring)
TIME_LIMIT = 250  # ticks per episode (CWAH); a failure is scored as this many steps
TRAINING_DECISIONS = 50  # decisions per seat in a training episode (the released CWAH code)
PAPER_TRAINING_TICKS = 150  # "each episode allows up to 150 environment steps" (paper, D.1.3)
DEFAULT_SEATS = ("Alice", "Bob", "Charlie", "David", "Eve", "Frank", "Grace", "Heidi")
LOOK_TICKS = 2  # looking around a room after walking in
OPEN_TICKS = 1  # opening a closed container once standing at it
GRAB_TICKS = 1  # picking one object up
PUT_TICKS = 1  # placing one held object (each carried goal object in turn)
PROGRESS_REWARD = 0.2  # per goal object newly placed (team reward)
MESSAGE_TICKS = 1  # sending a message (also the idle tick of an unusable decision)
OPENING_GREETING = (
    "Hi, I'll tell you whenever I find goal objects or finish a subgoal, and I'll ask for your "
    "help when I need it."
)
OPENING_REPLY = (
    "Thanks! I'll tell you too whenever I find goal objects or finish a subgoal, and ask for your "
    "help when I need it."
)
STALLED = "stalled"  # outcome when a seat reaches max_decisions (a safety net, see HouseholdGame)
# event kinds
ARRIVE, LOOK, OPEN, GRAB, PUT, IDLE = range(6)
MOVE_KINDS = ("explore", "check", "grab", "put")  # the action kinds a gate may cover
DEFAULT_GATED = ("put",)  # putting goal objects in place: the team's consequential step
WORDS = Vocabulary(kind="[go{kind}]")


def explore_action(apartment: Apartment, room: int) -> str:
    """The action that walks to ``room`` and looks around (offered for every other room)."""
    return f"[goexplore] {apartment.room_token(room)}"


def default_seats(n: int) -> tuple[str, ...]:
    """Seat names for ``n`` seats: Alice, Bob, Charlie, ... then Player9, Player10, ..."""
    return tuple(DEFAULT_SEATS[i] if i < len(DEFAULT_SEATS) else f"Player{i + 1}" for i in range(n))


class HouseholdGame:
    """One household episode for any number of seats (see ``collabrl.envs.base.Game``).

    Follows the PettingZoo parallel API where it fits: ``reset(seed)`` returns one
    :class:`~collabrl.envs.base.Observation` per seat, ``step(decisions)`` a
    :class:`~collabrl.envs.base.StepResult` with observations only for the seats that must decide
    next (decisions are asynchronous: a seat is asked only when its previous action has ended).

    Action space (per seat, rebuilt at each of its decision points; ``Observation.actions``):
        ``[goexplore] <room> (id)`` for every other room; ``[gocheck] <container> (id)`` for
        containers the seat has seen but not looked into; ``[gograb] <object> (id)`` for goal
        objects the seat has seen lying outside their target (at most two held);
        ``[goput] <target> (id)`` for targets of held objects that the seat has seen; and
        ``[send_message]`` when there are teammates. Only what the seat saw with its own eyes
        is offered: a teammate's message naming an object never makes it grabbable.
        An action not on the list, or a message action without text, idles the seat one tick
        and counts as invalid.
    Collaboration structure (``structure``, see :mod:`collabrl.envs.structures`): ``memory``
        adds ``[update_memory] <section>`` (the decision's message becomes a board entry every
        seat sees; one tick); ``gates`` makes moves of the ``gated`` kinds (default ``put``)
        file a request to their owner (``gate_owners``, default the second seat) instead of
        running, and offers the owner ``[approve] #N`` / ``[deny] #N``; ``scaffolded`` is
        ``memory`` plus gates whose owners seats choose with ``[assign_gate] <kind>: <seat>``.
        ``default`` changes nothing.
    Process trace (``summary()["trace"]``, :mod:`collabrl.envs.structures.trace`): one event
        per decision. A ``work`` event is wasted when it was a grab that ended without effect
        (a teammate took the object first), or a search (explore a room, check a container) of
        a place another seat had already searched and where no goal object lay out of place at
        that moment (walking to the room of a held object's target is travel, never waste).
    Observation: ``text`` (goal, time, own room and hands, explored rooms, fixtures and goal
        objects seen, teammates last seen in the same room, the last dialogue lines verbatim,
        own last actions, lettered actions), ``state`` (the same as ids, see
        :func:`render.build_state`) and ``anchor`` (GiGPO key without tick or dialogue).
    Rewards: ``PROGRESS_REWARD`` to every seat per goal object newly in place (the efficiency
        reward is computed from ``summary()["steps"]`` by the trainer, not here).
    Episode end: terminated when every goal predicate holds (``steps`` = that tick); truncated
        at ``max_ticks`` ("time limit") or when a deciding seat has used ``max_decisions``
        ("stalled"). Every decision costs at least one tick (a message or idle costs
        ``MESSAGE_TICKS``; moves cost walking, opening, grabbing or placing time), so the game
        clock strictly advances with each ``step`` and a seat can never make more than
        ``max_ticks`` decisions: the decision cap is only a safety net, and a stalled episode
        is flagged in ``summary()["stalled"]`` so evaluation can report it apart from failures.
        ``capped_seat`` counts one seat's decisions only (the released code caps the policy's
        decisions; by default any seat reaching the cap ends the episode, a chatty one too).

    Args:
        task: a task name (e.g. ``"0_read_book"``) or a :class:`Task`.
        seats: seat names, or how many seats to name Alice, Bob, ...
        max_ticks: the time limit (``TIME_LIMIT``; failures are scored as this many steps).
        max_decisions: per-seat decision cap (``TRAINING_DECISIONS`` in training rollouts; a
            safety net in evaluation).
        capped_seat: index of the one seat whose decisions the cap counts (None: every seat).
        opening: ``seeded`` (the paper's two-line exchange in the dialogue at tick 0, costing no
            time), ``first_decision`` (simulated players greet at their first decision) or
            ``none`` (see :mod:`collabrl.envs.opening`).
        structure: ``default``, ``memory``, ``gates`` or ``scaffolded``.
        gated: action kinds that gates cover (of ``MOVE_KINDS``).
        gate_owners: kind -> seat that approves it (``gates``; default the second seat).
    """

    name = "household"
    message_action = MESSAGE_ACTION

    def __init__(
        self,
        task: str | Task,
        seats: Sequence[str] | int = ("Alice", "Bob"),
        max_ticks: int = TIME_LIMIT,
        max_decisions: int = TRAINING_DECISIONS,
        structure: Structure = "default",
        gated: Sequence[str] = DEFAULT_GATED,
        gate_owners: Mapping[str, str] | None = None,
        capped_seat: int | None = None,
        opening: Opening = "seeded",
    ) -> None:
        self.task = get_task(task) if isinstance(task, str) else task
        names = default_seats(seats) if isinstance(seats, int) else tuple(seats)
        if not names or len(set(names)) != len(names):
            raise ValueError(f"need at least one seat and distinct names, got {names!r}")
        self.agents = list(names)
        unknown = [k for k in gated if k not in MOVE_KINDS]
        if unknown:
            raise ValueError(f"gated: unknown action kind(s) {unknown}; kinds: {MOVE_KINDS}")
        self.structure, self.gated = structure, tuple(gated)
        self.gate_owners = dict(gate_owners or {})
        self.team = Structures(structure, self.agents, WORDS, self.gated, self.gate_owners)
        self.max_ticks = max_ticks
        self.max_decisions = max_decisions
        if capped_seat is not None and not 0 <= capped_seat < len(self.agents):
            raise ValueError(f"capped_seat {capped_seat} is not a seat index of {self.agents}")
        self.capped_seat = capped_seat
        self.opening = opening
        self.apartment: Apartment = load_apartments()[self.task.apartment]
        self.names = {oid: name for oid, name, _ in self.task.objects}
        self.goal_of = {p.object: p for p in self.task.goal}  # object name -> its predicate
        self.room_fixtures: dict[int, list[int]] = {r: [] for r in self.apartment.rooms}
        for fx in self.apartment.fixtures.values():
            self.room_fixtures[fx.room].append(fx.id)
        self.goal_text = self.task.goal_text
        self.tick = 0
        self.placed = 0
        self._done = True

    # ----------------------------------------------------------------- episode control
    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start the episode; the seed only shuffles which seat starts in which start room."""
        rng = random.Random(seed)
        starts = list(self.task.start_rooms)
        if seed is not None:
            rng.shuffle(starts)
        n = len(self.agents)
        self.tick = 0
        self._done = False
        self.outcome = ""
        self.success_tick: int | None = None
        self.loc: dict[int, int | str] = {oid: at for oid, _, at in self.task.objects}
        self.contents: dict[int, set[int]] = {f: set() for f in self.apartment.fixtures}
        for oid, _, at in self.task.objects:
            self.contents[at].add(oid)
        self.is_open = {f.id: False for f in self.apartment.fixtures.values() if f.container}
        self.rooms = [starts[i % len(starts)] for i in range(n)]
        self.holding: list[list[int]] = [[] for _ in range(n)]
        self.plans: list[deque] = [deque() for _ in range(n)]
        self.minds = [SeatMind() for _ in range(n)]
        for i, mind in enumerate(self.minds):
            mind.partners = {a: PartnerView() for j, a in enumerate(self.agents) if j != i}
        self.opening_lines = (
            seeded_lines(self.agents, OPENING_GREETING, OPENING_REPLY)
            if self.opening == "seeded" and n > 1
            else []
        )
        self.dialogue: list[tuple[int, str, str]] = list(self.opening_lines)
        self.decisions = [0] * n
        self.invalid = [0] * n
        self.messages = [0] * n
        self.offers: list[dict[str, tuple[str, Any]]] = [{} for _ in range(n)]
        self.team = Structures(self.structure, self.agents, WORDS, self.gated, self.gate_owners)
        self.trace = Trace()
        self.placed = self._placed_units()
        for i in range(n):
            self._observe(i)
        return self._observations(range(n))

    @property
    def done(self) -> bool:
        return self._done

    @property
    def progress(self) -> int:
        """Goal objects in place now (the unit of the optional progress reward)."""
        return self.placed

    def step(self, decisions: Mapping[str, Decision | None]) -> StepResult:
        """Apply one decision per pending seat, then run the clock to the next decision point."""
        if self._done:
            raise RuntimeError("episode is over; call reset()")
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        before = self.placed
        for i in self._pending():
            infos[self.agents[i]] = self._decide(i, decisions.get(self.agents[i]))
        pending = self._run_clock()
        gained = self.placed - before
        for info in infos.values():
            info["tick"] = self.tick
        terminated = self.success_tick is not None
        truncated = self._done and not terminated
        n = self.agents
        return StepResult(
            observations={} if self._done else self._observations(pending),
            rewards={a: PROGRESS_REWARD * gained for a in n},
            terminations={a: terminated for a in n},
            truncations={a: truncated for a in n},
            infos=infos,
        )

    def intro(self, seat: str) -> str:
        """Rules and goal for a seat's prompt."""
        others = [a for a in self.agents if a != seat]
        rules = render.intro_text(seat, others, self.goal_text, self.max_ticks)
        return "\n".join([rules, *self.team.intro(seat)])

    def final_observation(self, seat: str) -> Observation:
        """What ``seat`` sees once the episode is over (the optional contract method the pages'
        final view uses): its last view with the goal progress as it ended, and no actions."""
        return render.final_observation(self, self.agents.index(seat), self._progress())

    def summary(self) -> dict[str, Any]:
        """Episode result; ``steps`` is the success tick, or ``max_ticks`` on failure.

        ``stalled`` marks an episode ended by the decision safety cap: it is scored like a
        failure here, but evaluation reports it separately (it says nothing about team speed).
        """
        success = self.success_tick is not None
        return {
            "task": self.task.name,
            "success": success,
            "stalled": self.outcome == STALLED,
            "steps": self.success_tick if success else self.max_ticks,
            "ticks": self.tick,
            "outcome": self.outcome or "running",
            "decisions": dict(zip(self.agents, self.decisions, strict=True)),
            "invalid": dict(zip(self.agents, self.invalid, strict=True)),
            "messages": dict(zip(self.agents, self.messages, strict=True)),
            "goal_progress": self.placed / sum(p.count for p in self.task.goal),
            "goal_placed": self._progress(),
            **self.team.summary(),
            "trace": self.trace.records(),
        }

    # ----------------------------------------------------------------- decisions
    def _pending(self) -> list[int]:
        return [i for i, plan in enumerate(self.plans) if not plan]

    def _decide(self, i: int, decision: Decision | None) -> dict[str, Any]:
        self.decisions[i] += 1
        action = decision.action if decision is not None else None
        offer = self.offers[i].get(action) if action is not None else None
        if decision is None or action is None or offer is None:
            return self._idle_invalid(i, action or "no action", "action not available")
        kind, target = offer
        text = message_text(decision.message)
        if kind == "message" and not text:
            return self._idle_invalid(i, f"{action} with no message", EMPTY_MESSAGE)
        if kind == "structure" and self.team.needs_text(target) and not text:
            return self._idle_invalid(i, f"{action} with no entry", EMPTY_ENTRY)
        self.invalid[i] += not decision.valid
        info: dict[str, Any] = {"invalid": not decision.valid, "action": action}
        if kind == "message":
            self.minds[i].history.append(action)
            self._send(i, decision.message)
        elif kind == "structure":
            self.minds[i].history.append(action)
            self._structure(i, target, text)
        else:
            verdict = self._move(i, kind, target, action)
            if verdict != "free":
                info["gate"] = verdict
        return info

    def _idle_invalid(self, i: int, what: str, reason: str) -> dict[str, Any]:
        """An unusable decision: the seat idles one tick and the decision counts as invalid."""
        self.invalid[i] += 1
        self._idle(i, MESSAGE_TICKS)
        self.minds[i].history.append(f"(invalid: {what}) [idle]")
        self.trace.add(self.tick, self.agents[i], "invalid")
        return {"invalid": True, "action": None, "reason": reason}

    def _idle(self, i: int, ticks: int) -> None:
        self.plans[i].append((self.tick + ticks, IDLE, None))

    def _send(self, i: int, text: str) -> None:
        """Broadcast a message: it joins the dialogue verbatim and changes nobody's beliefs."""
        self._idle(i, MESSAGE_TICKS)
        self.messages[i] += 1
        self.dialogue.append((self.tick, self.agents[i], message_text(text)))
        self.trace.add(self.tick, self.agents[i], "message", text=message_text(text))

    def _structure(self, i: int, move: tuple[str, Any], text: str) -> None:
        """A board entry, a gate decision or a gate assignment: one tick, no world change."""
        kind, target = self.team.apply(self.agents[i], move, text, self.tick)
        self._idle(i, BOARD_TICKS if kind in ("board", "assign") else DECIDE_TICKS)
        self.trace.add(self.tick, self.agents[i], kind, target, text if kind == "board" else "")

    def _move(self, i: int, kind: str, target: int, action: str) -> str:
        """A move, unless a gate holds it: then the seat files a request or waits on its own."""
        verdict = self.team.gate(self.agents[i], kind, action, self.tick)
        subgoal = f"{kind}:{target}"
        if verdict == "request":
            self._idle(i, REQUEST_TICKS)
            self.minds[i].history.append(f"{action} (approval requested)")
            self.trace.add(self.tick, self.agents[i], "request", subgoal)
        elif verdict == "wait":
            self._idle(i, WAIT_TICKS)
            self.minds[i].history.append(f"{action} (waiting for approval)")
            self.trace.add(self.tick, self.agents[i], "wait", subgoal)
        else:
            self.minds[i].history.append(action)
            self._schedule(i, kind, target)
        return verdict

    def _schedule(self, i: int, kind: str, target: int) -> None:
        """Turn a high-level action into timed events starting now (each at least a tick away)."""
        fixtures = self.apartment.fixtures
        plan, mind, t = self.plans[i], self.minds[i], self.tick
        wasted = kind in ("explore", "check") and self._searched_in_vain(i, kind, target)
        event = self.trace.work(t, self.agents[i], f"{kind}:{target}", wasted)
        if kind == "explore":
            t += self.apartment.travel[self.rooms[i], target]
            plan.append((t, ARRIVE, target))
            plan.append((t + LOOK_TICKS, LOOK, target))
            return
        if kind == "grab":
            at = mind.where[target]
            assert isinstance(at, int), "a grab is offered only for an object seen on a fixture"
            fixture = fixtures[at]
        else:
            fixture = fixtures[target]
        if fixture.room != self.rooms[i]:
            t += self.apartment.travel[self.rooms[i], fixture.room]
            plan.append((t, ARRIVE, fixture.room))
        t += APPROACH_TICKS
        if fixture.container and (kind == "check" or not mind.fixtures.get(fixture.id)):
            t += OPEN_TICKS
            plan.append((t, OPEN, fixture.id))
        if kind == "grab":
            plan.append((t + GRAB_TICKS, GRAB, (target, fixture.id, event)))
        elif kind == "put":
            carried = [o for o in self.holding[i] if self.goal_of[self.names[o]].target == target]
            for k, obj in enumerate(carried, start=1):
                plan.append((t + k * PUT_TICKS, PUT, obj))

    # ----------------------------------------------------------------- the clock
    def _run_clock(self) -> list[int]:
        """Process events in time (then seat) order until a seat is idle or the episode ends."""
        while True:
            if self.success_tick is not None:
                return self._finish("success")
            pending = self._pending()
            if pending:
                counted = [i for i in pending if self.capped_seat in (None, i)]
                if any(self.decisions[i] >= self.max_decisions for i in counted):
                    return self._finish(STALLED)
                if self.tick >= self.max_ticks:
                    return self._finish("time limit")
                return pending
            now = min(plan[0][0] for plan in self.plans)
            if now > self.max_ticks:
                self.tick = self.max_ticks
                return self._finish("time limit")
            self.tick = now
            for i, plan in enumerate(self.plans):
                while plan and plan[0][0] == now:
                    _, kind, arg = plan.popleft()
                    self._apply(i, kind, arg)

    def _finish(self, outcome: str) -> list[int]:
        self._done = True
        self.outcome = outcome
        return []

    def _apply(self, i: int, kind: int, arg: Any) -> None:
        if kind == ARRIVE:
            self.rooms[i] = arg
        elif kind == OPEN:
            self.is_open[arg] = True
        elif kind == GRAB:
            self._grab(i, *arg)
        elif kind == PUT:
            self._put(i, arg)
        if kind != IDLE:
            self._observe(i)

    def _grab(self, i: int, obj: int, at: int, event: int) -> None:
        if self.loc[obj] != at:
            self.plans[i].clear()  # taken meanwhile: the action ends without effect
            self.trace.waste(event)
            return
        if at in self.is_open:
            self.is_open[at] = True
        self.contents[at].discard(obj)
        self.loc[obj] = self.agents[i]
        self.holding[i].append(obj)
        self.minds[i].where[obj] = self.agents[i]

    def _put(self, i: int, obj: int) -> None:
        target = self.goal_of[self.names[obj]].target
        if target in self.is_open:
            self.is_open[target] = True
        self.holding[i].remove(obj)
        self.loc[obj] = target
        self.contents[target].add(obj)
        self.placed = self._placed_units()
        if self.success_tick is None and self.placed == sum(p.count for p in self.task.goal):
            self.success_tick = self.tick

    def _searched_in_vain(self, i: int, kind: str, target: int) -> bool:
        """A search of a place another seat already searched, holding no goal object out of place
        (walking to the room of a held object's target is travel, not search)."""
        others = [m for j, m in enumerate(self.minds) if j != i]
        fixtures = self.apartment.fixtures
        if kind == "explore":
            searched = any(target in m.explored for m in others)
            carrying = any(
                fixtures[self.goal_of[self.names[o]].target].room == target for o in self.holding[i]
            )
            if not searched or carrying:
                return False
            places = self.room_fixtures[target]
        else:
            if not any(target in m.checked for m in others):
                return False
            places = [target]
        return not any(self._out_of_place(o) for f in places for o in self.contents[f])

    def _out_of_place(self, obj: int) -> bool:
        goal = self.goal_of.get(self.names[obj])
        return goal is not None and self.loc[obj] != goal.target

    # ----------------------------------------------------------------- goals
    def _progress(self) -> dict[str, int]:
        """Goal objects of each predicate currently in place (capped at the count)."""
        out = {}
        for p in self.task.goal:
            here = sum(1 for o in self.contents[p.target] if self.names[o] == p.object)
            out[p.object] = min(p.count, here)
        return out

    def _placed_units(self) -> int:
        return sum(self._progress().values())

    # ----------------------------------------------------------------- seeing
    def _observe(self, i: int) -> None:
        """Refresh seat i's beliefs with everything visible in its room."""
        mind, room = self.minds[i], self.rooms[i]
        mind.explored.add(room)
        for fid in self.room_fixtures[room]:
            is_open = self.is_open.get(fid)
            if is_open is False:
                mind.see_fixture(fid, False, None)
            else:
                mind.see_fixture(fid, is_open, self.contents[fid])
                if is_open:
                    mind.checked.add(fid)
        for j, other in enumerate(self.agents):
            if j != i and self.rooms[j] == room:
                mind.see_partner(other, room, tuple(self.holding[j]), self.tick)

    def _offers(self, i: int) -> dict[str, tuple[str, Any]]:
        """Available actions of seat i (action text -> (kind, target)), in letter order.

        Built from seat i's own beliefs only, so it never names a container, object or target
        the seat has not seen itself (whatever teammates said about it); the structure's
        actions (kind ``structure``) come last.
        """
        apt, mind = self.apartment, self.minds[i]
        offers: dict[str, tuple[str, Any]] = {}
        for rid in sorted(apt.rooms):
            if rid != self.rooms[i]:
                offers[explore_action(apt, rid)] = ("explore", rid)
        for fid in sorted(mind.fixtures):
            if apt.fixtures[fid].container and fid not in mind.checked:
                offers[f"[gocheck] {apt.fixture_token(fid)}"] = ("check", fid)
        if len(self.holding[i]) < HOLD_LIMIT:
            for obj in sorted(mind.where):
                at = mind.where[obj]
                goal = self.goal_of.get(self.names[obj])
                if isinstance(at, int) and goal is not None and at != goal.target:
                    offers[f"[gograb] {token(self.names[obj], obj)}"] = ("grab", obj)
        targets = {self.goal_of[self.names[o]].target for o in self.holding[i]}
        for fid in sorted(targets):
            if fid in mind.fixtures:
                offers[f"[goput] {apt.fixture_token(fid)}"] = ("put", fid)
        if len(self.agents) > 1:
            offers[MESSAGE_ACTION] = ("message", -1)
        for action, move in self.team.offers(self.agents[i]).items():
            offers[action] = ("structure", move)
        return offers

    def _observations(self, seats) -> dict[str, Observation]:
        out = {}
        for i in seats:
            self._observe(i)
            self.offers[i] = self._offers(i)
            out[self.agents[i]] = render.observation(self, i, list(self.offers[i]))
        return out
