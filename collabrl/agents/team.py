"""Seat a team around the evaluated or trained seat: teammates' profiles and private guidance.

Why one place: the evaluation's team grid and the training rollouts must seat teams the same
way, or trained and evaluated teams would differ in more than their policy. Rules:

- Profiles: the teammates, in seat order, play ``first`` and then the next profiles of the same
  task from ``pool`` (in pool order, wrapping around), distinct as long as the task has enough;
  so a three-seat team plays beside two different personalities of one task.
- Guidance: when the game section turns ``guidance`` on, the k-th teammate holds the task's
  k-th shipped pack (:func:`collabrl.profiles.guidance.load_guidance`; none past the last): a
  profiled teammate through its profile (its prompt, its persona), an expert through ``brief``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from collabrl.agents.player import Player
from collabrl.envs.registry import GameSection
from collabrl.profiles import Profile
from collabrl.profiles.guidance import Guidance, load_guidance


def team_profiles(
    first: Profile | None, pool: Sequence[Profile], teammates: int
) -> tuple[Profile | None, ...]:
    """Profiles of ``teammates`` teammates: ``first``, then the next profiles of its task."""
    if first is None or teammates == 0:
        return (first,) * teammates
    same = [p for p in pool if p.task == first.task and p.id != first.id]
    start = next((k for k, p in enumerate(pool) if p.id == first.id), -1) + 1
    after = [p for p in pool[start:] if p in same] + [p for p in pool[:start] if p in same]
    others = after or [first]
    return (first, *(others[k % len(others)] for k in range(teammates - 1)))


def guidance_packs(section: GameSection, teammates: int) -> tuple[Guidance | None, ...]:
    """The pack each teammate holds (None: none), by the section's ``guidance`` switch."""
    packs: tuple[Guidance, ...] = ()
    if getattr(section, "guidance", False):
        packs = load_guidance(section.name, section.task)
    return tuple(packs[k] if k < len(packs) else None for k in range(teammates))


def guided(profile: Profile | None, pack: Guidance | None) -> Profile | None:
    """The teammate's profile holding its pack (a profile-free teammate stays None)."""
    return None if profile is None else profile.with_guidance(pack)


def brief(player: Player, pack: Guidance | None, profiled: bool) -> Player:
    """Hand ``pack`` to a player that takes guidance directly (an expert; a profiled teammate
    already holds it in its profile); returns the player."""
    take: Any = getattr(player, "brief", None)
    if pack is not None and take is not None and not profiled:
        take(pack.found(), pack.empty(), pack.statement())
    return player
