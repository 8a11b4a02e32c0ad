"""Who fills the non-participant seats of a study session, built through :mod:`collabrl.factory`.

- the condition's *agent* in the agent seats (an llm checkpoint, a persona, the expert);
- a *simulated participant* (pretests) or a *stand-in* (a match that timed out, an idle or
  released participant) in a human seat: a persona or LLM player of a profile drawn from the
  library for the session's task, or the expert.

LLM engines load a model, so each is built once per study server and shared by every session;
calls to one engine run one at a time (sessions play on worker threads).
"""

from __future__ import annotations

import threading
from typing import Any

from collabrl.agents.player import Player
from collabrl.config import EngineSpec, PlayerSpec
from collabrl.envs.base import Game
from collabrl.envs.registry import GameSection
from collabrl.factory import make_engine_from_spec, make_expert, make_llm_player, make_persona
from collabrl.factory import make_player as make_seat_player
from collabrl.profiles import Profile, get_profile, interleaved_by_type, load_profiles
from collabrl.study.schema import Simulated


class SerializedEngine:
    """An engine whose ``generate`` calls run one at a time (sessions share it across threads)."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.lock = engine, threading.Lock()

    def generate(self, conversations, params):
        with self.lock:
            return self.engine.generate(conversations, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


class Engines:
    """One shared engine per (backend, model, options)."""

    def __init__(self) -> None:
        self._engines: dict[str, SerializedEngine] = {}

    def get(self, spec: EngineSpec) -> SerializedEngine:
        key = spec.model_dump_json()
        if key not in self._engines:
            self._engines[key] = SerializedEngine(make_engine_from_spec(spec))
        return self._engines[key]


def player_label(spec: PlayerSpec | Simulated, profile: Profile | None = None) -> str:
    """How records and the export name a player (model ids, never engine options or keys)."""
    profile_id = profile.id if profile is not None else getattr(spec, "profile", None)
    if spec.kind == "llm" and spec.engine is not None:
        label = f"llm:{spec.engine.backend}:{spec.engine.model}"
        return f"{label}:{profile_id}" if profile_id else label
    if spec.kind == "persona":
        return f"persona:{profile_id}"
    return spec.kind


def agent_player(
    spec: PlayerSpec, section: GameSection, game: Game, seed: int, engines: Engines
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
    engines: Engines,
) -> Player:
    """A simulated participant or stand-in of ``profile`` (None only for the expert)."""
    if spec.kind == "expert":
        return make_expert(section)
    if spec.kind == "persona":
        return make_persona(profile)
    engine = engines.get(spec.engine)
    return make_llm_player(
        engine, game, spec.sampling, seed, role="player", persona=profile.persona()
    )
