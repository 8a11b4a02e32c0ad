"""Do persona players differ the way their profiles say? One table per game and player type.

Every test profile plays its own task (household) or layout (kitchen) next to the game's
rule-based expert, once per seed, alternating seats. A second pass pairs each profile with a
proactive-leader persona of the same task, whose instructions give the "honoured" column
(requests acted on / requests heard). Usage: ``python benchmarks/persona_behaviour.py [--seeds 3]``.
"""

from __future__ import annotations

import argparse
import time

from collabrl.eval.persona_behaviour import Outcome, by_type, play_with
from collabrl.factory import make_persona
from collabrl.profiles import PLAYER_TYPES, load_profiles
from collabrl.profiles.schema import Profile

COLUMNS = {
    "household": ("episodes", "message_rate", "steps", "success", "invalid_rate", "doubts"),
    "kitchen": ("episodes", "message_rate", "score", "success", "invalid_rate", "doubts"),
}


def leaders_by_task(profiles: list[Profile]) -> dict[str, Profile]:
    """The first proactive leader of each task: the partner that hands out requests."""
    out: dict[str, Profile] = {}
    for p in profiles:
        if p.player_type == "proactive_leader":
            out.setdefault(p.task, p)
    return out


def run(game: str, seeds: int) -> None:
    profiles = load_profiles(game=game, split="test")
    leaders = leaders_by_task(profiles)
    start = time.perf_counter()
    with_expert: list[Outcome] = []
    with_leader: list[Outcome] = []
    for seed in range(seeds):
        for p in profiles:
            with_expert.append(play_with(p, seed=seed, seat=seed % 2))
            lead = make_persona(leaders[p.task])
            with_leader.append(play_with(p, lead, seed=seed, seat=seed % 2))
    table, honoured = by_type(with_expert), by_type(with_leader)
    columns = COLUMNS[game]
    print(
        f"\n{game}: {len(profiles)} test profiles x {seeds} seeds with the expert "
        f"({time.perf_counter() - start:.1f}s incl. the leader pass)"
    )
    header = f"{'player type':24s}" + "".join(f"{c:>14s}" for c in columns)
    print(header + f"{'instr/ep':>10s}{'honoured':>10s}")
    for kind in PLAYER_TYPES:
        row = table[kind]
        cells = "".join(f"{row[c]:14d}" if c == "episodes" else f"{row[c]:14.3f}" for c in columns)
        asked = honoured[kind]
        print(
            f"{kind:24s}{cells}{row['instructions']:10.2f}"
            f"{asked['honoured']:7.2f}/{asked['requests']:<3d}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="episodes per profile and pairing")
    parser.add_argument("--game", choices=("household", "kitchen", "both"), default="both")
    args = parser.parse_args()
    for game in ("household", "kitchen"):
        if args.game in (game, "both"):
            run(game, args.seeds)


if __name__ == "__main__":
    main()
