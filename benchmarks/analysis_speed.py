"""Analysis game throughput and what knowledge is worth, with scripted seats only.

Plays every test task with two reference analysts (the lead runs the reference workflow, the
teammate shares its notes) and counts decisions per second: everything a rollout pays per
decision except the LLM (observation text and state, the analyst's reply, parsing it, the game
step, the notebook's analysis steps). Then the value of knowledge on the tasks with traps: the
lead knowing every note (the expert), knowing its own notes beside a teammate who tells it
theirs, and knowing only its own notes beside a silent teammate (the novice alone).

    python benchmarks/analysis_speed.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from collabrl.agents.player import IdlePlayer, Player
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import get_task, task_names
from collabrl.episode import EpisodeRecord, play_episode

GOAL = 2000  # decisions per second with the default analysis language


def play(task: str, lead: Player, teammate: Player, seed: int = 0) -> EpisodeRecord:
    game = AnalysisSection(task=task).make_game()
    return play_episode(game, {"Ada": lead, "Bea": teammate}, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="episodes per test task")
    args = parser.parse_args()
    decisions, start = 0, time.perf_counter()
    for task in task_names("test"):
        for seed in range(args.repeats):
            decisions += len(play(task, AnalysisExpert(), AnalysisExpert(), seed).turns)
    elapsed = time.perf_counter() - start
    rate = decisions / elapsed
    print(f"decisions: {decisions} in {elapsed:.2f}s -> {rate:,.0f} decisions/s")
    print(f"ratio to the {GOAL:,} decisions/s goal: {rate / GOAL:.2f}")
    trapped = [t for t in task_names("test") if get_task(t).traps]
    teams: dict[str, Callable[[], tuple[Player, Player]]] = {
        "expert (every note)": lambda: (AnalysisExpert(), IdlePlayer()),
        "novice, told by its teammate": lambda: (AnalysisNovice(), AnalysisExpert()),
        "novice alone (silent teammate)": lambda: (AnalysisNovice(), IdlePlayer()),
    }
    print(f"\nmean hypothesis match score on the {len(trapped)} test tasks with traps:")
    for label, team in teams.items():
        scores = [play(t, *team()).summary["score"] for t in trapped]
        print(
            f"  {label:32s} {statistics.mean(scores):.3f}  ({sum(s == 1.0 for s in scores)} solved)"
        )


if __name__ == "__main__":
    main()
