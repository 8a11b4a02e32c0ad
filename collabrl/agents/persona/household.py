"""Household persona: the rule-based expert's competent move, bent by the profile's temperament.

Each decision first gives the persona's impulses a chance (open the game, answer a teammate's
request, voice a doubt, hand out an instruction, hesitate, wander off, re-check a room, carry out
an accepted request); when none fires, :class:`HouseholdExpert` picks the move, honouring the
teammates' claims only if the persona is minded to and allowed to speak only if it feels
talkative. Like the expert it reads teammates' messages itself (the game does not): a request or
report sends it to look, and it can grab or check only what its own seat has seen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from collabrl.agents.persona.base import PersonaBase, Reply
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import MESSAGE_ACTION, Observation
from collabrl.envs.household.expert import ACTION, HouseholdExpert, Move, offered_moves
from collabrl.envs.household.world import token

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
ASK_GRAB = "{obj} is in {at}. Could you grab {obj}?"
ASK_EXPLORE = "Could you explore {room}? I'll cover the rest."
SPLIT = "Let's split up: I'll explore {mine}. Could you explore {yours}?"

DAWDLE_CHOICES = 2  # a dawdler wanders into one of this many nearest rooms

Offers = dict[Move, str]


def already_done(s: dict[str, Any], move: Move) -> bool:
    """A requested look this seat has had since: a room it explored, a container it checked."""
    verb, ident = move
    if verb == "explore":
        return any(r["id"] == ident and r["explored"] for r in s["rooms"])
    return verb == "check" and any(f["id"] == ident and f["checked"] for f in s["fixtures"])


def nearest_rooms(s: dict[str, Any], offered: Offers, only: set[int] | None = None) -> list[str]:
    """Offered explore actions, nearest room first (optionally only rooms in ``only``)."""
    ticks = {r["id"]: r["ticks"] for r in s["rooms"]}
    rooms = [i for v, i in offered if v == "explore" and (only is None or i in only)]
    return [offered["explore", i] for i in sorted(rooms, key=lambda i: (ticks[i], i))]


class HouseholdPersona(PersonaBase):
    """A household teammate whose play follows a profile's Big Five traits."""

    def _reset_game(self) -> None:
        self.expert = HouseholdExpert()
        self.expert.reset(self.seat, 0)
        self.answered: dict[str, int] = {}  # teammate -> tick of the request already answered
        self.tasks: list[Move] = []  # accepted requests still to carry out
        self.task_tick = -1
        self.doubted: set[int] = set()

    # ----------------------------------------------------------------- decision
    def _decide(self, obs: Observation) -> Reply:
        s = obs.state
        offered = offered_moves(obs.actions)
        self._hear(s)
        if MESSAGE_ACTION in obs.actions:
            for speak in (self._open, self._answer, self._doubt, self._chatter, self._hesitate):
                message = speak(s)
                if message:
                    return self.voice.think("Better say something first."), message, MESSAGE_ACTION
        for move in (self._dawdle, self._recheck, self._follow):
            reply = move(s, offered)
            if reply:
                return reply
        return self._competent(obs, offered)

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

    # ----------------------------------------------------------------- things to say
    def _open(self, s: dict[str, Any]) -> str | None:
        if not self.opens_now():
            return None
        rooms = sorted((r for r in s["rooms"] if not r["explored"]), key=lambda r: r["ticks"])
        if self.temperament.leads and len(rooms) >= 2:
            half = (len(rooms) + 1) // 2
            self.stats["instructions"] += 1
            return SPLIT.format(
                mine=" and ".join(token(r["name"], r["id"]) for r in rooms[:half]),
                yours=" and ".join(token(r["name"], r["id"]) for r in rooms[half:]),
            )
        return self.voice.greeting()

    def _doubt(self, s: dict[str, Any]) -> str | None:
        """Question a location known only from a teammate's report (or, rarely, the whole plan)."""
        if not self.chance(self.temperament.doubt):
            return None
        heard, seen = self.expert.hearsay, {g["id"] for g in s["goal_objects"]}
        for obj, fixture in heard.reported.items():
            if obj not in seen and obj not in self.doubted:
                self.doubted.add(obj)
                self.stats["doubts"] += 1
                at = heard.apartment.fixture_token(fixture)
                return self.voice.pick(DOUBTS).format(obj=token(heard.names[obj], obj), at=at)
        if self.chance(0.3):
            self.stats["doubts"] += 1
            return self.voice.pick(VAGUE_DOUBTS)
        return None

    def _chatter(self, s: dict[str, Any]) -> str | None:
        """Unprompted talk: a leader hands out a job, anyone else cheers the team on."""
        if not self.chance(self.temperament.chatter):
            return None
        if not self.temperament.leads:
            return self.voice.cheer()
        fixtures = {f["id"]: f for f in s["fixtures"]}
        targets = {t["target"] for t in s["goal"]}
        claims = [m for said in self.expert.hearsay.claims.values() for m in said.items]
        taken = {i for v, i in claims if v == "grab"}
        for g in s["goal_objects"]:
            f = fixtures.get(g["at"]) if isinstance(g["at"], int) else None
            free = g["id"] not in taken and g["at"] not in targets
            if f is not None and free and f["room"] != s["room"]:
                self.stats["instructions"] += 1
                obj = token(g["name"], g["id"])
                return ASK_GRAB.format(obj=obj, at=token(f["name"], f["id"]))
        claimed = {i for v, i in claims if v == "explore"}
        rooms = [r for r in s["rooms"] if not r["explored"] and r["id"] not in claimed]
        if rooms:
            far = max(rooms, key=lambda r: r["ticks"])
            self.stats["instructions"] += 1
            return ASK_EXPLORE.format(room=token(far["name"], far["id"]))
        return self.voice.cheer()

    def _hesitate(self, s: dict[str, Any]) -> str | None:
        if self.chance(self.temperament.hesitate * self.temperament.talk):
            self.stats["hesitations"] += 1
            return self.voice.hesitation()
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
            why = "My teammate asked me to do this, so I will."
            return self.voice.think(why), "", offered[step]
        return None

    def _competent(self, obs: Observation, offered: Offers) -> Reply:
        """The expert's move, seen through the persona: claims it ignores, talk it holds back."""
        s = obs.state
        view = obs
        honour = self.chance(self.temperament.comply)
        if not self.chance(self.temperament.talk):
            view = replace(view, actions=[a for a in obs.actions if a != MESSAGE_ACTION])
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
