"""Decide what each rollout group plays: task (or layout), partner profiles and seed.

A group's N episodes share all three, so they start from the same state and differ only by the
policy's samples: the comparison GiGPO's episode-level advantage needs. A team of three or more
seats plays beside distinct profiles of the drawn task (the drawn one first, then the next ones
of that task in the partner set, :func:`collabrl.agents.team.team_profiles`), so one group's
teammates differ in personality; drawing them takes nothing from the random stream, so two-seat
runs draw exactly what they always drew. With ``game.guidance`` on, teammates hold the task's
private guidance (:mod:`collabrl.agents.team`), as in the evaluation's team grid. Under
``partner.kind=mix`` each group also draws its partner kind from ``partner.mix`` (a persona group
draws a profile, the others a task), so a group's episodes share their partner kind; partners that
move a kitchen chef tick by tick (human proxies, population members) get motion seats.
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
from collabrl.config.roles import MOTION_PARTNERS
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
    partner: str = ""  # partner.kind=mix: the kind this group drew (empty: the recipe's kind)


def plan_groups(recipe: Recipe, profiles: list, iteration: int, rank: int = 0) -> list[GroupPlan]:
    """G group plans for ``iteration``, drawn from an RNG seeded by (seed, iteration, rank) alone,
    so a resumed run draws exactly what an uninterrupted run would, and each data-parallel
    process plays different groups."""
    rng = np.random.default_rng([recipe.seed, iteration, rank, 1])
    tasks = sorted(task_names(recipe))
    partners = len(recipe.game.seats) - len(recipe.rollout.trained_seats)
    mix = recipe.partner.mix if recipe.partner.kind == "mix" else ()
    plans = []
    for _ in range(recipe.rollout.groups):
        seed = int(rng.integers(2**31))
        kind = mix[int(rng.integers(len(mix)))] if mix else ""
        if profiles and kind in ("", "persona"):
            profile = profiles[int(rng.integers(len(profiles)))]
            team = team_profiles(profile, profiles, partners)
            plans.append(GroupPlan(profile.task, profile, seed, team, kind))
        else:
            plans.append(GroupPlan(tasks[int(rng.integers(len(tasks)))], None, seed, (), kind))
    return plans


def make_slots(recipe: Recipe, plans: list[GroupPlan], partner_engine=None) -> list[EpisodeSlot]:
    """One slot per episode: its game, its partner players and the policy's seats (where every
    seat is trained, the drawn profile only picks the task: no partner plays it)."""
    from collabrl.envs.registry import human_partners_of
    from collabrl.factory import make_llm_player, make_partner

    slots = []
    trained = tuple(recipe.game.seats[k] for k in recipe.rollout.trained_seats)
    for g, plan in enumerate(plans):
        spec = recipe.partner.drawn(plan.partner) if plan.partner else recipe.partner
        for e in range(recipe.rollout.episodes_per_group):
            section = recipe.game.for_task(plan.task)
            if spec.kind in MOTION_PARTNERS:  # they move their chefs tick by tick
                mates = [seat for seat in section.seats if seat not in trained]
                section = human_partners_of(section).for_proxies(section, mates)
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
                        spec,
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
                    player_type=_player_type(plan.partner, plan.profile) if mates else None,
                    seed=plan.seed,
                    prompt=recipe.policy.prompt,
                    unusable_reply=section.unusable_reply,
                    more_seats=trained[1:],
                )
            )
    return slots


def _player_type(drawn: str, profile: object | None) -> str | None:
    """What the records and per-type metrics call the partner: a profile's player type, else the
    kind a mix drew for a profile-blind partner (``expert``, ``human_proxy``, ``population``)."""
    if profile is not None:
        return getattr(profile, "player_type", None)
    return drawn or None
