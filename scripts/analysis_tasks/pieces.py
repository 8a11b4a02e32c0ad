"""Small pieces every family uses: drawing numbers, tables, notes, workflow steps and traps,
slice years, and the statistics the gold answers are worded from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from analysis_tasks.draft import Redraw
from analysis_tasks.vocabulary import SITES, Measure
from collabrl.envs.analysis.tasks import (
    Column,
    Note,
    Role,
    Step,
    Table,
    Trap,
    TrapKind,
)


def draw(rng: random.Random, band: tuple[float, float], decimals: int) -> float:
    """A value in ``band`` as the data card writes it: rounded, whole numbers as ints."""
    value = round(rng.uniform(*band), decimals)
    return int(value) if decimals == 0 else value


def make_table(
    name: str, description: str, columns: Sequence[tuple[str, str]], rows: list
) -> Table:
    """A schema table from (name, description) column pairs and row lists."""
    return Table(
        name=name,
        description=description,
        columns=[Column(name=n, description=d) for n, d in columns],
        rows=[list(r) for r in rows],
    )


def make_notes(*items: tuple[Role, str]) -> list[Note]:
    """Notes with ids n1, n2, ... in the order given (trap notes first)."""
    return [Note(id=f"n{i}", role=role, text=text) for i, (role, text) in enumerate(items, 1)]


def step(text: str, why: str, *alternatives: str) -> Step:
    """A workflow step; each alternative is checked to give the same answer."""
    return Step(step=text, why=why, alternatives=list(alternatives))


def trap(kind: TrapKind, note: str, at: int, naive: str) -> Trap:
    """A trap; every combination of a task's traps is checked to give another relation."""
    return Trap(kind=kind, note=note, at=at, naive_step=naive)


def number(value: float) -> str:
    """A literal as a step writes it: 1.0, 0.3, 6.0."""
    return repr(float(value))


def slice_years(rng: random.Random, n: int) -> list[int]:
    """Start years BCE of ``n`` consecutive 50- or 100-year slices, earliest first."""
    width = rng.choice([50, 100])
    last = rng.randrange(800, 2000, 100)
    return [last + width * (n - 1 - i) for i in range(n)]


def scale_note(m: Measure) -> tuple[Role, str]:
    """How to read the numbers (every analyst would like to know, none needs it to be right)."""
    if m.scale == "z":
        return (
            "statistics",
            f"{m.column} is a z-value: 0 is the long-run mean of the sequence "
            "and 1 one standard deviation above it.",
        )
    return (
        "statistics",
        f"{m.column} is a share of all land pollen counted at that depth of "
        "the core, so slices compare directly.",
    )


def source_note(m: Measure, region: str) -> tuple[Role, str]:
    """Where a series comes from (background a materials specialist offers)."""
    return ("materials", f"In {region} the {m.label} series is built from {m.source}.")


def pick_sites(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct site names."""
    return rng.sample(SITES, n)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's r; constant data cannot make a correlation task."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if not sxx or not syy:
        raise Redraw
    return sxy / math.sqrt(sxx * syy)


def rounded_r(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's r to 2 decimals, refusing values near a rounding edge (another library's last
    bit must not flip the answer)."""
    r = pearson(xs, ys) * 100
    if abs(r - math.floor(r) - 0.5) < 0.05:
        raise Redraw
    return round(r / 100, 2)


def unique_argmax(values: Sequence[float], margin: float = 0.0) -> int:
    """Index of the largest value, which must beat the runner-up by more than ``margin``."""
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=True)
    if len(order) > 1 and values[order[0]] - values[order[1]] <= margin:
        raise Redraw
    return order[0]


def periods_table(
    rng: random.Random, n: int, name: str = "periods", key: str = "period"
) -> tuple[Table, list[int]]:
    """Periods 1..n (1 earliest) with their spans in years BCE, and the periods' numbers."""
    width = rng.choice([100, 150, 200])
    first = rng.randrange(1000, 1800, 100) + width * n
    starts = [first - width * (p - 1) for p in range(1, n + 1)]
    table = make_table(
        name,
        f"One row per {key} of the regional scheme.",
        [
            (key, f"{key.capitalize()} number, 1 the earliest"),
            ("start_bce", f"First year of the {key}, BCE"),
            ("end_bce", f"Last year of the {key}, BCE"),
        ],
        [[p, start, start - width + 1] for p, start in enumerate(starts, 1)],
    )
    return table, list(range(1, n + 1))
