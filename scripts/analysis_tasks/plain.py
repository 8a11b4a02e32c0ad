"""Family ``plain``: trap-free tasks for comparison; their notes speed an analyst up but cannot
change the answer.
"""

from __future__ import annotations

import random

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.filters import mean_by, period_samples, site_counts
from analysis_tasks.pieces import (
    draw,
    make_notes,
    number,
    periods_table,
    pick_sites,
    rounded_r,
    scale_note,
    slice_years,
    source_note,
    step,
    unique_argmax,
)
from analysis_tasks.series import excursion_values, one_excursion, runs_of
from analysis_tasks.shared import (
    amber_draft,
    event_step,
    hoard_draft,
    numbered_samples,
    peak_template,
    period_mean_query,
    period_mean_template,
    pick_measure,
    rise_template,
    samples_table,
    slice_draft,
    slices_table,
)
from analysis_tasks.site_tables import fifty_year_bins, hoard_rows
from analysis_tasks.vocabulary import LISTED, REGIONS, SAMPLED


def plain(rng: random.Random, variant: str) -> Draft:
    """No trap: every note helps to find the way, none changes where it ends. Variants: a peak,
    a correlation, a count, a group mean, a single rise."""
    region = rng.choice(REGIONS)
    if variant == "corr":
        rows = site_counts(rng, rng.randint(10, 16), rng.uniform(0.1, 0.3), rng.uniform(2.0, 5.0))
        rows.sort(key=lambda r: r[0])
        r = rounded_r([x[1] for x in rows], [x[2] for x in rows])
        return amber_draft(
            "plain",
            region,
            rows,
            notes=make_notes(
                ("statistics", "Closeness is Pearson's r over sites, to two decimals."),
                ("materials", "Amber counts are beads and pendants; raw lumps are not counted."),
                ("chronology", "All the sites date to the same two centuries."),
            ),
            workflow=[step("corr(sites, amber, monuments)", "Pearson's r over sites")],
            expected=r,
        )
    if variant == "count":
        rows = hoard_rows(rng, fifty_year_bins(rng), pick_sites(rng, 6))
        cut = rng.choice(sorted({r[2] // 100 * 100 for r in rows})[1:])
        older = sum(r[2] > cut for r in rows)
        if not 8 <= len(rows) <= 60 or any(r[2] == cut for r in rows):
            raise Redraw
        return hoard_draft(
            "plain",
            region,
            rows,
            ".",
            query=f"How many of the dated hoards of {region} are older than {cut} BCE?",
            notes=make_notes(
                (
                    "chronology",
                    f"Years BCE count backwards, so a hoard older than "
                    f"{cut} BCE has a larger year number.",
                ),
                ("statistics", "Each row is one hoard."),
                ("materials", "A hoard is two or more bronze objects deposited together."),
            ),
            workflow=[
                step(
                    f"r1 = filter(hoards, year_bce > {cut})",
                    f"older than {cut} BCE",
                    f"r1 = filter(hoards, year_bce >= {cut + 1})",
                ),
                step("count(r1)", "one row per hoard"),
            ],
            template=f"{{value}} hoards are older than {cut} BCE",
            expected=older,
        )
    if variant == "group":
        s = rng.choice(SAMPLED)
        periods, keys = periods_table(rng, rng.randint(8, 10))
        rows = period_samples(rng, s, keys, pick_sites(rng, 4))
        best = keys[unique_argmax(mean_by(rows, 1, 2, keys), (s.typical[1] - s.typical[0]) * 0.02)]
        return Draft(
            family="plain",
            query=period_mean_query(s, region),
            tables=[samples_table(numbered_samples(rng, rows), s), periods],
            notes=make_notes(
                ("statistics", "A period's value is the mean over its samples."),
                (
                    "chronology",
                    "Periods are numbered from the earliest; the periods table gives their spans.",
                ),
                (
                    "materials",
                    f"All samples were measured in one laboratory run; "
                    f"{s.column} needs no correction.",
                ),
            ),
            context=f"samples from {region}",
            variables=[s.column, "period"],
            sentence=f"Among the samples from {region}, {{relation}}.",
            workflow=[
                step(f"r1 = group(samples, period, {s.column}, mean)", "one mean per period"),
                step(f"extrema(r1, {s.column}, period, max)", "the highest mean"),
            ],
            template=period_mean_template(s),
            expected=best,
        )
    m, scale = pick_measure(rng)
    if variant == "peak":
        n = rng.randint(12, 30)
        values = [draw(rng, (scale.low[0], scale.high[1]), scale.decimals) for _ in range(n)]
        index = rng.randrange(n)
        values[index] = draw(rng, scale.spike, scale.decimals)
        op_step = step(f"extrema(slices, {m.column}, year_bce, max)", "the highest slice")
        query = f"When did {m.label} in {region} peak?"
        template = peak_template(m)
    else:
        states = one_excursion(rng)
        n, index = len(states), runs_of(states)[0]
        values = excursion_values(rng, scale, states, True)
        lvl = number(rng.choice(scale.levels))
        op_step = event_step("slices", m.column, ">", lvl, "year_bce", 1, "the only rise")
        query = f"When did {m.label} in {region} first rise above {lvl}?"
        template = rise_template(m, lvl)
    ys = slice_years(rng, n)
    return slice_draft(
        "plain",
        region,
        ys,
        [m.column, "year_bce"],
        ".",
        query=query,
        tables=[slices_table(m, ys, values)],
        notes=make_notes(scale_note(m), source_note(m, region), ("chronology", LISTED)),
        workflow=[op_step],
        template=template,
        expected=ys[index],
    )
