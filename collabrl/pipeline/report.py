"""Stage 5: fidelity report, before vs after filtering (CollabBench C.2 and D.3.3 metrics).

Why: filtering should make windows of one profile read more alike (lower D_intra, higher LC^k
and consistency score) without collapsing diversity (Spread, Cluster_xi). Computed per game on
the windows played in stage 4, labelled by the profile that drove them: "before" uses every
candidate, "after" only the kept ones.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from collabrl.pipeline.config import PipelineConfig
from collabrl.pipeline.embed import Embedder
from collabrl.pipeline.fidelity import fidelity
from collabrl.pipeline.players import Trajectory
from collabrl.pipeline.rundir import (
    FIDELITY_JSON,
    FIDELITY_MD,
    FILTER_TRAJECTORIES,
    SCORES,
    RunDir,
)
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.windows import segment

METRICS = (
    ("profiles", "Profiles"),
    ("windows", "Windows"),
    ("d_intra", "Intra-class distance D_intra (lower is better)"),
    ("lc_k", "k-NN label consistency LC^k (higher is better)"),
    ("consistency", "Consistency score (higher is better)"),
    ("spread", "Spread (higher is better)"),
    ("cluster_xi", "Cluster_xi (higher is better)"),
)


def report(run: RunDir, config: PipelineConfig, embedder: Embedder) -> StageSummary:
    """Write ``fidelity.json`` and ``fidelity.md``; the summary carries the printed table."""
    spec = config.report
    kept = {s["profile"] for s in run.read_jsonl(SCORES) if s["kept"]}
    windows = [
        w
        for r in run.read_jsonl(FILTER_TRAJECTORIES)
        for w in segment(Trajectory.from_dict(r), config.cluster.window)
    ]
    vectors = embedder.embed([w.embedding_text() for w in windows])
    results: dict[str, dict[str, Any]] = {}
    for game in sorted({w.game for w in windows}):
        for phase, chosen in (("before", lambda w: True), ("after", lambda w: w.source in kept)):
            rows = [i for i, w in enumerate(windows) if w.game == game and chosen(w)]
            labels = [windows[i].source for i in rows]
            results.setdefault(game, {})[phase] = fidelity(
                vectors[rows], labels, k=spec.knn_k, gamma=spec.gamma, xi=spec.xi
            )
    table = fidelity_table(results)
    data = {
        "embedder": embedder.name,
        "knn_k": spec.knn_k,
        "gamma": spec.gamma,
        "xi": spec.xi,
        "window": config.cluster.window,
        "games": results,
    }
    files = [
        run.write_json(FIDELITY_JSON, data),
        run.write_text(FIDELITY_MD, _markdown(data, table)),
    ]
    summary = StageSummary("report", files=[str(f) for f in files], extra=table)
    summary.add("embedder", embedder.name)
    summary.add("games", ", ".join(results) or "-")
    summary.add("windows", len(windows))
    return summary


def fidelity_table(results: dict[str, dict[str, Any]]) -> str:
    """Metrics as rows, (game, before/after) as columns, in GitHub Markdown."""
    columns = [(g, p) for g in results for p in ("before", "after")]
    rows = [[title, *(_cell(results[g][p][key]) for g, p in columns)] for key, title in METRICS]
    return tabulate(rows, headers=["Metric", *(f"{g} {p}" for g, p in columns)], tablefmt="github")


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _markdown(data: dict[str, Any], table: str) -> str:
    return (
        "# Profile fidelity before and after filtering\n\n"
        f"Embedder `{data['embedder']}`, windows of {data['window']} decisions, "
        f"k = {data['knn_k']}, gamma = {data['gamma']}, xi = {data['xi']}.\n\n{table}\n"
    )
