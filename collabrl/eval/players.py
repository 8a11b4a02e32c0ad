"""Seat wrappers for evaluation (recording, Oracle information) and the player builders.

Why wrappers: judges need the exact observation behind every decision, and the Oracle setting
needs the partner's profile and previous decision in the policy's prompt; wrapping any
:class:`collabrl.agents.player.Player` gives both without touching players, games or the runner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from collabrl.agents.player import Player
from collabrl.agents.protocol import Parsed, parse_observed
from collabrl.config import PartnerSpec, PlayerSpec
from collabrl.config.roles import MOTION_PARTNERS
from collabrl.envs.base import Game, Observation
from collabrl.envs.registry import GameSection
from collabrl.errors import CollabrlError
from collabrl.factory import EngineSource, make_llm_player, make_partner, make_player
from collabrl.profiles import Profile

PolicyFactory = Callable[[Game, GameSection, int], Player]
PartnerFactory = Callable[[Profile | None, Game, GameSection, int], Player]


class RecordingPlayer:
    """Passes every call through and keeps each observation with the parsed decision."""

    def __init__(self, inner: Player) -> None:
        self.inner, self.name, self.seat = inner, inner.name, ""
        self.observations: list[Observation] = []
        self.decisions: list[Parsed] = []

    def reset(self, seat: str, seed: int) -> None:
        self.seat, self.observations, self.decisions = seat, [], []
        self.inner.reset(seat, seed)

    def act(self, obs: Observation) -> str:
        response = self.inner.act(obs)
        self.observations.append(obs)
        self.decisions.append(parse_observed(response, obs))
        return response

    def last_before(self, tick: int) -> tuple[int, Parsed] | None:
        """The latest decision made strictly before ``tick`` (with its tick), if any."""
        for obs, parsed in zip(reversed(self.observations), reversed(self.decisions), strict=True):
            if obs.tick < tick:
                return obs.tick, parsed
        return None


ORACLE_GUIDANCE = (
    "Use this to collaborate well: fit your tone and plan to this teammate's personality, answer "
    "their questions and requests, tell them promptly about discoveries and finished subgoals, "
    "and reassure them when they seem unsure or frustrated."
)


def oracle_block(profile: Profile, partner_name: str, last: tuple[int, Parsed] | None) -> str:
    """The extra observation text of the Oracle setting."""
    if last is None:
        previous = "(they have not decided anything yet)"
    else:
        tick, p = last
        previous = (
            f"at tick {tick}: reasoning: {p.think or '(none)'} | message: {p.message or '(none)'}"
            f" | action: {p.action or '(invalid)'}"
        )
    return (
        f"[Oracle information about {partner_name}]\n"
        f"Profile: {profile.persona()}\n"
        f"Their previous decision {previous}\n"
        f"{ORACLE_GUIDANCE}"
    )


class OraclePlayer:
    """Adds the Oracle block to the observation text before the wrapped player sees it."""

    def __init__(self, inner: Player, profile: Profile, partner: RecordingPlayer) -> None:
        self.inner, self.profile, self.partner = inner, profile, partner
        self.name = f"oracle:{inner.name}"

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.inner.reset(seat, seed)

    def act(self, obs: Observation) -> str:
        block = oracle_block(self.profile, self.partner.seat, self.partner.last_before(obs.tick))
        return self.inner.act(dataclasses.replace(obs, text=f"{block}\n\n{obs.text}"))


def partner_names(kind: str, partners: Iterable[RecordingPlayer]) -> str | None:
    """Which partners played an episode, for the partner kinds whose profile does not name them:
    each seat's population member (``population:sp0_final``, drawn per episode seed) or human
    proxy (``human_proxy``, one per task), seats joined by ``+``; None for the other kinds.

    Why: robustness over a population (BR-Prox) counts each member as a held-out partner of its
    own, and only the played episode knows which member its seed drew (the player's ``member``)."""
    if kind not in MOTION_PARTNERS:
        return None
    names = []
    for seat in partners:
        member = getattr(seat.inner, "member", "")
        names.append(f"{kind}:{member}" if member else kind)
    return "+".join(names)


def generated_tokens(player: Player) -> int:
    """Completion tokens an LLM-backed player spent this episode (0 for scripted players)."""
    calls: list[Any] = getattr(player, "calls", None) or []
    return sum(getattr(c, "completion_tokens", 0) for c in calls)


def policy_factory(spec: PlayerSpec, engines: EngineSource, retries: int = 0) -> PolicyFactory:
    """Builds the evaluated policy for one episode (LLM engines are shared across episodes).

    An LLM policy plays the collaborative-agent role with ``retries`` extra attempts after an
    unusable reply (0: the paper's single pass)."""
    if spec.kind == "llm" and spec.profile:
        raise CollabrlError(
            "policy.profile: the evaluated policy plays the collaborative-agent role, "
            "which has no persona; a profiled LLM belongs in the partner seat"
        )

    def build(game: Game, game_spec: GameSection, seed: int) -> Player:
        if spec.kind == "llm":
            engine = engines.get(spec.engine)
            return make_llm_player(
                engine, game, spec.sampling, seed, role="agent", retries=retries, layout=spec.prompt
            )
        return make_player(spec, game_spec, game, seed)

    return build


def partner_factory(
    spec: PartnerSpec, engines: EngineSource, policy: PolicyFactory
) -> PartnerFactory:
    """Builds the partner seat for one episode from one test profile.

    ``self``: the evaluated policy (``policy``) plays the partner seats too: self-play, which
    for a policy trained in both seats is its co-trained partner (the cross-play table compares
    it with held-out partners: conventions only its co-trained self follows show there).
    A profile-free LLM partner (``use_profile=false``) and a motion partner (a human proxy, a
    population member) still get draws of their own per profile job, so their episodes are
    independent draws rather than copies."""

    def build(profile: Profile | None, game: Game, game_spec: GameSection, seed: int) -> Player:
        if spec.kind == "self":
            return policy(game, game_spec, seed)
        motion = spec.kind in MOTION_PARTNERS
        own_draws = motion or (spec.kind == "llm" and not spec.use_profile)
        if own_draws and profile is not None:
            from collabrl.agents.persona.temperament import stable_seed

            seed = stable_seed(profile.id, seed)
        draws = seed if motion and profile is not None else None
        engine = engines.get(spec.engine)
        return make_partner(spec, game_spec, game, profile, seed, engine, draws)

    return build
