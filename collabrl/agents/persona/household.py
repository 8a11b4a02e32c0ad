"""Household persona: the rule-based expert's competent move, bent by the profile's temperament.

Each decision first gives the persona's impulses a chance (open the game, answer a teammate's
request, voice a doubt, hand out an instruction, hesitate, wander off, re-check a room, carry out
an accepted request); when none fires, :class:`HouseholdExpert` picks the move, honouring the
teammates' claims only if the persona is minded to and allowed to speak only if it feels
talkative. Like the expert it reads teammates' messages itself (the game does not): a request or
report sends it to look, and it can grab or check only what its own seat has seen.

Requests name their teammate ("Bob, could you explore <kitchen> (11)?"); a leader's opening
split hands every teammate a share of the unexplored rooms and takes the first share itself,
which it then follows like an accepted request. Private guidance in its profile (where goal
objects are, containers to skip) guides its own search from the start; it shares the guidance
at a decision where it feels talkative. Under a collaboration structure it also does its part,
the way its temperament lets it: with a group-memory board it records its guidance under
"expertise" and its own share or next move under "responsibilities" before anything else
(the board is the team's agreed procedure), and writes coordination there instead of in
messages; as a gate owner it approves a request when it complies, denies it when it doubts,
and otherwise leaves it waiting; a leader chooses the gate owners a scaffolded team still lacks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from collabrl.agents.persona.base import PersonaBase, Reply, named
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import MESSAGE_ACTION, Observation
from collabrl.envs.household.expert import (
    ACTION,
    HouseholdExpert,
    Move,
    offered_moves,
)
from collabrl.envs.household.world import token
from collabrl.envs.opening import greets_at_first_decision
from collabrl.envs.structures import StructureView

REQUEST_TTL = 40  # ticks an accepted request stays worth carrying out
DOUBTS = (
    "Are you sure {obj} is in {at}?",
    "Wait, is {obj} really in {at}? Did you look properly?",
    "Hmm, {obj} in {at}? Can you double-check that?",
)
VAGUE_DOUBTS = (
    "Are we still on track? I keep feeling we missed something.",
    "Is this really the right plan? I'm a bit worried.",
    "Did we actually look everywhere? Please tell me we did.",
)
ASK_GRAB = "{obj} is in {at}. {name}, could you grab {obj}?"
ASK_EXPLORE = "{name}, could you explore {room}? I'll cover the rest."
SPLIT = "Let's split up: I'll explore {mine}."
SPLIT_ASK = " {name}, could you explore {rooms}?"

DAWDLE_CHOICES = 2  # a dawdler wanders into one of this many nearest rooms

Offers = dict[Move, str]


def already_done(s: dict[str, Any], move: Move) -> bool:
    """A requested look this seat has had since: a room it explored, a container it checked."""
    verb, ident = move
    if verb == "explore":
        return any(r["id"] == ident and r["explored"] for r in s["rooms"])
    return verb == "check" and any(f["id"] == ident and f["checked"] for f in s["fixtures"])


def shares(items: list[Any], people: int) -> list[list[Any]]:
    """``items`` cut into ``people`` consecutive shares, larger shares first."""
    size, extra = divmod(len(items), people)
    out, start = [], 0
    for k in range(people):
        end = start + size + (k < extra)
        out.append(items[start:end])
        start = end
    return out


def _rooms(rooms: list[dict[str, Any]]) -> str:
    return " and ".join(token(r["name"], r["id"]) for r in rooms)


def nearest_rooms(s: dict[str, Any], offered: Offers, only: set[int] | None = None) -> list[str]:
    """Offered explore actions, nearest room first (optionally only rooms in ``only``)."""
    ticks = {r["id"]: r["ticks"] for r in s["rooms"]}
    rooms = [i for v, i in offered if v == "explore" and (only is None or i in only)]
    return [offered["explore", i] for i in sorted(rooms, key=lambda i: (ticks[i], i))]


class HouseholdPersona(PersonaBase):
    """A household teammate whose play follows a profile's Big Five traits."""

    def _reset_game(self) -> None:
        self.expert = HouseholdExpert()
        guidance = self.profile.guidance
        if guidance is not None:  # it shares the guidance itself, when its temperament lets it
            self.expert.brief(guidance.found(), guidance.empty(), note="")
        self.expert.reset(self.seat, 0)
        self.secret = guidance.statement() if guidance is not None else ""
        self.answered: dict[str, int] = {}  # teammate -> tick of the request already answered
        self.tasks: list[Move] = []  # accepted requests (or its own share) still to carry out
        self.task_tick = -1
        self.doubted: set[int] = set()
        self.secret_shared = False
        self.recorded: set[str] = set()  # board sections it has written to
        self.asks = 0  # requests handed out (they go to teammates in turn)
        self.impulses = (
            self._open,
            self._record,
            self.organise,
            self._share,
            self._answer_reply,
            self._doubt,
            self._chatter,
            self._hesitate,
        )

    # ----------------------------------------------------------------- decision
    def _decide(self, obs: Observation) -> Reply:
        s = obs.state
        offered = offered_moves(obs.actions)
        self._hear(s)
        view = StructureView.of(s)
        gate = self.gatekeep(view)
        if gate:
            return gate
        if MESSAGE_ACTION in obs.actions:
            for speak in self.impulses:
                reply = speak(obs, view)
                if reply:
                    return reply
        for move in (self._dawdle, self._recheck, self._follow):
            reply = move(s, offered)
            if reply:
                return reply
        return self._competent(obs, offered, view)

    def _team(self, state: dict[str, Any]) -> tuple[str, list[str]]:
        return state["seat"], state["seats"]

    def _blunder(self, obs: Observation) -> str | None:
        """Walk into the room it already stands in: a plausible, never-offered action."""
        s = obs.state
        room = next(r for r in s["rooms"] if r["id"] == s["room"])
        return f"[goexplore] {token(room['name'], room['id'])}"

    # ----------------------------------------------------------------- listening
    def _hear(self, s: dict[str, Any]) -> None:
        """Listen to new messages and take in teammates' new requests: accept or ignore them."""
        self.expert.listen(s)
        for name, said in self.expert.hearsay.requests.items():
            if self.answered.get(name) == said.tick:
                continue
            self.answered[name] = said.tick
            if self.consider_request():
                self.tasks = list(said.items)
                self.task_tick = s["tick"]

    # ----------------------------------------------------------------- structure duties
    def _record(self, obs: Observation, view: StructureView | None) -> Reply | None:
        """The board's build phase: its private knowledge under "expertise", then its next move
        under "responsibilities" (once each)."""
        if view is None or not view.has_board:
            return None
        if self.secret and "expertise" not in self.recorded:
            self.secret_shared = True
            return self._write(view, "expertise", self.secret)
        if "responsibilities" not in self.recorded:
            claim = self.expert.intent(obs)
            return self._write(view, "responsibilities", claim) if claim else None
        return None

    def _share(self, obs: Observation, view: StructureView | None) -> Reply | None:
        """Tell the team its private knowledge, once, at a decision where it feels talkative."""
        if not self.secret or self.secret_shared or not self.chance(self.temperament.talk):
            return None
        self.secret_shared = True
        return self._say(view, "expertise", self.secret, False)

    def _write(self, view: StructureView, section: str, text: str) -> Reply:
        self.recorded.add(section)
        return self.voice.think("Let me put this on the board."), text, view.update[section]

    def _say(
        self, view: StructureView | None, section: str, message: str, coordination: bool
    ) -> Reply:
        """Coordination goes to the board when there is one; everything else is a message."""
        if coordination and view is not None and view.has_board:
            return self._write(view, section, message)
        return self.voice.think("Better say something first."), message, MESSAGE_ACTION

    # ----------------------------------------------------------------- things to say
    def _open(self, obs: Observation, view: StructureView | None) -> Reply | None:
        if not self.opens_now():
            return None
        s = obs.state
        rooms = sorted((r for r in s["rooms"] if not r["explored"]), key=lambda r: r["ticks"])
        teammates = [seat for seat in s["seats"] if seat != s["seat"]]
        if not (self.temperament.leads and len(rooms) >= 2):
            if not greets_at_first_decision(s):  # the seeded exchange (or none) opened it
                return None
            return self._say(view, "responsibilities", self.voice.greeting(), False)
        cut = shares(rooms, 1 + len(teammates))
        self.tasks, self.task_tick = [("explore", r["id"]) for r in cut[0]], s["tick"]
        split = SPLIT.format(mine=_rooms(cut[0]))
        for name, share in zip(teammates, cut[1:], strict=True):
            if share:
                split += named(SPLIT_ASK, name, len(teammates), rooms=_rooms(share))
        self.stats["instructions"] += 1
        return self._say(view, "responsibilities", split, True)

    def _answer_reply(self, obs: Observation, view: StructureView | None) -> Reply | None:
        message = PersonaBase._answer(self, obs.state)
        return self._say(view, "responsibilities", message, False) if message else None

    def _doubt(self, obs: Observation, view: StructureView | None) -> Reply | None:
        """Question a location known only from a teammate's report (or, rarely, the whole plan)."""
        if not self.chance(self.temperament.doubt):
            return None
        s = obs.state
        heard, seen = self.expert.hearsay, {g["id"] for g in s["goal_objects"]}
        for obj, fixture in heard.reported.items():
            if obj not in seen and obj not in self.doubted and obj not in self.expert.found:
                self.doubted.add(obj)
                self.stats["doubts"] += 1
                at = heard.apartment.fixture_token(fixture)
                doubt = self.voice.phrase(DOUBTS).format(obj=token(heard.names[obj], obj), at=at)
                return self._say(view, "evidence", doubt, False)
        if self.chance(0.3):
            self.stats["doubts"] += 1
            return self._say(view, "evidence", self.voice.phrase(VAGUE_DOUBTS), False)
        return None

    def _chatter(self, obs: Observation, view: StructureView | None) -> Reply | None:
        """Unprompted talk: a leader hands a job to a teammate (each in turn), anyone else cheers
        the team on."""
        if not self.chance(self.temperament.chatter):
            return None
        if not self.temperament.leads:
            return self._cheer(view)
        ask = self._instruction(obs.state)
        return self._say(view, "responsibilities", ask, True) if ask else self._cheer(view)

    def _cheer(self, view: StructureView | None) -> Reply | None:
        cheer = self.voice.cheer()
        return self._say(view, "plan", cheer, False) if cheer else None

    def _instruction(self, s: dict[str, Any]) -> str | None:
        """A job for the next teammate in turn: a goal object it could grab, else a room."""
        teammates = [seat for seat in s["seats"] if seat != s["seat"]]
        name = teammates[self.asks % len(teammates)]
        fixtures = {f["id"]: f for f in s["fixtures"]}
        targets = {t["target"] for t in s["goal"]}
        claims = [m for said in self.expert.hearsay.claims.values() for m in said.items]
        taken = {i for v, i in claims if v == "grab"}
        for g in s["goal_objects"]:
            f = fixtures.get(g["at"]) if isinstance(g["at"], int) else None
            free = g["id"] not in taken and g["at"] not in targets
            if f is not None and free and f["room"] != s["room"]:
                self.stats["instructions"] += 1
                self.asks += 1
                obj = token(g["name"], g["id"])
                at = token(f["name"], f["id"])
                return named(ASK_GRAB, name, len(teammates), obj=obj, at=at)
        claimed = {i for v, i in claims if v == "explore"}
        rooms = [r for r in s["rooms"] if not r["explored"] and r["id"] not in claimed]
        if rooms:
            far = max(rooms, key=lambda r: r["ticks"])
            self.stats["instructions"] += 1
            self.asks += 1
            room = token(far["name"], far["id"])
            return named(ASK_EXPLORE, name, len(teammates), room=room)
        return None

    def _hesitate(self, obs: Observation, view: StructureView | None) -> Reply | None:
        if self.chance(self.temperament.hesitate * self.temperament.talk):
            self.stats["hesitations"] += 1
            return self._say(view, "plan", self.voice.hesitation(), False)
        return None

    # ----------------------------------------------------------------- moves
    def _dawdle(self, s: dict[str, Any], offered: Offers) -> Reply | None:
        """Wander into a nearby room for no good reason (a silent hesitation looks the same).

        Nearby: a detour costs a similar few steps in a small flat and in a large house.
        """
        t = self.temperament
        if not self.chance(t.dawdle + t.hesitate * (1 - t.talk)):
            return None
        rooms = nearest_rooms(s, offered)[:DAWDLE_CHOICES]
        if not rooms:
            return None
        self.stats["dawdles"] += 1
        action = self.voice.pick(rooms)
        return self.voice.think("Let me just wander over there first."), "", action

    def _recheck(self, s: dict[str, Any], offered: Offers) -> Reply | None:
        """Go back to a room already seen, in case something was missed."""
        if not self.chance(self.temperament.recheck):
            return None
        seen = {r["id"] for r in s["rooms"] if r["explored"]}
        again = nearest_rooms(s, offered, only=seen)
        if not again:
            return None
        self.stats["rechecks"] += 1
        return self.voice.think("I'd better look there again, just in case."), "", again[0]

    def _follow(self, s: dict[str, Any], offered: Offers) -> Reply | None:
        """Work on an accepted request while it is fresh: do it when it is on offer, otherwise
        take the first step toward it (walk to the room where the thing should be)."""
        if s["tick"] - self.task_tick > REQUEST_TTL:
            self.tasks = []
        self.tasks = [task for task in self.tasks if not already_done(s, task)]
        for task in list(self.tasks):
            step = self.expert.toward(s, task)
            if step not in offered:
                continue
            if step == task:
                self.tasks.remove(task)
            self.honour()
            why = "That's what we agreed, so I'll do it."
            return self.voice.think(why), "", offered[step]
        return None

    def _competent(self, obs: Observation, offered: Offers, board: StructureView | None) -> Reply:
        """The expert's move, seen through the persona: claims it ignores, talk it holds back
        (messages and board entries alike)."""
        s = obs.state
        view = obs
        honour = self.chance(self.temperament.comply)
        if not self.chance(self.temperament.talk):
            quiet = set(board.update.values()) if board is not None else set()
            quiet.add(MESSAGE_ACTION)
            view = replace(view, actions=[a for a in obs.actions if a not in quiet])
        parsed = parse_observed(self.expert.reply(view, honour_claims=honour), view)
        action = parsed.action or next(iter(offered.values()), MESSAGE_ACTION)
        if action == MESSAGE_ACTION:
            return self.voice.think(parsed.think), self.voice.decorate(parsed.message), action
        return self.voice.think(parsed.think), parsed.message, self._taste(s, offered, action)

    def _taste(self, s: dict[str, Any], offered: Offers, action: str) -> str:
        """Openness: swap a search step for an unexplored room (curious) or a known one (routine)."""
        novelty = self.temperament.novelty
        m = ACTION.match(action)
        if not m or m.group(1) not in ("check", "explore") or not self.chance(abs(novelty)):
            return action
        explored = {r["id"]: r["explored"] for r in s["rooms"]}
        room_of = {f["id"]: f["room"] for f in s["fixtures"]}
        if novelty > 0:
            fresh = [a for (v, i), a in offered.items() if v == "explore" and not explored[i]]
            return fresh[0] if fresh else action
        known = [
            a for (v, i), a in offered.items() if v == "check" and explored.get(room_of.get(i))
        ]
        return known[0] if known else action
