"""Decide what each rollout group plays: task (or layout), partner profiles and seed.

A group's N episodes share all three, so they start from the same state and differ only by the
policy's samples: the comparison GiGPO's episode-level advantage needs. A team of three or more
seats plays beside distinct profiles of the drawn task (the drawn one first, then the next ones
of that task in the partner set, :func:`collabrl.agents.team.team_profiles`), so one group's
teammates differ in personality; drawing them takes nothing from the random stream, so two-seat
runs draw exactly what they always drew. With ``game.guidance`` on, teammates hold the task's
private guidance (:mod:`collabrl.agents.team`), as in the evaluation's team grid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from collabrl.agents.team import brief, guidance_packs, guided, team_profiles

# partner_profiles and task_names live with the recipe, which checks them at load; re-exported
from collabrl.config import Recipe
from collabrl.config import partner_profiles as partner_profiles
from collabrl.config import task_names as task_names
from collabrl.config.recipe import training_set
from collabrl.records import write_text
from collabrl.training.lockstep import EpisodeSlot

TRAINING_SET = "training_set.json"
"""``<run>/training_set.json``: the tasks and partner profiles the run draws, and what its
validation holds out and plays against (:func:`collabrl.config.recipe.training_set`)."""


def write_training_set(run_dir: Path, recipe: Recipe) -> Path:
    """Record in the run folder what the run trains on and holds out."""
    path = run_dir / TRAINING_SET
    write_text(path, json.dumps(training_set(recipe), indent=1))
    return path


@dataclass(frozen=True)
class GroupPlan:
    """What one group plays."""

    task: str
    profile: object | None  # collabrl.profiles.Profile
    seed: int
    team: tuple = ()  # every partner seat's profile, in seat order (empty: profile-free partners)


def plan_groups(recipe: Recipe, profiles: list, iteration: int, rank: int = 0) -> list[GroupPlan]:
    """G group plans for ``iteration``, drawn from an RNG seeded by (seed, iteration, rank) alone,
    so a resumed run draws exactly what an uninterrupted run would, and each data-parallel
    process plays different groups."""
    rng = np.random.default_rng([recipe.seed, iteration, rank, 1])
    tasks = sorted(task_names(recipe))
    partners = len(recipe.game.seats) - len(recipe.rollout.trained_seats)
    plans = []
    for _ in range(recipe.rollout.groups):
        seed = int(rng.integers(2**31))
        if profiles:
            profile = profiles[int(rng.integers(len(profiles)))]
            team = team_profiles(profile, profiles, partners)
            plans.append(GroupPlan(profile.task, profile, seed, team))
        else:
            plans.append(GroupPlan(tasks[int(rng.integers(len(tasks)))], None, seed))
    return plans


def make_slots(recipe: Recipe, plans: list[GroupPlan], partner_engine=None) -> list[EpisodeSlot]:
    """One slot per episode: its game, its partner players and the policy's seats (where every
    seat is trained, the drawn profile only picks the task: no partner plays it)."""
    from collabrl.factory import make_llm_player, make_partner

    slots = []
    trained = tuple(recipe.game.seats[k] for k in recipe.rollout.trained_seats)
    for g, plan in enumerate(plans):
        for e in range(recipe.rollout.episodes_per_group):
            section = recipe.game.for_task(plan.task)
            game = section.make_game()
            mates = [seat for seat in game.agents if seat not in trained]
            team = plan.team or (plan.profile,) * len(mates)
            packs = guidance_packs(section, len(mates))
            players = {}
            for seat, profile, pack in zip(mates, team, packs, strict=True):
                if recipe.partner.kind == "self":
                    players[seat] = make_llm_player(
                        partner_engine,  # the policy's own rollout engine
                        game,
                        recipe.policy.sampling,
                        plan.seed + e,
                        role="agent",
                        retries=0,
                        name="self-play",
                        layout=recipe.policy.prompt,
                    )
                else:
                    player = make_partner(
                        recipe.partner,
                        section,
                        game,
                        guided(profile, pack),
                        plan.seed + e,
                        partner_engine,
                    )
                    players[seat] = brief(player, pack, profile is not None)
            slots.append(
                EpisodeSlot(
                    group=g,
                    episode=e,
                    game=game,
                    players=players,
                    policy_seat=trained[0],
                    profile_id=getattr(plan.profile, "id", None) if mates else None,
                    player_type=getattr(plan.profile, "player_type", None) if mates else None,
                    seed=plan.seed,
                    prompt=recipe.policy.prompt,
                    unusable_reply=section.unusable_reply,
                    more_seats=trained[1:],
                )
            )
    return slots
