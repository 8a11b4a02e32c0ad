"""Kitchen persona: the rule-based kitchen expert's move, bent by the profile's temperament.

Impulses come first (open the game, answer a teammate's request, voice a doubt, hand out a job,
stall with a wait, fumble); then an accepted job (onions or dishes) is preferred while it is
fresh; otherwise :meth:`KitchenExpert.choose` picks the move and openness decides whether the
persona tries the other job now and then (curious) or sticks to its last one (routine).
Requests name the teammate they are for. Under a collaboration structure it keeps gates the way
its temperament lets it (:meth:`PersonaBase.gatekeep`), a leader chooses the gate owners a
scaffolded team lacks, and with a group-memory board its opening plan goes on the board under
"responsibilities".
"""

from __future__ import annotations

from typing import Any

from collabrl.agents.persona.base import PersonaBase, Reply, named
from collabrl.agents.persona.kitchen_chat import jobs_for_listener
from collabrl.envs.base import Observation
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.skills import (
    DELIVER,
    FILL_DISH,
    PICKUP_DISH,
    PICKUP_ONION,
    PUT_ONION,
    REFERENCE_SKILLS,
    SET_MESSAGE,
)
from collabrl.envs.opening import greets_at_first_decision
from collabrl.envs.structures import StructureView

JOB_TTL = 60  # ticks an accepted job stays preferred
ASK_GAP = 30  # ticks before a leader repeats the same instruction
PICKUPS = {"onion": PICKUP_ONION, "dish": PICKUP_DISH}
DOUBTS = (
    "Are you sure that pot is cooking? It doesn't look right to me.",
    "Is anyone watching the soup? I'm worried we'll miss it.",
    "Did that onion actually go in? Can you check?",
    "Should I be doing something else? Tell me if I'm in your way.",
    "Are we fast enough? I feel like we're falling behind.",
)
SPLIT = (
    "Let's split it: {name}, you handle the onions, and I'll take care of the dishes and serving."
)
SPLIT_FAR = (
    "I can't reach everything, so I'll pass things over the counter. {name}, please keep cooking."
)
ASKS = {
    "dish": (
        "{name}, could you grab a dish for the soup?",
        "{name}, please get a dish ready, the soup is close.",
    ),
    "onion": (
        "{name}, can you keep bringing onions?",
        "{name}, please put more onions in the pot.",
    ),
}
NARRATION = {
    PICKUP_ONION: "Getting an onion.",
    PUT_ONION: "Onion going in.",
    PICKUP_DISH: "Fetching a dish.",
    FILL_DISH: "Filling a dish.",
    DELIVER: "Serving this one!",
}


