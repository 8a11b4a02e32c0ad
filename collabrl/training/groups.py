"""Decide what each rollout group plays: task (or layout), partner profile and seed.

A group's N episodes share all three, so they start from the same state and differ only by the
policy's samples: the comparison GiGPO's episode-level advantage needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# partner_profiles and task_names live with the recipe, which checks them at load; re-exported
from collabrl.config import Recipe
from collabrl.config import partner_profiles as partner_profiles
from collabrl.config import task_names as task_names
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


def make_slots(recipe: Recipe, plans: list[GroupPlan], partner_engine=None) -> list[EpisodeSlot]:
    """One slot per episode: its game, its partner players and the policy's seat."""
    from collabrl.factory import make_llm_player, make_partner

    slots = []
    policy_seat = recipe.game.seats[recipe.rollout.target_seat]
    for g, plan in enumerate(plans):
        for e in range(recipe.rollout.episodes_per_group):
            section = recipe.game.for_task(plan.task)
            game = section.make_game()
            players = {}
            for seat in game.agents:
                if seat == policy_seat:
                    continue
                if recipe.partner.kind == "self":
                    players[seat] = make_llm_player(
                        partner_engine,  # the policy's own rollout engine
                        game,
                        recipe.policy.sampling,
                        plan.seed + e,
                        role="agent",
                        retries=0,
                        name="self-play",
                    )
                else:
                    players[seat] = make_partner(
                        recipe.partner, section, game, plan.profile, plan.seed + e, partner_engine
                    )
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
