"""Who fills the non-participant seats of a study session, built through :mod:`collabrl.factory`.

- the condition's *agent* in the agent seats (an llm checkpoint, a persona, the expert);
- a *simulated participant* (pretests) or a *stand-in* (a match that timed out, an idle or
  released participant) in a human seat: a persona or LLM player of a profile drawn from the
  library for the session's task, or the expert.

LLM engines load a model, so each is built once per study server and shared by every session
(a serialized :class:`collabrl.factory.EngineCache`: sessions play on worker threads).
"""

from __future__ import annotations

from collabrl.agents.player import Player
from collabrl.config import PlayerSpec
from collabrl.envs.base import Game
from collabrl.envs.registry import GameSection
from collabrl.factory import EngineCache, make_expert, make_llm_player, make_persona
from collabrl.factory import make_player as make_seat_player
from collabrl.profiles import Profile, get_profile, interleaved_by_type, load_profiles
from collabrl.study.spec.schema import Simulated


def agent_player(
    spec: PlayerSpec, section: GameSection, game: Game, seed: int, engines: EngineCache
) -> Player:
    """The condition's agent for one seat of one session."""
    engine = engines.get(spec.engine) if spec.kind == "llm" else None
    return make_seat_player(spec, section, game, seed, engine=engine)


def task_profiles(spec: Simulated, game: str, task: str) -> list[Profile]:
    """The profiles simulated players of ``task`` are drawn from, types interleaved so that any
    run of consecutive draws spans the player types."""
    if spec.profiles:
        return [get_profile(p) for p in spec.profiles]
    return interleaved_by_type(load_profiles(game=game, split=spec.split, task=task))


def simulated_player(
    spec: Simulated,
    profile: Profile | None,
    section: GameSection,
    game: Game,
    seed: int,
    engines: EngineCache,
) -> Player:
    """A simulated participant or stand-in of ``profile`` (None only for the expert)."""
    if spec.kind == "expert":
        return make_expert(section)
    assert profile is not None, f"a {spec.kind} player plays a profile"
    if spec.kind == "persona":
        return make_persona(profile, spec.vary_wording)
    engine = engines.get(spec.engine)
    return make_llm_player(
        engine, game, spec.sampling, seed, role="player", persona=profile.persona()
    )
