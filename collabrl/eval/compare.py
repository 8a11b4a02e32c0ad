"""Paired comparison of evaluated policies: the same jobs, per-metric means, the difference and
its 95% interval.

Two evaluations pair by job (game, task, partner profile, seat, seed, team size, structure):
each job is one episode of each policy, so the difference of the two episodes cancels what the
job itself contributes (an easy task, a helpful partner). :func:`compare` works on episode rows
(``episodes.csv`` of ``collabrl eval``, or :func:`collabrl.eval.report.episode_rows` in memory);
``collabrl eval --compare A B`` prints it for two evaluation folders.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.stats import Interval, mean_ci, paired_difference

JOB_KEY = ("game", "task", "profile", "seat", "seed", "team_size", "structure")
"""The columns that name one job: two evaluations' episodes with equal values are a pair."""

METRICS: dict[str, str] = {
    "efficiency_reward": "efficiency reward",
    "success": "success",
    "efficiency": "steps/score",
    "message_ratio": "msg freq",
    "valid_rate": "valid",
    "affective": "affective",
}
"""Episode columns compared, with their table headings (a column an evaluation lacks is
skipped)."""

Row = Mapping[str, Any]
Key = tuple[str, ...]


@dataclass(frozen=True)
class Comparison:
    """Policy A against policy B on their shared jobs: per metric both means and B - A."""

    label_a: str
    label_b: str
    jobs: int  # paired jobs
    unpaired: int  # jobs only one side played (left out)
    means_a: dict[str, Interval]
    means_b: dict[str, Interval]
    difference: dict[str, Interval]  # mean of b - a with its paired t interval


def job_key(row: Row) -> Key:
    return tuple(str(row.get(k, "")) for k in JOB_KEY)


def value(row: Row, metric: str) -> float:
    """A metric of one episode row as a float (booleans count 1/0; empty or missing: NaN)."""
    raw = row.get(metric)
    if raw is None or raw == "":
        return math.nan
    if isinstance(raw, str):
        if raw in ("True", "False"):
            return float(raw == "True")
        return float(raw)
    return float(raw)


def _by_job(rows: Sequence[Row], label: str) -> dict[Key, Row]:
    keyed: dict[Key, Row] = {}
    for row in rows:
        key = job_key(row)
        if key in keyed:
            raise CollabrlError(f"{label}: job {key} appears twice; each job must be one episode")
        keyed[key] = row
    return keyed


def compare(
    rows_a: Sequence[Row],
    rows_b: Sequence[Row],
    label_a: str = "A",
    label_b: str = "B",
    metrics: Sequence[str] = tuple(METRICS),
) -> Comparison:
    """Pair ``rows_a`` and ``rows_b`` by job and compare each metric (B - A)."""
    a, b = _by_job(rows_a, label_a), _by_job(rows_b, label_b)
    shared = [k for k in a if k in b]
    if not shared:
        raise CollabrlError(
            f"{label_a} and {label_b} share no job (task, profile, seat, seed): evaluate both "
            "on the same selection"
        )
    present = [m for m in metrics if any(not math.isnan(value(a[k], m)) for k in shared)]
    col_a = {m: [value(a[k], m) for k in shared] for m in present}
    col_b = {m: [value(b[k], m) for k in shared] for m in present}
    return Comparison(
        label_a,
        label_b,
        len(shared),
        len(a) + len(b) - 2 * len(shared),
        {m: mean_ci([v for v in col_a[m] if not math.isnan(v)]) for m in present},
        {m: mean_ci([v for v in col_b[m] if not math.isnan(v)]) for m in present},
        {m: paired_difference(col_a[m], col_b[m]) for m in present},
    )


def comparison_rows(c: Comparison) -> list[dict[str, Any]]:
    """One row per metric: both means, the difference and its interval (for CSV/JSON)."""
    return [
        {
            "metric": m,
            c.label_a: c.means_a[m].mean,
            c.label_b: c.means_b[m].mean,
            "difference": d.mean,
            "ci_low": d.low,
            "ci_high": d.high,
            "pairs": d.n,
            "distinguishable": d.excludes_zero,
        }
        for m, d in c.difference.items()
    ]


def comparison_markdown(c: Comparison) -> str:
    """The comparison as a markdown table, one line per metric."""
    from tabulate import tabulate

    lines = [
        [
            METRICS.get(m, m),
            f"{c.means_a[m].mean:.3f}",
            f"{c.means_b[m].mean:.3f}",
            d.cell(),
            "yes" if d.excludes_zero else "no",
        ]
        for m, d in c.difference.items()
    ]
    headers = ["metric", c.label_a, c.label_b, f"{c.label_b} - {c.label_a} [95% CI]", "≠ 0"]
    note = f"{c.jobs} paired jobs" + (f"; {c.unpaired} unpaired left out" if c.unpaired else "")
    return tabulate(lines, headers=headers, tablefmt="github") + f"\n\n_{note}_"


def verdict(c: Comparison, metric: str = "efficiency_reward") -> str:
    """One sentence saying whether B differs from A on ``metric`` beyond chance."""
    d = c.difference[metric]
    name = METRICS.get(metric, metric)
    if not d.excludes_zero:
        return (
            f"{c.label_b} vs {c.label_a}: the difference in {name} ({d.cell()}, 95% CI over "
            f"{d.n} paired jobs) is not distinguishable from zero."
        )
    direction = "above" if d.mean > 0 else "below"
    return (
        f"{c.label_b} is {direction} {c.label_a} on {name} by {d.cell()} (95% CI over {d.n} "
        "paired jobs, excluding zero)."
    )


def read_episodes(folder: Path) -> list[dict[str, str]]:
    """The episode rows of an evaluation folder (``episodes.csv``)."""
    path = Path(folder) / "episodes.csv"
    if not path.is_file():
        raise CollabrlError(f"{folder}: no episodes.csv; is it a `collabrl eval` output folder?")
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
