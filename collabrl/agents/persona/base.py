"""Player plumbing shared by the household and kitchen personas: seeding, slips, the reply format.

A game-specific subclass supplies ``_decide`` (think, message, action) and ``_blunder`` (an
action that is not available, used at the temperament's small ``slip`` rate); this class makes
the choice reproducible for a given (profile, seat, seed) and keeps behaviour counters that
benchmarks and tests read.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections import Counter

from collabrl.agents.persona.temperament import Temperament, stable_seed
from collabrl.agents.persona.voice import Voice
from collabrl.agents.persona.wording import clip_message
from collabrl.envs.base import Observation, format_response, sends_message
from collabrl.envs.structures import StructureView, pick_owner
from collabrl.profiles.schema import Profile

Reply = tuple[str, str, str]  # (think, message, action)


_NAMELESS = "\x00"
_OPENING_NAMELESS = re.compile(r"(^\s*|[.?!]\s+)\x00, (\w)")


def named(template: str, addressee: str, teammates: int, **fields: str) -> str:
    """Fill a request ``template`` (``{name}, could you ...``) for ``addressee``: among two or
    more teammates it names them, so each knows whose the request is; a lone teammate needs no
    addressee and gets the request unnamed ("Could you ..."), as two-seat play always has."""
    if teammates > 1:
        return template.format(name=addressee, **fields)
    text = template.format(name=_NAMELESS, **fields)
    text = _OPENING_NAMELESS.sub(lambda m: m.group(1) + m.group(2).upper(), text)
    return text.replace(f"{_NAMELESS}, ", "")


class PersonaBase(ABC):
    """A profile-driven scripted player (implements ``collabrl.agents.player.Player``).

    ``stats`` counts behaviour per episode: ``requests`` heard, ``honoured`` requests acted on,
    ``doubts`` (reassurance questions), ``instructions`` given, ``dawdles``, ``rechecks``,
    ``hesitations``, ``slips`` (deliberately unavailable actions), and as a gate owner
    ``approvals`` and ``denials``.

    ``vary_wording``: no chat line is sent twice in an episode (:mod:`.wording`); the random
    stream and the actions are those of ``vary_wording=False``, the wording of earlier versions.
    """

    def __init__(self, profile: Profile, vary_wording: bool = True) -> None:
        game = self.game()
        if profile.game != game:
            raise ValueError(f"profile {profile.id!r} is for {profile.game}, not {game}")
        self.profile = profile
        self.temperament = Temperament.from_profile(profile)
        self.name = f"persona:{profile.id}"
        self.vary_wording = vary_wording
        self.reset("", 0)

    @classmethod
    def game(cls) -> str:
        """The game whose registry entry names this class as its persona player."""
        from collabrl.envs.registry import registered_games

        path = f"{cls.__module__}:{cls.__qualname__}"
        return next((name for name, s in registered_games().items() if s.persona == path), "")

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.rng = random.Random(stable_seed(self.profile.id, seat, seed))
        self.voice = Voice(self.temperament, self.rng, self.vary_wording)
        self.stats: Counter[str] = Counter()
        self.reply: str | None = None  # acceptance or refusal still to be said
        self.opened = False
        self.owed = False  # an accepted request not yet acted on
        self._reset_game()

    def chance(self, p: float) -> bool:
        """True with probability ``p`` (one draw from this episode's rng)."""
        return self.rng.random() < p

    def consider_request(self) -> bool:
        """A teammate asked something: accept it (agreeable) or not; queue what to say back."""
        t = self.temperament
        self.stats["requests"] += 1
        accepted = self.chance(t.comply)
        if accepted:
            self.owed = True
            self.reply = self.voice.accept() if self.chance(t.talk) else None
        else:
            self.reply = self.voice.refuse() if self.chance(t.talk / 2) else None
        return accepted

    def honour(self) -> None:
        """Count the accepted request as honoured the first time it is acted on."""
        if self.owed:
            self.owed = False
            self.stats["honoured"] += 1

    def opens_now(self) -> bool:
        """True once, at the first decision: a simulated player may open the conversation, in
        its own register (a leader with a division of labour, anyone else with a greeting whose
        warmth follows agreeableness). The greeting is left out when the game's ``opening`` is
        not ``first_decision`` (:func:`collabrl.envs.opening.greets_at_first_decision`): the
        seeded exchange has greeted already, or the game opens without one."""
        first, self.opened = not self.opened, True
        return first

    def _answer(self, state: dict) -> str | None:
        reply, self.reply = self.reply, None
        return reply

    def gatekeep(self, view: StructureView | None) -> Reply | None:
        """A request awaiting this seat's approval: deny it when doubting, approve it when
        complying, otherwise leave it waiting for a later decision."""
        if view is None or not view.to_decide:
            return None
        request, t = view.to_decide[0], self.temperament
        if self.chance(t.doubt):
            self.stats["denials"] += 1
            return self.voice.think("I'm not convinced that's right."), "", request["deny"]
        if self.chance(t.comply):
            self.stats["approvals"] += 1
            return self.voice.think("Fine, go ahead."), "", request["approve"]
        return None

    def organise(self, obs: Observation, view: StructureView | None) -> Reply | None:
        """A leader chooses the gate owners its team has not chosen yet (scaffolded)."""
        if view is None or not self.temperament.leads or not view.unassigned():
            return None
        kind = view.unassigned()[0]
        me, seats = self._team(obs.state)
        owner = pick_owner(view, me, seats)
        self.stats["instructions"] += 1
        think = self.voice.think(f"Someone should sign off on {kind}; {owner} it is.")
        return think, "", view.assign[kind][owner]

    def act(self, obs: Observation) -> str:
        if self.chance(self.temperament.slip):
            blunder = self._blunder(obs)
            if blunder is not None:
                self.stats["slips"] += 1
                think = self.voice.think("That should do, I think.")
                return format_response(think, "", blunder)
        think, message, action = self._decide(obs)
        message = clip_message(message)
        if self.vary_wording and sends_message(action, message, obs.message_action):
            message = self.voice.said.sent(message)
        return format_response(think, message, action)

    # ----------------------------------------------------------------- game-specific parts
    @abstractmethod
    def _reset_game(self) -> None:
        """Forget the previous episode's game-specific memory."""

    @abstractmethod
    def _decide(self, obs: Observation) -> Reply:
        """(think, message, action) for this decision point, shaped by the temperament."""

    @abstractmethod
    def _team(self, state: dict) -> tuple[str, list[str]]:
        """This seat's name and every seat's, in seat order, from an observation's state."""

    @abstractmethod
    def _blunder(self, obs: Observation) -> str | None:
        """An off-task or unavailable action a careless player might write (None: none)."""
