"""Household game throughput: expert-vs-expert decisions per second on one core.

Counts everything a training rollout pays per decision except the LLM: observation text and
state rendering, the expert's reply, parsing it with ``parse_response`` and the game step.
Usage: ``python benchmarks/household_speed.py [--seeds 20]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import load_tasks
from collabrl.episode import play_episode

GOAL = 5000  # decisions per second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="episodes per test task")
    args = parser.parse_args()
    decisions, steps, failures = 0, [], 0
    start = time.perf_counter()
    for task in load_tasks("test"):
        for seed in range(args.seeds):
            game = HouseholdGame(task)
            record = play_episode(game, {s: HouseholdExpert() for s in game.agents}, seed)
            decisions += len(record.turns)
            summary = record.summary
            steps.append(summary["steps"])
            failures += not summary["success"]
    elapsed = time.perf_counter() - start
    rate = decisions / elapsed
    print(f"episodes: {len(steps)}  failures: {failures}  mean steps: {statistics.mean(steps):.1f}")
    print(f"decisions: {decisions} in {elapsed:.2f}s -> {rate:,.0f} decisions/s")
    print(f"ratio to the {GOAL:,} decisions/s goal: {rate / GOAL:.2f}")


if __name__ == "__main__":
    main()
