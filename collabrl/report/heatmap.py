"""Per-task x per-player-type heatmaps of an evaluation (CollabBench Figures 4, 9c and 11).

The paper's figures show, for each task (rows) and each representative player type (columns,
"labelled by double uppercase letters"), the mean game score of the episodes played with that
type of partner, so the weakest task x partner combinations stand out (Figure 11: type "AD" on
task 26). Here a cell is the mean of one ``episodes.csv`` column over the episodes of that task,
column and seat: efficiency (Step or Score; stalled episodes left out, as in the tables),
efficiency_reward, success, an affective dimension, message_ratio, ... Columns are player types
(abbreviated to their initials, as the paper's) or, with ``by="profile"``, the profiles' numbers
within each task. Each figure comes with a CSV of exactly the values drawn.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError
from collabrl.records import write_csv
from collabrl.report.folders import EvalFolder

LOWER_IS_BETTER = {"tokens_per_step_k", "decisions"}
"""Columns where lower is better whatever the game (efficiency follows the game's direction)."""
NOT_METRICS = {"game", "task", "profile", "player_type", "seat", "structure", "composition"}


def abbreviation(player_type: str) -> str:
    """``anxious_doubter`` -> ``AD`` (the paper's double uppercase letters)."""
    return "".join(w[0] for w in player_type.split("_") if w).upper() or player_type


def column_of(row: dict[str, str], by: str) -> str:
    """The heatmap column of an episode: its player type, or its profile's number in the task
    (``cwah-0_read_book-test-03`` -> ``test-03``)."""
    if by == "player_type":
        return row.get("player_type") or "(no type)"
    profile, task = row.get("profile") or "(no profile)", row["task"]
    marker = f"-{task}-"
    return profile.split(marker, 1)[1] if marker in profile else profile


def _float(raw: str | None) -> float | None:
    if raw is None or raw == "":
        return None
    if raw in ("True", "False"):
        return float(raw == "True")
    try:
        number = float(raw)
    except ValueError:
        return None
    return None if math.isnan(number) else number


def metric_names(folder: EvalFolder) -> list[str]:
    """The episodes.csv columns a heatmap can show (numeric somewhere)."""
    columns = list(folder.episodes[0])
    return [
        c
        for c in columns
        if c not in NOT_METRICS and any(_float(r.get(c)) is not None for r in folder.episodes)
    ]


def lower_is_better(game: str, metric: str) -> bool:
    if metric == "efficiency":
        return get_game(game).lower_is_better
    return metric in LOWER_IS_BETTER


def grid(
    folder: EvalFolder, game: str, metric: str, seat: str, by: str = "player_type"
) -> tuple[list[str], list[str], list[list[float | None]], list[list[int]]]:
    """(tasks, columns, means, counts) for one game and seat (``all``: both seats pooled);
    tasks in the benchmark's order, player-type columns in the library's order."""
    from collabrl.profiles import PLAYER_TYPES

    if metric not in metric_names(folder):
        raise CollabrlError(
            f"{folder.path}: no numeric episode column {metric!r}; choose one of "
            f"{', '.join(metric_names(folder))}"
        )
    rows = [
        r
        for r in folder.episodes
        if r["game"] == game
        and (seat == "all" or r["seat"] == seat)
        and not (metric == "efficiency" and r.get("stalled") == "True")
    ]
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        v = _float(r.get(metric))
        if v is not None:
            values[r["task"], column_of(r, by)].append(v)
    played = {t for t, _ in values}
    tasks = [t for t in get_game(game).tasks("test") if t in played]
    tasks += sorted(played - set(tasks))
    cols = {c for _, c in values}
    order = [t for t in PLAYER_TYPES if t in cols] if by == "player_type" else []
    columns = order + sorted(cols - set(order))
    means = [
        [sum(values[t, c]) / len(values[t, c]) if values.get((t, c)) else None for c in columns]
        for t in tasks
    ]
    counts = [[len(values.get((t, c), [])) for c in columns] for t in tasks]
    return tasks, columns, means, counts


def draw(
    path: Path,
    tasks: Sequence[str],
    columns: Sequence[str],
    means: Sequence[Sequence[float | None]],
    *,
    title: str,
    metric: str,
    lower: bool,
    by: str,
) -> None:
    """The heatmap as a PNG (Agg backend; annotated cells, better = brighter)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[math.nan if v is None else v for v in row] for row in means], dtype=float)
    labels = [abbreviation(c) for c in columns] if by == "player_type" else list(columns)
    width = max(4.0, 1.1 * len(columns) + 3.0)
    height = max(2.5, 0.45 * len(tasks) + 1.8)
    fig, ax = plt.subplots(figsize=(width, height))
    image = ax.imshow(data, cmap="viridis_r" if lower else "viridis", aspect="auto")
    ax.set_xticks(range(len(columns)), labels)
    ax.set_yticks(range(len(tasks)), list(tasks))
    finite = data[np.isfinite(data)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for i in range(len(tasks)):
        for j in range(len(columns)):
            if math.isfinite(data[i, j]):
                bright = (data[i, j] < middle) if lower else (data[i, j] > middle)
                ax.text(
                    j,
                    i,
                    f"{data[i, j]:.2f}" if abs(data[i, j]) < 10 else f"{data[i, j]:.1f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="black" if bright else "white",
                )
    fig.colorbar(image, ax=ax, label=f"{metric} ({'lower' if lower else 'higher'} is better)")
    ax.set_title(title, fontsize=10)
    if by == "player_type":
        legend = ", ".join(f"{abbreviation(c)} = {c.replace('_', ' ')}" for c in columns)
        ax.set_xlabel(legend, fontsize=7, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def seat_choices(folder: EvalFolder, seat: str) -> list[str]:
    """The seats to draw: ``both`` = each seat the folder played, one figure each."""
    if seat == "both":
        return sorted({r["seat"] for r in folder.episodes})
    if seat == "all":
        return ["all"]
    return [f"Agent {seat}"]


def heatmaps(
    folder: EvalFolder,
    metric: str,
    out: Path,
    *,
    seat: str = "both",
    by: str = "player_type",
    games: Sequence[str] | None = None,
) -> list[Path]:
    """Every requested (game, seat) heatmap of ``folder`` as PNG + CSV in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for game in games or folder.games():
        if game not in folder.games():
            raise CollabrlError(f"{folder.path} holds no {game} episodes")
        for s in seat_choices(folder, seat):
            tasks, columns, means, counts = grid(folder, game, metric, s, by)
            if not tasks:
                continue
            tag = "both_seats" if s == "all" else s.lower().replace(" ", "")
            stem = out / f"heatmap_{game}_{metric}_{tag}"
            rows: list[dict[str, Any]] = [
                {"task": t, "column": c, "mean": means[i][j], "episodes": counts[i][j]}
                for i, t in enumerate(tasks)
                for j, c in enumerate(columns)
            ]
            write_csv(stem.with_suffix(".csv"), rows, ["task", "column", "mean", "episodes"])
            who = "both seats" if s == "all" else f"policy as {s}"
            draw(
                stem.with_suffix(".png"),
                tasks,
                columns,
                means,
                title=f"{get_game(game).title}: {metric} by task x {by.replace('_', ' ')} "
                f"({who}; {folder.label})",
                metric=metric,
                lower=lower_is_better(game, metric),
                by=by,
            )
            written += [stem.with_suffix(".png"), stem.with_suffix(".csv")]
    return written