class KitchenPersona(PersonaBase):
    """A kitchen teammate whose play follows a profile's Big Five traits."""

    def _reset_game(self) -> None:
        self.expert = KitchenExpert(greet=False)
        self.expert.reset(self.seat, 0)
        self.heard: set[tuple[int, str, str]] = set()
        self.job: str | None = None
        self.job_tick = -JOB_TTL
        self.last_pickup: str | None = None
        self.asked: dict[str, int] = {}  # job -> tick a leader last asked for it

    # ----------------------------------------------------------------- decision
    def _decide(self, obs: Observation) -> Reply:
        v, actions = obs.state, obs.actions
        self._hear(v)
        view = StructureView.of(v)
        duty = self.gatekeep(view) or self.organise(obs, view)
        if duty:
            return duty
        if SET_MESSAGE in actions:
            for speak in (self._open, self._answer, self._doubt, self._chatter):
                message = speak(v)
                if message:
                    said = SET_MESSAGE
                    if speak == self._open and view is not None and view.has_board:
                        said = view.update["responsibilities"]
                    return self.voice.think("Better say something first."), message, said
        for move in (self._stall, self._follow):
            reply = move(v, actions)
            if reply:
                return reply
        return self._competent(v, actions)

    def _team(self, state: dict[str, Any]) -> tuple[str, list[str]]:
        chefs = sorted([state["self"], *state["partners"]], key=lambda c: c["index"])
        return state["self"]["name"], [c["name"] for c in chefs]

    def _blunder(self, obs: Observation) -> str | None:
        """A real skill that is not available now, or a wait longer than the rules allow."""
        missing = [s for s in REFERENCE_SKILLS if s not in obs.actions]
        return self.voice.pick(missing) if missing else "wait(30)"

    # ----------------------------------------------------------------- listening
    def _hear(self, v: dict[str, Any]) -> None:
        """Take in teammates' new chat lines: accept (agreeable) or ignore the job they hand over."""
        for line in v["chat"]:
            key = (line["tick"], line["seat"], line["text"])
            if key in self.heard or line["seat"] == v["self"]["name"]:
                continue
            self.heard.add(key)
            jobs = jobs_for_listener(line["text"])
            if not jobs:
                continue
            if jobs[0] == self.job:  # the job it already does: a reminder, not a new request
                self.job_tick = v["tick"]
                continue
            if self.consider_request():
                self.job, self.job_tick = jobs[0], v["tick"]

    # ----------------------------------------------------------------- things to say
    def _open(self, v: dict[str, Any]) -> str | None:
        if not self.opens_now():
            return None
        if self.temperament.leads:
            self.stats["instructions"] += 1
            split = SPLIT if len(v["self"]["can_reach"]) == 4 else SPLIT_FAR
            partners = [p["name"] for p in v["partners"]]
            return named(split, " and ".join(partners), len(partners))
        if not greets_at_first_decision(v):  # the seeded exchange (or none) opened the chat
            return None
        return self.voice.greeting()

    def _doubt(self, v: dict[str, Any]) -> str | None:
        if not self.chance(self.temperament.doubt * 0.4):
            return None
        self.stats["doubts"] += 1
        return self.voice.phrase(DOUBTS)

    def _chatter(self, v: dict[str, Any]) -> str | None:
        """Unprompted talk: a leader asks for the job most needed, others narrate or cheer."""
        if not self.chance(self.temperament.chatter):
            return None
        if not self.temperament.leads:
            return self.voice.cheer()
        soon = any(p["status"] in ("cooking", "ready", "full") for p in v["pots"])
        job = "dish" if soon else "onion"
        busy = any(p["held"] == job or p["skill"] == PICKUPS[job] for p in v["partners"])
        if busy or self.asked.get(job, -ASK_GAP) > v["tick"] - ASK_GAP:
            return self.voice.cheer()
        self.asked[job] = v["tick"]
        self.stats["instructions"] += 1
        partners = [p["name"] for p in v["partners"]]
        return named(self.voice.phrase(ASKS[job]), " and ".join(partners), len(partners))

    # ----------------------------------------------------------------- moves
    def _stall(self, v: dict[str, Any], actions: list[str]) -> Reply | None:
        """Hesitate (nerves) or dawdle (low conscientiousness): idle a few ticks."""
        t = self.temperament
        if self.chance(t.hesitate):
            self.stats["hesitations"] += 1
            ticks, why = self.rng.randint(2, 5), "I'm not sure yet; let me watch for a moment."
        elif self.chance(t.dawdle):
            self.stats["dawdles"] += 1
            ticks, why = self.rng.randint(3, 10), "No hurry, I'll get to it in a bit."
        else:
            return None
        return self.voice.think(why), "", f"wait({ticks})"

    def _follow(self, v: dict[str, Any], actions: list[str]) -> Reply | None:
        """Do the accepted job while it is fresh: pick up its item when empty-handed."""
        if self.job is None or v["tick"] - self.job_tick > JOB_TTL:
            self.job = None
            return None
        pickup = PICKUPS[self.job]
        if v["self"]["held"] is not None or pickup not in actions:
            return None
        self.honour()
        self.last_pickup = pickup
        return self.voice.think("That's the job I agreed to do."), NARRATION[pickup], pickup

    def _competent(self, v: dict[str, Any], actions: list[str]) -> Reply:
        action, reason = self.expert.choose(v, actions)
        action = self._taste(v, actions, action)
        if action in PICKUPS.values():
            self.last_pickup = action
        message = NARRATION.get(action, "Waiting a moment.")
        if action in NARRATION and self.chance(self.temperament.chatter / 2):
            return self.voice.think(reason), self.voice.decorate(message), SET_MESSAGE
        return self.voice.think(reason), message, action

    def _taste(self, v: dict[str, Any], actions: list[str], action: str) -> str:
        """Openness: try the other pickup job now and then, or keep repeating the last one."""
        novelty = self.temperament.novelty
        both = all(p in actions for p in PICKUPS.values())
        if action not in PICKUPS.values() or not both or not self.chance(abs(novelty)):
            return action
        if novelty > 0:
            return PICKUP_DISH if action == PICKUP_ONION else PICKUP_ONION
        return self.last_pickup or action
