"""Decide what each rollout group plays: task (or layout), partner profile and seed.

A group's N episodes share all three, so they start from the same state and differ only by the
policy's samples: the comparison GiGPO's episode-level advantage needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# partner_profiles and task_names live with the recipe, which checks them at load; re-exported
from collabrl.agents.llm_player import LLMPlayer
from collabrl.config import Recipe
from collabrl.config import partner_profiles as partner_profiles
from collabrl.config import task_names as task_names
from collabrl.envs.base import Game
from collabrl.errors import CollabrlError
from collabrl.training.rollout import EpisodeSlot


@dataclass(frozen=True)
class GroupPlan:
    """What one group plays."""

    task: str
    profile: object | None  # collabrl.profiles.Profile
    seed: int


def plan_groups(recipe: Recipe, profiles: list, iteration: int, rank: int = 0) -> list[GroupPlan]:
    """G group plans for ``iteration``, drawn from an RNG seeded by (seed, iteration, rank) alone,
    so a resumed run draws exactly what an uninterrupted run would, and each data-parallel
    process plays different groups."""
    rng = np.random.default_rng([recipe.seed, iteration, rank, 1])
    tasks = sorted(task_names(recipe))
    plans = []
    for _ in range(recipe.rollout.groups):
        seed = int(rng.integers(2**31))
        if profiles:
            profile = profiles[int(rng.integers(len(profiles)))]
            plans.append(GroupPlan(profile.task, profile, seed))
        else:
            plans.append(GroupPlan(tasks[int(rng.integers(len(tasks)))], None, seed))
    return plans


def make_game(recipe: Recipe, task: str) -> Game:
    """A training game for ``task`` with the recipe's seats and training limits."""
    spec = recipe.game
    if spec.name == "kitchen":
        from collabrl.envs.kitchen.game import KitchenGame

        return KitchenGame(
            task,
            seats=spec.seats,
            horizon=recipe.rollout.horizon,
            cook_mode=spec.cooking,
            motion=spec.motion,
        )
    from collabrl.envs.household.game import HouseholdGame

    return HouseholdGame(
        task,
        seats=spec.seats,
        max_ticks=spec.max_ticks,
        max_decisions=recipe.rollout.max_decisions,
    )


def make_slots(recipe: Recipe, plans: list[GroupPlan], partner_engine=None) -> list[EpisodeSlot]:
    """One slot per episode: its game, its partner players and the policy's seat."""
    from collabrl.factory import make_expert, sampling_params

    slots = []
    policy_seat = recipe.game.seats[recipe.rollout.target_seat]
    for g, plan in enumerate(plans):
        for e in range(recipe.rollout.episodes_per_group):
            game = make_game(recipe, plan.task)
            players = {}
            for seat in game.agents:
                if seat == policy_seat:
                    continue
                kind = recipe.partner.kind
                if kind == "persona":
                    from collabrl.agents.persona import make_persona_player

                    players[seat] = make_persona_player(plan.profile)
                elif kind == "llm":
                    persona = plan.profile.persona() if plan.profile is not None else None
                    players[seat] = LLMPlayer(
                        partner_engine,
                        game,
                        sampling_params(recipe.partner.sampling, plan.seed + e),
                        role="player",
                        persona=persona,
                    )
                elif kind == "self":
                    players[seat] = LLMPlayer(
                        partner_engine,  # the policy's own rollout engine
                        game,
                        sampling_params(recipe.policy.sampling, plan.seed + e),
                        role="agent",
                        retries=0,
                        name="self-play",
                    )
                elif kind == "expert":
                    players[seat] = make_expert(recipe.game)
                else:
                    raise CollabrlError("partner.kind=none needs a game with a single seat")
            slots.append(
                EpisodeSlot(
                    group=g,
                    episode=e,
                    game=game,
                    players=players,
                    policy_seat=policy_seat,
                    profile_id=getattr(plan.profile, "id", None),
                    player_type=getattr(plan.profile, "player_type", None),
                    seed=plan.seed,
                )
            )
    return slots
