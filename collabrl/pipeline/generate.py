"""Stage 1: descriptor-driven players play every configured task; trajectories are recorded.

Why: the behaviour database that profiles are mined from. Each record keeps the descriptor, the
game, task, seat and every decision's reasoning, message and action.
"""

from __future__ import annotations

from collections import Counter

from tqdm import tqdm

from collabrl.pipeline.config import PipelineConfig
from collabrl.pipeline.descriptors import descriptors_version, make_descriptors
from collabrl.pipeline.players import PlayerFactory, play_trajectory
from collabrl.pipeline.rundir import TRAJECTORIES, RunDir
from collabrl.pipeline.stage import StageSummary


def generate(
    run: RunDir, config: PipelineConfig, factory: PlayerFactory, *, progress: bool = True
) -> StageSummary:
    """Play (descriptors x tasks x episodes) episodes and write ``trajectories.jsonl``."""
    descriptors = make_descriptors(config.generate.random_combinations, config.seed)
    jobs = [
        (section, d, e)
        for section in config.games
        for d in descriptors
        for e in range(config.generate.episodes)
    ]
    records = []
    decisions: Counter[str] = Counter()
    invalid: Counter[str] = Counter()
    for section, d, e in tqdm(jobs, desc="generate", disable=not progress):
        game = section.name
        traj = play_trajectory(
            factory,
            traj_id=f"{game}-{section.task}-{d.id}-e{e}",
            section=section,
            seed=config.seed + e,
            source=d.id,
            persona=d.text,
            levels=d.levels,
        )
        own = [t for t in traj.turns if t["seat"] == traj.seat]
        decisions[game] += len(own)
        invalid[game] += sum(not t["valid"] for t in own)
        records.append(traj.to_dict())
    path = run.write_jsonl(TRAJECTORIES, records)
    summary = StageSummary("generate", files=[str(path)])
    summary.add("descriptors", f"{len(descriptors)} ({descriptors_version()})")
    summary.add("episodes", len(records))
    for game in decisions:
        summary.add(f"{game} decisions (invalid)", f"{decisions[game]} ({invalid[game]})")
    return summary
