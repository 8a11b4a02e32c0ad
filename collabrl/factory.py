"""Build games and players from a validated recipe (the one place that maps names to classes)."""

from __future__ import annotations

from collabrl.agents.player import Player
from collabrl.config import (
    EngineSpec,
    GameSpec,
    HouseholdSpec,
    KitchenSpec,
    PlayerSpec,
    SamplingSpec,
)
from collabrl.envs.base import Game


def make_game(spec: GameSpec) -> Game:
    """The game a recipe's ``game`` section describes."""
    if isinstance(spec, HouseholdSpec):
        from collabrl.envs.household.game import HouseholdGame

        return HouseholdGame(
            spec.task, seats=spec.seats, max_ticks=spec.max_ticks, max_decisions=spec.max_decisions
        )
    if isinstance(spec, KitchenSpec):
        from collabrl.envs.kitchen.game import KitchenGame

        return KitchenGame(
            spec.layout,
            seats=spec.seats,
            horizon=spec.horizon,
            cook_mode=spec.cooking,
            motion=spec.motion,
        )
    raise TypeError(f"unknown game spec {type(spec).__name__}")


def make_engine_from_spec(spec: EngineSpec):
    """An inference engine for a recipe's ``engine`` section."""
    from collabrl.engines import make_engine

    return make_engine({"backend": spec.backend, "model": spec.model, **spec.options})


def sampling_params(spec: SamplingSpec, seed: int | None = None):
    """Engine sampling parameters for a recipe's ``sampling`` section."""
    from collabrl.engines import SamplingParams

    return SamplingParams(
        temperature=spec.temperature,
        top_p=spec.top_p,
        max_new_tokens=spec.max_new_tokens,
        seed=seed,
    )


def make_player(spec: PlayerSpec, game_spec: GameSpec, game: Game, seed: int = 0) -> Player:
    """The player a recipe's ``players`` entry describes, for the given game."""
    if spec.kind == "llm":
        from collabrl.agents.llm_player import LLMPlayer
        from collabrl.profiles import get_profile

        persona = get_profile(spec.profile).persona() if spec.profile else None
        engine = make_engine_from_spec(spec.engine)
        role = "player" if persona else "agent"  # a profiled seat is a simulated player
        params = sampling_params(spec.sampling, seed)
        return LLMPlayer(engine, game, params, role=role, persona=persona)
    if spec.kind == "persona":
        from collabrl.agents.persona import make_persona_player
        from collabrl.profiles import get_profile

        return make_persona_player(get_profile(spec.profile))
    if spec.kind == "expert":
        return make_expert(game_spec)
    if spec.kind == "human":
        from collabrl.errors import CollabrlError

        raise CollabrlError("a human seat is played in the browser: use `collabrl serve RECIPE`")
    raise TypeError(f"unknown player kind {spec.kind!r}")


def make_expert(game_spec: GameSpec) -> Player:
    """The rule-based expert of the recipe's game."""
    if isinstance(game_spec, HouseholdSpec):
        from collabrl.envs.household.expert import HouseholdExpert

        return HouseholdExpert()
    from collabrl.envs.kitchen.expert import KitchenExpert

    return KitchenExpert()
