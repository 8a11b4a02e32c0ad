"""Family ``unit_or_bin``: counts per fixed bin or per hundred, as a note defines them."""

from __future__ import annotations

import random

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.pieces import make_notes, make_table, pick_sites, step, trap, unique_argmax
from analysis_tasks.shared import busiest_bin_draft, busiest_bin_steps
from analysis_tasks.site_tables import (
    BIN_NOTE,
    HOARD_ROWS_NOTE,
    best_bin,
    bin_counts,
    fifty_year_bins,
    hoard_rows,
)
from analysis_tasks.vocabulary import REGIONS


def unit_or_bin(rng: random.Random, variant: str) -> Draft:
    """Counts follow a convention (a note says which). Variants: 50-year bins, per 100 sherds."""
    region = rng.choice(REGIONS)
    if variant == "per100":
        return per_hundred(rng, region)
    sites = pick_sites(rng, rng.randint(5, 8))
    rows = hoard_rows(rng, fifty_year_bins(rng), sites)
    if not 8 <= len(rows) <= 60:
        raise Redraw
    best = best_bin(bin_counts(rows, 50))
    best_bin(bin_counts(rows, 100))  # the naive answer must be one bin too
    return busiest_bin_draft(
        "unit_or_bin",
        region,
        rows,
        notes=make_notes(
            ("chronology", BIN_NOTE),
            (
                "materials",
                "A hoard is two or more bronze objects deposited together; "
                "single finds are not in this table.",
            ),
            HOARD_ROWS_NOTE,
        ),
        workflow=busiest_bin_steps("hoards", 1),
        expected=best,
        traps=[trap("unit_or_bin", "n1", 0, "r1 = bin(hoards, year_bce, 100)")],
    )


def per_hundred(rng: random.Random, region: str) -> Draft:
    """Excavated volumes differ between phases: compare decorated sherds per 100, not counts."""
    n = rng.randint(8, 14)
    rows = []
    for p in range(1, n + 1):
        sherds = rng.randint(200, 3000)
        decorated = round(sherds * rng.uniform(0.03, 0.25))
        rows.append([p, sherds, decorated, round(100 * decorated / sherds, 1)])
    best = unique_argmax([r[3] for r in rows], 0.2) + 1
    if unique_argmax([r[2] for r in rows]) + 1 == best:
        raise Redraw
    return Draft(
        family="unit_or_bin",
        query=f"In which phase was decorated pottery most common in {region}?",
        tables=[
            make_table(
                "phases",
                "One row per phase of the settlement sequence.",
                [
                    ("phase", "Phase number, 1 the earliest"),
                    ("sherds", "Sherds recovered from the phase's layers"),
                    ("decorated", "Decorated sherds recovered"),
                    ("decorated_per100", "Decorated sherds per 100 sherds"),
                ],
                rows,
            )
        ],
        notes=make_notes(
            (
                "materials",
                "Excavated volumes differ widely between phases, so raw "
                "sherd counts mostly measure digging effort; compare "
                "decorated sherds per 100 sherds.",
            ),
            ("chronology", "Phases are numbered from the earliest, about a century each."),
            ("statistics", "Each phase is one row; nothing needs grouping."),
        ),
        context=f"the settlement sequence of {region}",
        variables=["decorated_per100", "phase"],
        sentence=f"In the settlement sequence of {region}, {{relation}} (per 100 sherds).",
        workflow=[
            step(
                "extrema(phases, decorated_per100, phase, max)",
                "per 100 sherds removes the differences in excavated volume",
            )
        ],
        template="decorated pottery is most common in phase {value}",
        expected=best,
        traps=[trap("unit_or_bin", "n1", 0, "extrema(phases, decorated, phase, max)")],
    )
