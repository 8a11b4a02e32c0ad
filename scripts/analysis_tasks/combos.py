"""Family ``combo``: two traps in one task (BCE order with a first event or smoothing, a filter
with bins or a plateau).
"""

from __future__ import annotations

import random
from typing import Any

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.pieces import (
    draw,
    make_notes,
    number,
    periods_table,
    pick_sites,
    scale_note,
    slice_years,
    source_note,
    step,
    trap,
)
from analysis_tasks.series import (
    first_crossing,
    plateau_series,
    runs_of,
    trailing_mean,
    two_excursions,
)
from analysis_tasks.shared import (
    busiest_bin_draft,
    busiest_bin_steps,
    event_step,
    excursion_slices,
    numbered_samples,
    pick_measure,
    report_order_table,
    rise_template,
    samples_table,
    slice_draft,
    time_order_step,
    time_order_trap,
)
from analysis_tasks.site_tables import (
    BIN_NOTE,
    HOARD_ROWS_NOTE,
    best_bin,
    bin_counts,
    fifty_year_bins,
    hoard_rows,
)
from analysis_tasks.vocabulary import BCE_NOTE, GRAIN, REGIONS, SCALES


def combo(rng: random.Random, variant: str) -> Draft:
    """Two traps in one task, their notes with different roles."""
    region = rng.choice(REGIONS)
    return {
        "bce_first": bce_first,
        "bce_smoothed": bce_smoothed,
        "filter_bin": filter_bin,
        "filter_plateau": filter_plateau,
    }[variant](rng, region)


def bce_first(rng: random.Random, region: str) -> Draft:
    """Years BCE listed smallest first, and the rise meant is the second one."""
    m, scale = pick_measure(rng)
    states = two_excursions(rng)
    values, ys, lvl = excursion_slices(rng, scale, states, True)
    trap_note = (
        f"The first, brief rise of {m.column} above {lvl} is one exceptional find group, not a "
        "change in practice; the regional literature means the second rise above it."
    )
    return slice_draft(
        "combo",
        region,
        ys,
        [m.column, "year"],
        f", when {m.column} rises above {lvl} for the second time in time order.",
        query=f"In {region}, when does {m.event} begin, judged by {m.label} rising above {lvl}?",
        tables=[report_order_table(ys, [(m.column, m.description)], values)],
        notes=make_notes(("chronology", BCE_NOTE), ("materials", trap_note), scale_note(m)),
        workflow=[
            time_order_step(),
            event_step("r1", m.column, ">", lvl, "year", 2, "the second rise is the one meant"),
        ],
        template=f"{m.event} begins in {{value}} BCE",
        expected=ys[runs_of(states)[1]],
        traps=[
            time_order_trap(),
            trap("first_vs_second", "n2", 1, f"event(r1, {m.column}, >, {lvl}, year, 1)"),
        ],
    )


def bce_smoothed(rng: random.Random, region: str) -> Draft:
    """Years BCE listed smallest first, and a smoothed column that crosses a level late."""
    m, scale = pick_measure(rng)
    n = rng.randint(14, 24)
    pre = rng.randint(5, n - 5)
    values = [
        draw(rng, (scale.low[0], scale.mid[1]) if i < pre else scale.high, scale.decimals)
        for i in range(n)
    ]
    smooth = trailing_mean(values, 3, scale.decimals)
    level = rng.choice(scale.levels)
    lvl = number(level)
    if first_crossing(smooth, level, scale.margin / 2) <= first_crossing(
        values, level, scale.margin
    ):
        raise Redraw
    ys = slice_years(rng, n)
    span = (ys[0] - ys[1]) * 3
    c = m.column
    columns = [
        (c, m.description),
        (
            f"{c}_smooth",
            f"{c} smoothed over {span} years: the mean of the slice and the two slices before "
            "it in time",
        ),
    ]
    return slice_draft(
        "combo",
        region,
        ys,
        [c, "year"],
        " (the raw series, read in time order).",
        query=f"When did {m.label} in {region} first exceed {lvl}?",
        tables=[report_order_table(ys, columns, values, smooth)],
        notes=make_notes(
            ("chronology", BCE_NOTE),
            (
                "statistics",
                f"{c}_smooth is a trailing mean: it shifts changes later, "
                f"so timings are read from the raw {c}.",
            ),
            source_note(m, region),
        ),
        workflow=[
            time_order_step(),
            event_step("r1", c, ">", lvl, "year", 1, "the raw series' first crossing"),
        ],
        template=rise_template(m, lvl),
        expected=ys[pre],
        traps=[
            time_order_trap(),
            trap("smoothed_column", "n2", 1, f"event(r1, {c}_smooth, >, {lvl}, year, 1)"),
        ],
    )


