"""Build games and players from a validated recipe (the one place that maps names to classes)."""

from __future__ import annotations

from collabrl.agents.player import Player
from collabrl.config import GameSpec, HouseholdSpec, KitchenSpec, PlayerSpec
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
            spec.layout, seats=spec.seats, horizon=spec.horizon, cook_mode=spec.cooking
        )
    raise TypeError(f"unknown game spec {type(spec).__name__}")


def make_player(spec: PlayerSpec, game: GameSpec) -> Player:
    """The player a recipe's ``players`` entry describes, for the given game."""
    if spec.kind == "expert":
        if isinstance(game, HouseholdSpec):
            from collabrl.envs.household.expert import HouseholdExpert

            return HouseholdExpert()
        from collabrl.envs.kitchen.expert import KitchenExpert

        return KitchenExpert()
    raise TypeError(f"unknown player kind {spec.kind!r}")
