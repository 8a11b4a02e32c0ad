"""Families ``first_vs_second`` (the first or the second excursion) and ``peak_vs_plateau``
(a one-slice peak against a sustained plateau).
"""

from __future__ import annotations

import random

from analysis_tasks.draft import Draft
from analysis_tasks.pieces import (
    make_notes,
    make_table,
    number,
    periods_table,
    scale_note,
    slice_years,
    source_note,
    step,
    trap,
)
from analysis_tasks.series import plateau_series, runs_of, two_excursions
from analysis_tasks.shared import (
    event_step,
    excursion_slices,
    pick_measure,
    slice_draft,
    slices_table,
)
from analysis_tasks.vocabulary import LISTED, REGIONS, SLICE_KEY


def first_vs_second(rng: random.Random, variant: str) -> Draft:
    """When did a change begin? The first excursion beyond the level is one find group; the
    change meant is the second excursion (the materials note). Variants: a rise, a fall."""
    m, scale = pick_measure(rng)
    region = rng.choice(REGIONS)
    rise = variant == "rise"
    states = two_excursions(rng)
    values, ys, lvl = excursion_slices(rng, scale, states, rise)
    op, goes, noun = (">", "above", "rise") if rise else ("<", "below", "fall")
    if rise:
        query = f"In {region}, when does {m.event} begin, judged by {m.label} rising above {lvl}?"
        template = f"{m.event} begins in {{value}} BCE"
        excuse = "one exceptional find group, not a change in practice"
    else:
        query = (
            f"In {region}, from when does {m.event} wane, judged by {m.label} falling below {lvl}?"
        )
        template = f"{m.event} wanes from {{value}} BCE"
        excuse = "a slice with few excavated sites, not a real decline"
    trap_note = (
        f"The first, brief {noun} of {m.column} {goes} {lvl} is {excuse}; what the regional "
        f"literature means is the second time the series goes {goes} {lvl}."
    )
    why = (
        "the change meant is the second excursion beyond the level; the first is a single find "
        "group or a poorly excavated slice"
    )
    return slice_draft(
        "first_vs_second",
        region,
        ys,
        [m.column, "year_bce"],
        f", when {m.column} goes {goes} {lvl} for the second time.",
        query=query,
        tables=[slices_table(m, ys, values)],
        notes=make_notes(("materials", trap_note), scale_note(m), ("chronology", LISTED)),
        workflow=[event_step("slices", m.column, op, lvl, "year_bce", 2, why)],
        template=template,
        expected=ys[runs_of(states)[1]],
        traps=[
            trap("first_vs_second", "n1", 0, f"event(slices, {m.column}, {op}, {lvl}, year_bce, 1)")
        ],
    )


def peak_vs_plateau(rng: random.Random, variant: str) -> Draft:
    """When did a florescence begin? The chronology note defines it as the longest level
    stretch, not the single highest value. Variants: numbered periods, dated slices."""
    m, scale = pick_measure(rng)
    region = rng.choice(REGIONS)
    n = rng.randint(12, 24)
    values, stretch, spike = plateau_series(rng, scale, n)
    tol = number(scale.tolerance)
    if variant == "periods":
        periods, keys = periods_table(rng, n)
        rows = [[p, periods.rows[p - 1][1], v] for p, v in zip(keys, values, strict=True)]
        name, key, unit, where = "phases", "period", "period", "period {value}"
        columns = [
            ("period", "Period number, 1 the earliest"),
            ("start_bce", "First year of the period, BCE"),
            (m.column, m.description),
        ]
        span = f"periods 1-{n}"
    else:
        keys = slice_years(rng, n)
        rows = [[y, v] for y, v in zip(keys, values, strict=True)]
        name, key, unit, where = "slices", "year_bce", "slice", "{value} BCE"
        columns = [("year_bce", SLICE_KEY), (m.column, m.description)]
        span = f"{keys[0]}-{keys[-1]} BCE"
    trap_note = (
        f"A florescence, as the regional literature uses the word, is the longest stretch of "
        f"{unit}s in which {m.column} holds steady (within {tol} of the stretch's first value); "
        f"a single outstanding {unit} is not one, however high."
    )
    template = f"the florescence of {m.label} begins in {where}"
    return Draft(
        family="peak_vs_plateau",
        query=f"When did the florescence of {m.label} in {region} begin?",
        tables=[make_table(name, f"One row per {unit}.", columns, rows)],
        notes=make_notes(("chronology", trap_note), source_note(m, region), scale_note(m)),
        context=f"{region}, {span}",
        variables=[m.column, key],
        sentence=f"In {region} ({span}), {{relation}}: {m.column} then holds within {tol} "
        f"longer than at any other time.",
        workflow=[
            step(
                f"plateau({name}, {m.column}, {key}, {tol})",
                "a florescence is the longest level stretch; the highest single value "
                "is one outstanding find",
            )
        ],
        template=template,
        expected=keys[stretch[0]],
        traps=[trap("peak_vs_plateau", "n1", 0, f"extrema({name}, {m.column}, {key}, max)")],
    )
