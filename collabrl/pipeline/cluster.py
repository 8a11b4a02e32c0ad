"""Stage 2: segment trajectories into windows, embed them and k-means them per game (or task).

Why: windows that read alike show one behaviour pattern, whichever descriptor produced them;
each cluster becomes one candidate profile (CollabBench 4.1.2 and C.1).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np
from tqdm import tqdm

from collabrl.pipeline.config import PipelineConfig
from collabrl.pipeline.embed import Embedder
from collabrl.pipeline.kmeans import BACKEND, kmeans
from collabrl.pipeline.players import Trajectory
from collabrl.pipeline.rundir import CLUSTERS, EMBEDDINGS, TRAJECTORIES, WINDOWS, RunDir
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.windows import Window, segment


def window_trajectories(records: list[dict], size: int) -> list[Window]:
    """Every window of every trajectory record, in file order."""
    return [w for r in records for w in segment(Trajectory.from_dict(r), size)]


def cluster(
    run: RunDir, config: PipelineConfig, embedder: Embedder, *, progress: bool = True
) -> StageSummary:
    """Write ``windows.jsonl``, ``embeddings.npy`` (aligned rows) and ``clusters.jsonl``."""
    spec = config.cluster
    windows = window_trajectories(run.read_jsonl(TRAJECTORIES), spec.window)
    vectors = embedder.embed([w.embedding_text() for w in windows])
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, w in enumerate(windows):
        groups[(w.game, w.task if spec.by == "task" else "all")].append(i)
    clusters: list[dict[str, Any]] = []
    small = 0
    for (game, group), rows in tqdm(sorted(groups.items()), desc="cluster", disable=not progress):
        labels = kmeans(vectors[rows], spec.k, config.seed)
        for label in range(labels.max() + 1):
            members = [windows[rows[j]] for j in np.flatnonzero(labels == label)]
            if len(members) < spec.min_size:
                small += 1
                continue
            clusters.append(_record(game, group, len(clusters), members))
    files = [
        run.write_jsonl(WINDOWS, (w.to_dict() for w in windows)),
        run.write_matrix(EMBEDDINGS, vectors),
        run.write_jsonl(CLUSTERS, clusters),
    ]
    summary = StageSummary("cluster", files=[str(f) for f in files])
    summary.add("windows", len(windows))
    summary.add("embedder", embedder.name)
    summary.add("k-means", BACKEND if groups else "-")
    summary.add("groups", len(groups))
    summary.add("clusters kept", len(clusters))
    summary.add(f"clusters under {spec.min_size} windows (dropped)", small)
    return summary


def _record(game: str, group: str, number: int, members: list[Window]) -> dict:
    tasks = Counter(w.task for w in members)
    return {
        "id": f"{game}-{group}-c{number:03d}",
        "game": game,
        "group": group,
        "task": min(tasks, key=lambda t: (-tasks[t], t)),  # the most common task
        "size": len(members),
        "sources": dict(Counter(w.source for w in members).most_common()),
        "windows": [w.id for w in members],
    }
