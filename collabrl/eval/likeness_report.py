"""The human-likeness report on disk: rows (CSV, JSON), a markdown summary and a plot per task."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from collabrl.eval.likeness import PROXY, Likeness
from collabrl.records import write_csv, write_text


def rows(report: Likeness) -> list[dict[str, Any]]:
    """One row per task, type and statistic."""
    return [
        {"task": task, "type": kind, "statistic": stat, **asdict(d)}
        for task, types in report.table.items()
        for kind, stats in types.items()
        for stat, d in stats.items()
    ]


def _fmt(x: float, digits: int = 2) -> str:
    return "n/a" if not math.isfinite(x) else f"{x:.{digits}f}"


def summary_markdown(report: Likeness) -> str:
    """Per task: each type's mean distance to the people (human SDs) and, for the human proxy,
    on how many statistics it is closer than every persona type; then the statistics' table."""
    tasks = list(report.table)
    lines = [
        f"Mean distance to the test humans, in human standard deviations (Wasserstein per "
        f"statistic, {len(report.statistics)} statistics; {report.episodes} episodes per type "
        "and task; lower is more human-like).",
        "",
        "| type | " + " | ".join(tasks) + " | mean |",
        "|---|" + "---:|" * (len(tasks) + 1),
    ]
    for kind in report.types:
        values = [report.mean_distance(t, kind) for t in tasks]
        finite = [v for v in values if math.isfinite(v)]
        mean = sum(finite) / len(finite) if finite else math.nan
        cells = " | ".join(_fmt(v) for v in values)
        lines.append(f"| {kind} | {cells} | {_fmt(mean)} |")
    if PROXY in report.types:
        wins = [report.closer_than_personas(t) for t in tasks]
        checks = [report.score_check(t) for t in tasks]
        inside = sum(q1 <= m <= q3 for q1, q3, m in checks)
        lines += [
            "",
            f"Human-proxy pairs' median {report.statistics[0]} against the test humans' "
            f"interquartile range (inside on {inside} of {len(tasks)}): "
            + ", ".join(
                f"{t} {m:.0f} (IQR {q1:.0f}-{q3:.0f})"
                for t, (q1, q3, m) in zip(tasks, checks, strict=True)
            ),
            "",
            "Statistics on which the human proxy is closer to the humans than every persona "
            "type: " + ", ".join(f"{t} {w}/{n}" for t, (w, n) in zip(tasks, wins, strict=True)),
        ]
    return "\n".join(lines) + "\n"


def statistics_markdown(report: Likeness, task: str) -> str:
    """One task: people's mean per statistic, and each type's mean and distance [interval]."""
    kinds = report.types
    lines = [
        f"### {task} ({report.humans[task]} test trials)",
        "",
        "| statistic | humans | " + " | ".join(kinds) + " |",
        "|---|---:|" + "---:|" * len(kinds),
    ]
    for stat in report.statistics:
        first = report.table[task][kinds[0]][stat]
        cells = []
        for kind in kinds:
            d = report.table[task][kind][stat]
            cells.append(
                f"{_fmt(d.type_mean)} ({_fmt(d.distance, 1)} [{_fmt(d.low, 1)}, {_fmt(d.high, 1)}])"
            )
        lines.append(f"| {stat} | {_fmt(first.human_mean)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_task(report: Likeness, task: str, path: Path) -> Path:
    """A heat map of one task: types by statistics, coloured by distance (human SDs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    kinds, stats = report.types, report.statistics
    grid = np.array([[report.table[task][k][s].distance for s in stats] for k in kinds])
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * len(stats), 1.0 + 0.45 * len(kinds)))
    image = ax.imshow(np.nan_to_num(grid, nan=np.nan), cmap="viridis_r", vmin=0, vmax=5)
    ax.set_xticks(range(len(stats)), stats, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(kinds)), kinds, fontsize=8)
    for i in range(len(kinds)):
        for j in range(len(stats)):
            if math.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=6, color="w")
    ax.set_title(f"{task}: distance to the test humans (human SDs)", fontsize=9)
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(report: Likeness, out: Path, stamp: dict[str, Any]) -> list[Path]:
    """``likeness.csv``, ``likeness.json``, ``likeness.md`` and ``likeness_<task>.png``."""
    out.mkdir(parents=True, exist_ok=True)
    table = rows(report)
    write_csv(out / "likeness.csv", table)
    write_text(
        out / "likeness.json",
        json.dumps(
            {"stamp": stamp, "humans": report.humans, "scores": report.scores, "rows": table},
            indent=1,
        )
        + "\n",
    )
    text = (
        summary_markdown(report)
        + "\n"
        + "\n".join(statistics_markdown(report, t) for t in report.table)
    )
    write_text(out / "likeness.md", text)
    plots = [plot_task(report, t, out / f"likeness_{t}.png") for t in report.table]
    return [out / "likeness.csv", out / "likeness.json", out / "likeness.md", *plots]
