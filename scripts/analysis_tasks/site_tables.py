"""Site and hoard tables and their bins (the counting and binning that the bins, combos and
plain families share).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from analysis_tasks.pieces import make_table, unique_argmax
from collabrl.envs.analysis.tasks import (
    Role,
    Table,
)

SITE_COLUMNS = [
    ("site", "Site name"),
    ("amber", "Amber beads found at the site"),
    ("monuments", "Monuments recorded at the site"),
]


def sites_table(rows: list[list[Any]]) -> Table:
    """Amber and monument counts per site (correlation tasks)."""
    return make_table("sites", "One row per excavated site.", SITE_COLUMNS, rows)


def hoard_rows(
    rng: random.Random, counts: dict[int, int], sites: Sequence[str], first: int = 1
) -> list[list[Any]]:
    """[hoard, site, year_bce, objects] rows: ``counts[b]`` hoards dated within 50-year bin b."""
    rows = []
    for b, k in counts.items():
        for year in rng.sample(range(b, b + 50), k):
            rows.append([rng.choice(list(sites)), year, rng.randint(2, 40)])
    rng.shuffle(rows)
    return [[f"H{i:02d}", *r] for i, r in enumerate(rows, first)]


def bin_counts(rows: Sequence[Sequence[Any]], width: int) -> dict[int, int]:
    """Hoards per bin of ``width`` years (bins named by their lower year)."""
    out: dict[int, int] = {}
    for r in rows:
        b = r[2] // width * width
        out[b] = out.get(b, 0) + 1
    return out


def best_bin(counts: dict[int, int]) -> int:
    """The bin with the most hoards, which must be the only one with that many."""
    keys = list(counts)
    return keys[unique_argmax([counts[k] for k in keys])]


BIN_NOTE = (
    "The regional chronology compares dates in 50-year bins, each named by its lower year "
    "(bin 1450 holds 1450-1499 BCE); counts of hoards are always given per 50-year bin."
)


HOARD_ROWS_NOTE: tuple[Role, str] = (
    "statistics",
    "Each row is one hoard, so the number of hoards in a bin is the number of its rows.",
)


HOARD_COLUMNS = [
    ("hoard", "Hoard number"),
    ("site", "Findspot"),
    ("year_bce", "Date of deposition, years BCE"),
    ("objects", "Bronze objects in the hoard"),
]


def hoards_table(rows: list[list[Any]]) -> Table:
    """One row per dated hoard (bin and count tasks)."""
    return make_table("hoards", "One row per dated hoard.", HOARD_COLUMNS, rows)


def fifty_year_bins(rng: random.Random) -> dict[int, int]:
    """Hoards per 50-year bin over 10-14 bins, the busiest bin an odd multiple of 50 (so no
    100-year bin can share its name)."""
    first = rng.randrange(1000, 1600, 100)
    bins = [first + 50 * i for i in range(rng.randint(10, 14))]
    counts = {b: rng.randint(1, 4) for b in bins}
    peak = rng.choice([b for b in bins if b % 100 == 50])
    counts[peak] = max(counts.values()) + rng.randint(1, 2)
    return counts