def filter_bin(rng: random.Random, region: str) -> Draft:
    """Misdated hoards from one site, and counts per 50-year bin."""
    sites = pick_sites(rng, rng.randint(5, 7))
    bad = sites[0]
    counts = fifty_year_bins(rng)
    clean = hoard_rows(rng, counts, sites[1:])
    best = best_bin(bin_counts(clean, 50))
    target = rng.choice([b for b in counts if b != best])
    extra = counts[best] - counts[target] + rng.randint(1, 2)
    misdated = hoard_rows(rng, {target: extra}, [bad])
    rows = clean + misdated
    rng.shuffle(rows)
    rows = [[f"H{i:02d}", *r[1:]] for i, r in enumerate(rows, 1)]
    if not 8 <= len(rows) <= 60:
        raise Redraw
    return busiest_bin_draft(
        "combo",
        region,
        rows,
        bad,
        notes=make_notes(
            (
                "materials",
                f"The {bad} hoards were dated by typology alone, with a "
                "scheme now known to be wrong; leave them out.",
            ),
            ("chronology", BIN_NOTE),
            HOARD_ROWS_NOTE,
        ),
        workflow=[
            step(f'r1 = filter(hoards, site != "{bad}")', "those dates are unreliable"),
            *busiest_bin_steps("r1", 2),
        ],
        expected=best,
        traps=[
            trap("required_filter", "n1", 0, "r1 = select(hoards, hoard, year_bce)"),
            trap("unit_or_bin", "n2", 1, "r2 = bin(r1, year_bce, 100)"),
        ],
    )


def filter_plateau(rng: random.Random, region: str) -> Draft:
    """Contaminated samples break the first period of a florescence (defined as the longest
    level stretch of period means)."""
    scale = SCALES["pct"]
    n = rng.randint(12, 18)
    means, stretch, _ = plateau_series(rng, scale, n)
    periods, keys = periods_table(rng, n)
    sites = pick_sites(rng, 4)
    bad = sites[0]
    rows: list[list[Any]] = []
    for p, mean in zip(keys, means, strict=True):
        d = round(rng.uniform(0.1, 0.6), 1)
        rows += [
            [rng.choice(sites[1:]), p, round(mean + d, 1)],
            [rng.choice(sites[1:]), p, round(mean - d, 1)],
        ]
    ordinary = [p for p in keys if p - 1 not in stretch]
    rows += [[bad, p, means[p - 1]] for p in rng.sample(ordinary, min(3, len(ordinary)))]
    first = stretch[0]
    rows.append([bad, keys[first], round(means[first] - 4 * scale.tolerance, 1)])
    table_rows = numbered_samples(rng, rows)
    tol = number(scale.tolerance)
    return Draft(
        family="combo",
        query=f"When did the florescence of cereal farming in {region} begin, judged by the "
        "density of charred grain?",
        tables=[
            samples_table(table_rows, GRAIN, description="One row per floated soil sample."),
            periods,
        ],
        notes=make_notes(
            (
                "materials",
                f"The {bad} samples were floated with recycled water "
                "that carried grains between samples; leave them out.",
            ),
            (
                "chronology",
                "A florescence is the longest stretch of periods in "
                f"which a period's mean holds steady (within {tol} of "
                "the stretch's first period); a single outstanding "
                "period is not one.",
            ),
            ("statistics", "A period's value is the mean over its samples."),
        ),
        context=f"samples from {region}, {bad} excluded",
        variables=["grain_per_l", "period"],
        sentence=f"Among the samples from {region} ({bad} excluded), {{relation}}: the period "
        f"means then hold within {tol} longer than at any other time.",
        workflow=[
            step(f'r1 = filter(samples, site != "{bad}")', "those samples are contaminated"),
            step("r2 = group(r1, period, grain_per_l, mean)", "one mean per period"),
            step(
                f"plateau(r2, grain_per_l, period, {tol})",
                "a florescence is the longest level stretch",
            ),
        ],
        template="the florescence of cereal farming begins in period {value}",
        expected=keys[first],
        traps=[
            trap("required_filter", "n1", 0, "r1 = select(samples, period, grain_per_l)"),
            trap("peak_vs_plateau", "n2", 2, "extrema(r2, grain_per_l, period, max)"),
        ],
    )
