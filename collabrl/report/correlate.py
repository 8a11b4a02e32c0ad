"""Robustness of the benchmark across partner models (CollabBench Figure 3b and Figure 9b): the
Pearson correlation of game scores between two evaluations whose partners run on different LLMs
(the paper: Qwen2.5-72B-Instruct vs DeepSeek-V3.1 players, r = 0.821 on CWAH, 0.753 on Cook).

The two folders must have played the same jobs; each job (or, with ``by="profile"``, each task x
partner profile, its seats and seeds averaged; ``by="task"``: each task) is one point. Pearson's
r per game with its Fisher-z 95% interval (n >= 4) and two-sided p-value; a scatter PNG per game.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError
from collabrl.report.folders import JOB, EvalFolder

LEVEL = 0.95
UNITS = {"job": JOB, "profile": ("game", "task", "profile"), "task": ("game", "task")}


@dataclass(frozen=True)
class Correlation:
    game: str
    n: int
    r: float
    low: float
    high: float
    p: float
    points: list[tuple[str, float, float]]  # (unit, value in A, value in B)

    def row(self) -> dict[str, Any]:
        def clean(v: float) -> float | None:
            return None if math.isnan(v) else v

        return {
            "game": self.game,
            "points": self.n,
            "pearson_r": clean(self.r),
            "ci_low": clean(self.low),
            "ci_high": clean(self.high),
            "p": clean(self.p),
        }


def _units(folder: EvalFolder, game: str, metric: str, by: str) -> dict[str, float]:
    """unit -> mean of ``metric`` over its episodes (stalled ones left out for efficiency)."""
    keys = UNITS[by]
    values: dict[str, list[float]] = defaultdict(list)
    for row in folder.episodes:
        if row["game"] != game or (metric == "efficiency" and row.get("stalled") == "True"):
            continue
        raw = row.get(metric)
        if raw in (None, ""):
            continue
        values[" | ".join(str(row.get(k, "")) for k in keys)].append(float(raw))
    return {unit: sum(v) / len(v) for unit, v in values.items()}


def pearson(x: Sequence[float], y: Sequence[float], level: float = LEVEL) -> tuple[float, ...]:
    """(r, low, high, p): Pearson's r with its Fisher-z interval (n >= 4) and p-value; NaN where
    undefined (fewer than 3 points or a constant side)."""
    from scipy import stats

    n = len(x)
    if n < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return (math.nan,) * 4
    r, p = stats.pearsonr(x, y)
    r, p = float(r), float(p)
    if n < 4 or abs(r) >= 1.0:
        return r, (r if abs(r) >= 1 else math.nan), (r if abs(r) >= 1 else math.nan), p
    half = stats.norm.ppf(0.5 + level / 2) / math.sqrt(n - 3)
    z = math.atanh(r)
    return r, math.tanh(z - half), math.tanh(z + half), p


def correlate(
    a: EvalFolder, b: EvalFolder, metric: str = "efficiency", by: str = "job"
) -> list[Correlation]:
    """Per game both folders played: Pearson's r of ``metric`` over their shared units."""
    out = []
    for game in [g for g in a.games() if g in b.games()]:
        ua, ub = _units(a, game, metric, by), _units(b, game, metric, by)
        shared = [u for u in ua if u in ub]
        x, y = [ua[u] for u in shared], [ub[u] for u in shared]
        r, low, high, p = pearson(x, y)
        out.append(
            Correlation(game, len(shared), r, low, high, p, list(zip(shared, x, y, strict=True)))
        )
    if not out:
        raise CollabrlError(f"{a.path} and {b.path} share no game")
    return out


def markdown(results: Sequence[Correlation], a: EvalFolder, b: EvalFolder, metric: str) -> str:
    from tabulate import tabulate

    def f(v: float) -> str:
        return "—" if math.isnan(v) else f"{v:.3f}"

    lines = [
        [get_game(c.game).title, c.n, f(c.r), f"[{f(c.low)}, {f(c.high)}]", f(c.p)] for c in results
    ]
    table = tabulate(
        lines,
        ["Game", "Points", "Pearson r", "95% CI", "p"],
        tablefmt="github",
        disable_numparse=True,
    )
    return f"### {metric}: {a.label} vs {b.label} (Figure 3b)\n\n{table}\n"


def scatter(path: Path, c: Correlation, a: EvalFolder, b: EvalFolder, metric: str) -> None:
    """One game's points, A on x and B on y, with the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.8, 4.5))
    xs, ys = [p[1] for p in c.points], [p[2] for p in c.points]
    ax.scatter(xs, ys, s=14, alpha=0.7)
    if xs:
        lo, hi = min(xs + ys), max(xs + ys)
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--")
    r = "n/a" if math.isnan(c.r) else f"{c.r:.3f}"
    ax.set_title(f"{get_game(c.game).title}: r = {r} (n = {c.n})", fontsize=9)
    ax.set_xlabel(f"{metric}: {a.label}", fontsize=8)
    ax.set_ylabel(f"{metric}: {b.label}", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
