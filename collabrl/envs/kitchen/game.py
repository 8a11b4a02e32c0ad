"""Cook-MultiPlayer: the seat-level kitchen game (skills over ticks, asynchronous decisions, chat).

Implements :class:`collabrl.envs.base.Game`. Each seat picks a skill when idle; the skill runs
tick by tick until it succeeds or becomes impossible (or, in the cooperative motion layer, stays
blocked too long), and then the seat is asked again. ``wait(N)`` (1 <= N <= 20; offered as the
single entry ``wait(x)``) idles N ticks, ``set_message()`` costs one tick and broadcasts the
decision's message. A missing, unknown or unavailable action, or ``set_message()`` with an empty
message, idles the seat for one tick and is flagged ``invalid`` in that seat's infos; a usable
action from a reply flagged invalid (``Decision.valid`` False) runs and is counted invalid too.
``step`` after the horizon raises ``RuntimeError`` (call ``reset``), as in every collabrl game.

How running skills move the chefs is the ``motion`` option (see
:mod:`collabrl.envs.kitchen.motion`). ``"reference"``, the default, is the paper's: the
ProAgent skill controller that CollabBench evaluates with, where chefs follow shortest paths, may
block each other indefinitely, shuffle at random while waiting, and have the paper's skill set.
``"cooperative"`` is ours: reserved paths, stepping aside, random unstuck steps, giving up after
a long blocking, and an extra ``pickup(soup)`` skill; chefs sharing a floor (cramped_room,
coordination_ring, counter_circuit) then never lose an episode to a blocking, which the paper's
analysis of coordination failures relies on.

Collaboration structures (``structure``, :mod:`collabrl.envs.structures`) work as in the
household game, worded as skills: ``update_memory(<section>)``, ``approve(N)``, ``deny(N)``,
``assign_gate(<skill>, <seat>)``; the ``gated`` skills (default ``deliver_soup()``) of anyone but
their owner file a request instead of running. The process trace (``summary()["trace"]``)
records every skill started as ``work`` on its job (onion, dish or counter; a subgoal is a job
within one soup cycle, counted by soups delivered), wasted when it ended impossible (a teammate
did it first) or blocked; messages, board entries and gate events; a voluntary ``wait`` is not
recorded.

``tick_listeners`` are called with the game after every tick (several run inside one ``step``):
the hook through which :mod:`collabrl.envs.kitchen.board` draws each tick for people and
:mod:`collabrl.envs.kitchen.likeness` records play (``last_moves``: the tick's joint low-level
action). They are
kept across ``reset``.

What a seat is offered and shown follows the released ProAgent code where the paper is silent:
``holdings="released"`` (the default) hides teammates' held items on forced_coordination
(``"always"`` shows them); ``action_set="paper"`` (the default) offers ``wait(x)`` on every layout,
as the paper lists it among the Cook skills, and ``"released"`` leaves it out on cramped_room and
counter_circuit as the released evaluation agent's action table does (a wait chosen there is an
action not offered). The chat opens empty (``opening="none"``, as the paper's Cook prompts and the
released code's "no previous chat messages"); ``"seeded"`` starts it with a household-style
two-line exchange at tick 0 and ``"first_decision"`` has simulated players greet at their first
decision (:mod:`collabrl.envs.opening`).

``motion_seats`` play at the motion level: each tick they are offered the six low-level actions
(``north``, ``south``, ``east``, ``west``: walk, or turn where the cell is not free; ``stay``;
``interact`` with the tile faced) and their observation's ``state`` carries the whole kitchen
(``frame``: positions, facings, items, as the board draws it). Why: a partner learnt from people
per tick (the human proxy) must move as people did, not through a skill controller's paths and
blockings; the other seats keep their skills and motion layer.

Version: 2 (``VERSION``), bumped whenever a rule or number changes what a seed plays (2:
teammates' holdings hidden on forced_coordination by default).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from collabrl.envs.base import (
    EMPTY_MESSAGE,
    Decision,
    Observation,
    StepResult,
    message_text,
)
from collabrl.envs.kitchen.engine import ACTIONS, MOVES, KitchenEngine
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.motion import Intent, make_motion
from collabrl.envs.kitchen.planner import Planner
from collabrl.envs.kitchen.render import (
    anchor_key,
    build_state,
    reach_kinds,
    render_text,
    shows_holdings,
    state_frame,
)
from collabrl.envs.kitchen.skills import (
    DELIVER,
    JOBS,
    REFERENCE_SKILLS,
    SET_MESSAGE,
    WAIT,
    SkillBook,
    offers_wait,
    parse_timed,
)
from collabrl.envs.opening import Opening, seeded_lines, visible_dialogue
from collabrl.envs.structures import (
    BOARD_TICKS,
    EMPTY_ENTRY,
    REQUEST_TICKS,
    WAIT_TICKS,
    Structure,
    Structures,
    Trace,
    Vocabulary,
)

VERSION = 2  # the rules version (see the module docstring)
EVAL_HORIZON, TRAIN_HORIZON = 400, 150
OPENING_GREETING = (  # opening="seeded": the household's exchange in kitchen terms (an option)
    "Hi, I'll tell you what I'm working on and when a soup is ready, and I'll ask for your help "
    "when I need it."
)
OPENING_REPLY = (
    "Thanks! I'll tell you too what I'm working on and when a soup is ready, and ask for your "
    "help when I need it."
)
GATEABLE = (*REFERENCE_SKILLS, "pickup(soup)")  # skills a gate may cover
DEFAULT_GATED = (DELIVER,)  # serving a soup: the team's consequential step
WORDS = Vocabulary(
    update="update_memory({section})",
    approve="approve({id})",
    deny="deny({id})",
    assign="assign_gate({kind}, {seat})",
    kind="{kind}",
)


@dataclass
class Activity:
    """What a seat is doing: a movement skill, or a timed wait / message / idle."""

    label: str  # as shown to partners, e.g. "pickup(onion)" or "wait(5)"
    skill: str | None = None  # movement skill name; None for timed activities
    ticks_left: int = 0
    stuck: int = 0  # walking moves in a row that went nowhere
    event: int | None = None  # its work event in the process trace (a movement skill)
    move: str | None = None  # a motion seat's low-level action for this one tick


class KitchenGame:
    """Two (or more) chefs on an Overcooked layout, deciding at their own pace."""

    name = "kitchen"

    def __init__(
        self,
        layout: str = "cramped_room",
        *,
        horizon: int = EVAL_HORIZON,
        cook_mode: str = "auto",
        motion: str = "reference",
        seats: list[str] | None = None,
        chat_window: int = 5,
        structure: Structure = "default",
        gated: tuple[str, ...] | list[str] = DEFAULT_GATED,
        gate_owners: Mapping[str, str] | None = None,
        action_set: str = "paper",
        holdings: str = "released",
        opening: Opening = "none",
        motion_seats: tuple[str, ...] | list[str] = (),
    ) -> None:
        self.layout = load_layout(layout)
        self.action_set, self.holdings = action_set, holdings
        self.wait_offered = offers_wait(self.layout.name, action_set)
        self.partner_holdings = shows_holdings(self.layout.name, holdings)
        n = len(self.layout.starts)
        self.agents = list(seats) if seats else [f"Player {i}" for i in range(n)]
        if len(self.agents) != n or len(set(self.agents)) != n:
            raise ValueError(f"layout {layout!r} needs {n} distinct seat names, got {self.agents}")
        unknown = [k for k in gated if k not in GATEABLE]
        if unknown:
            raise ValueError(f"gated: unknown skill(s) {unknown}; skills: {GATEABLE}")
        strangers = [s for s in motion_seats if s not in self.agents]
        if strangers:
            raise ValueError(f"motion_seats: no seat {strangers[0]!r}; seats: {self.agents}")
        self.motion_seats = tuple(s for s in self.agents if s in motion_seats)
        self._motion_indices = frozenset(self.agents.index(s) for s in self.motion_seats)
        self.structure, self.gated = structure, tuple(gated)
        self.gate_owners = dict(gate_owners or {})
        self.engine = KitchenEngine(self.layout, cook_mode=cook_mode)
        self.planner = Planner(self.layout)
        self.motion = make_motion(motion, self.layout, self.planner)
        self.skills = SkillBook(self.engine, self.planner, self.motion.skills)
        self.horizon = horizon
        self.opening = opening
        self.chat_window = chat_window
        self.message_action = SET_MESSAGE
        self.tick_listeners: list[Callable[[KitchenGame], None]] = []
        self.last_moves: list[str] = []  # the joint low-level action of the latest tick
        self.reset(0)

    # ----------------------------------------------------------------- Game protocol
    @property
    def tick(self) -> int:
        return self.state.tick

    @property
    def done(self) -> bool:
        return self.state.tick >= self.horizon

    @property
    def progress(self) -> int:
        """Soups served so far (the unit of the optional progress reward)."""
        return self.delivered

    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start an episode; every seat is pending. ``seed`` None means 0 (reproducible)."""
        self.seed = 0 if seed is None else seed
        self.rng = random.Random(self.seed)
        self.state = self.engine.start_state()
        self.activities: list[Activity | None] = [None] * len(self.agents)
        self.opening_lines = (
            seeded_lines(self.agents, OPENING_GREETING, OPENING_REPLY)
            if self.opening == "seeded"
            else []
        )
        self.chat: list[tuple[int, str, str]] = list(self.opening_lines)
        self.delivered = 0
        self.counts = {
            k: dict.fromkeys(self.agents, 0) for k in ("decisions", "invalid", "messages")
        }
        self._offered: dict[int, list[str]] = {}
        self._moves: dict[int, dict[str, Any]] = {}
        self.team = Structures(self.structure, self.agents, WORDS, self.gated, self.gate_owners)
        self.trace = Trace()
        return self._observations()

    def step(self, decisions: Mapping[str, Decision | None]) -> StepResult:
        """Apply one decision per pending seat, then run ticks until a seat is pending again."""
        if self.done:
            raise RuntimeError("episode is over; call reset()")
        infos: dict[str, dict[str, Any]] = {seat: {} for seat in self.agents}
        for i, seat in enumerate(self.agents):
            if self.activities[i] is None:
                infos[seat].update(self._start(i, decisions.get(seat)))
            elif decisions.get(seat) is not None:
                infos[seat]["ignored"] = True  # not this seat's turn
        points = 0
        while True:
            points += self._tick(infos)
            if self.done or None in self.activities:
                break
        return self._result(self._observations(), points, infos)

    def intro(self, seat: str) -> str:
        """Rules of the kitchen for ``seat``, written for a player's prompt."""
        me = self.agents.index(seat)
        others = " and ".join(s for s in self.agents if s != seat)
        start = (
            "Once a pot holds 3 onions it starts cooking by itself"
            if self.engine.cook_mode == "auto"
            else "A pot with 3 onions starts cooking when someone empty-handed uses start_cooking()"
        )
        reach = reach_kinds(self.layout, self.planner.reachable_tiles(self.layout.starts[me]))
        lines = [
            f"You are {seat}, a chef in an Overcooked kitchen ({self.layout.name}) working with "
            f"{others}. Together you earn points by serving onion soups within "
            f"{self.horizon} timesteps.",
            f"A soup needs exactly 3 onions in a pot. {start}; cooking takes "
            f"{self.engine.cook_time} timesteps. Then fill a dish with the soup "
            f"(pickup(dish), fill_dish_with_soup()) and serve it (deliver_soup()) for "
            f"{self.engine.soup_value} points.",
            "A chef holds one item at a time; place_obj_on_counter() puts it down on a free "
            "counter, preferring one your partner can reach.",
            "Skills walk by themselves: you never choose movements. You are asked again when your "
            f"skill is finished or has become impossible{self._blocked_note()}.",
            (
                "wait(x) idles x timesteps (write a number from 1 to 20, e.g. wait(3)). "
                if self.wait_offered
                else ""
            )
            + "set_message() spends one timestep and sends your message to every teammate.",
        ]
        if seat in self.motion_seats:
            lines.append(
                "You move yourself one timestep at a time: north, south, east or west walks one "
                "cell (or turns you that way where the cell is not free), stay waits, interact "
                "uses the tile you face."
            )
        if len(reach) < 4:
            lines.append(
                f"You can only reach: {', '.join(reach)}. Pass items to your partner over the "
                "counters between you."
            )
        return "\n".join([*lines, *self.team.intro(seat)])

    def summary(self) -> dict[str, Any]:
        """Score, soups delivered, ticks and per-seat decision / invalid / message counts."""
        return {
            "layout": self.layout.name,
            "cook_mode": self.engine.cook_mode,
            "motion": self.motion.name,
            "action_set": self.action_set,
            "holdings": self.holdings,
            "opening": self.opening,
            "motion_seats": list(self.motion_seats),
            "seed": self.seed,
            "score": self.state.score,
            "soups_delivered": self.delivered,
            "ticks": self.state.tick,
            "horizon": self.horizon,
            **{k: dict(v) for k, v in self.counts.items()},
            "chat": [{"tick": t, "seat": s, "text": m} for t, s, m in self.chat],
            **self.team.summary(),
            "trace": self.trace.records(),
        }

    # ----------------------------------------------------------------- decisions
    def offered(self, index: int) -> list[str]:
        """Actions offered to seat ``index`` now: legal movement skills, wait(x) (unless the
        action set leaves it out here), set_message(), then the collaboration structure's
        actions."""
        if index in self._motion_indices:
            return list(ACTIONS)
        structure = self.team.offers(self.agents[index])
        wait = [WAIT] if self.wait_offered else []
        return [*self.skills.legal(self.state, index), *wait, SET_MESSAGE, *structure]

    def _start(self, i: int, decision: Decision | None) -> dict[str, Any]:
        """Count seat i's decision and begin it. A usable action from a reply flagged invalid
        (e.g. a missing tag) still runs but counts as invalid, as in every collabrl game."""
        seat = self.agents[i]
        self.counts["decisions"][seat] += 1
        info = self._begin(i, decision)
        if not info["invalid"] and decision is not None and not decision.valid:
            self.counts["invalid"][seat] += 1
            info["invalid"] = True
        return info

    def _begin(self, i: int, decision: Decision | None) -> dict[str, Any]:
        """Start seat i's activity for its decision, or idle it one tick if unusable."""
        seat = self.agents[i]
        action = (decision.action or "").strip() if decision else ""
        offered = self._offered.pop(i, None) or self.offered(i)
        if i in self._motion_indices:
            if action not in offered:
                return self._idle_invalid(i, f"not available: {action!r}")
            self.activities[i] = Activity(action, ticks_left=1, move=action)
            return {"invalid": False, "action": action}
        timed = parse_timed(action)
        text = message_text(decision.message) if decision else ""
        if timed is not None and timed[0] == "message" and not text:
            return self._idle_invalid(i, EMPTY_MESSAGE)
        if timed is not None and timed[0] == "wait" and WAIT not in offered:
            return self._idle_invalid(i, f"not available: {action!r}")
        if timed is not None:
            kind, ticks = timed
            self.activities[i] = Activity(action, ticks_left=ticks)
            if kind == "message":
                self.chat.append((self.state.tick, seat, text))
                self.counts["messages"][seat] += 1
                self.trace.add(self.state.tick, seat, "message", text=text)
                return {"invalid": False, "action": action, "message_sent": True}
            return {"invalid": False, "action": action}
        moves = self._moves.pop(i, None) or self.team.offers(seat)
        if action in moves:
            if self.team.needs_text(moves[action]) and not text:
                return self._idle_invalid(i, EMPTY_ENTRY)
            kind, target = self.team.apply(seat, moves[action], text, self.state.tick)
            self.activities[i] = Activity(action, ticks_left=BOARD_TICKS)
            self.trace.add(self.state.tick, seat, kind, target, text if kind == "board" else "")
            return {"invalid": False, "action": action}
        if action in offered:
            return self._skill(i, action)
        return self._idle_invalid(i, f"not available: {action!r}")

    def _skill(self, i: int, skill: str) -> dict[str, Any]:
        """Start a movement skill, unless a gate holds it (a request filed, or a blocked wait)."""
        seat, tick = self.agents[i], self.state.tick
        verdict = self.team.gate(seat, skill, skill, tick)
        job = JOBS[skill]
        if verdict in ("request", "wait"):
            ticks = REQUEST_TICKS if verdict == "request" else WAIT_TICKS
            self.activities[i] = Activity(f"{skill} (awaiting approval)", ticks_left=ticks)
            self.trace.add(tick, seat, verdict, job)
            return {"invalid": False, "action": skill, "gate": verdict}
        event = self.trace.work(tick, seat, job, instance=f"{job}#{self.delivered}")
        self.activities[i] = Activity(skill, skill=skill, event=event)
        gate = {} if verdict == "free" else {"gate": verdict}
        return {"invalid": False, "action": skill, **gate}

    def _idle_invalid(self, i: int, reason: str) -> dict[str, Any]:
        """An unusable decision: the seat idles one tick and the decision counts as invalid."""
        self.counts["invalid"][self.agents[i]] += 1
        self.activities[i] = Activity("idle", ticks_left=1)
        self.trace.add(self.state.tick, self.agents[i], "invalid")
        return {"invalid": True, "action": None, "reason": reason}

    # ----------------------------------------------------------------- ticks
    def _tick(self, infos: dict[str, dict[str, Any]]) -> int:
        chefs = self.state.chefs
        intents = [self._intent(i) for i in range(len(chefs))]
        moves = self.motion.moves(self.state, intents, self.rng)
        for i, activity in enumerate(self.activities):
            if activity is not None and activity.move is not None:
                moves[i] = (activity.move, activity.move in MOVES)
        before = [c.pos for c in chefs]
        self.last_moves = [a for a, _ in moves]
        points = self.engine.step(self.state, self.last_moves)
        self.delivered += points // self.engine.soup_value
        for i, activity in enumerate(self.activities):
            assert activity is not None
            moved = chefs[i].pos != before[i]
            activity.stuck = activity.stuck + 1 if moves[i][1] and not moved else 0
            ended = self._ended(i, activity)
            if ended:
                self.activities[i] = None
                infos[self.agents[i]].setdefault("ended", []).append((activity.label, ended))
                if ended != "done" and activity.event is not None:
                    self.trace.waste(activity.event)
        for listener in self.tick_listeners:
            listener(self)
        return points

    def _intent(self, i: int) -> Intent:
        """What seat ``i``'s activity asks of the motion layer: its skill's tiles, or none."""
        activity = self.activities[i]
        assert activity is not None  # every seat has started an activity before ticks run
        if activity.skill is None:
            return Intent(None, activity.stuck)
        return Intent(self.skills.targets(activity.skill, self.state, i), activity.stuck)

    def _ended(self, i: int, activity: Activity) -> str | None:
        """Why the activity is over after this tick, or None while it goes on."""
        if activity.skill is None:
            activity.ticks_left -= 1
            return "done" if activity.ticks_left <= 0 else None
        if self.skills.done(activity.skill, self.state, i):
            return "done"
        if not self.skills.targets(activity.skill, self.state, i):
            return "impossible"
        give_up = self.motion.give_up_after
        if give_up is not None and activity.stuck >= give_up:
            return "blocked"
        return None

    def _blocked_note(self) -> str:
        """The intro's word on skills ending because they are blocked (cooperative layer only)."""
        if self.motion.give_up_after is None:
            return ""
        return " (or has been blocked for a while)"

    # ----------------------------------------------------------------- observations
    def _observations(self) -> dict[str, Observation]:
        if self.done:
            return {}
        return {
            self.agents[i]: self._observe(i)
            for i, activity in enumerate(self.activities)
            if activity is None
        }

    def final_observation(self, seat: str) -> Observation:
        """What ``seat`` sees once the episode is over (the optional contract method the pages'
        final view uses): the finished kitchen and score, and no actions."""
        return self._observe(self.agents.index(seat), final=True)

    def _observe(self, i: int, final: bool = False) -> Observation:
        actions = [] if final else self.offered(i)
        if not final:
            self._offered[i] = actions
            self._moves[i] = self.team.offers(self.agents[i])
        view = build_state(
            layout=self.layout,
            state=self.state,
            seat=i,
            names=self.agents,
            skills=[a.label if a else None for a in self.activities],
            reach=[
                reach_kinds(self.layout, self.planner.reachable_tiles(c.pos))
                for c in self.state.chefs
            ],
            cook_time=self.engine.cook_time,
            horizon=self.horizon,
            soups_delivered=self.delivered,
            chat=visible_dialogue(self.chat, len(self.opening_lines), self.chat_window),
            partner_holdings=self.partner_holdings,
        )
        view["actions"] = actions
        view["opening"] = self.opening  # whether simulated players greet (not in the anchor)
        if i in self._motion_indices:
            view["frame"] = state_frame(self.state)
        anchor = anchor_key(view)
        if self.team.active:
            view["structure"] = self.team.view(self.agents[i])
            anchor = (*anchor, self.team.anchor(self.agents[i]))
        return Observation(
            seat=self.agents[i],
            tick=self.state.tick,
            text=render_text(view, actions, self.team.lines(self.agents[i])),
            actions=actions,
            anchor=anchor,
            state=view,
            message_action=self.message_action,
        )

    def _result(
        self, observations: dict[str, Observation], points: int, infos: dict[str, dict[str, Any]]
    ) -> StepResult:
        done = self.done
        for info in infos.values():
            info["tick"] = self.state.tick
        return StepResult(
            observations=observations,
            rewards=dict.fromkeys(self.agents, float(points)),
            terminations=dict.fromkeys(self.agents, False),
            truncations=dict.fromkeys(self.agents, done),
            infos=infos,
        )
