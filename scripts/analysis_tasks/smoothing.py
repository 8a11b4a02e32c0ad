"""Family ``smoothed_column``: the answer is read from a smoothed column, not the raw one."""

from __future__ import annotations

import random

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.pieces import (
    draw,
    make_notes,
    make_table,
    number,
    slice_years,
    source_note,
    step,
    trap,
    unique_argmax,
)
from analysis_tasks.series import first_crossing, interpolated, trailing_mean, with_gaps
from analysis_tasks.shared import peak_template, pick_measure, rise_template, slice_draft
from analysis_tasks.vocabulary import LISTED, REGIONS, SLICE_KEY


def smoothed_column(rng: random.Random, variant: str) -> Draft:
    """A trailing smoothed column moves peaks and crossings later; the statistics note says to
    read the raw one. Variants: the peak; the first crossing of a level."""
    m, scale = pick_measure(rng)
    region = rng.choice(REGIONS)
    window = 3
    if variant == "peak":
        n = rng.randint(16, 30)
        values = [draw(rng, (scale.low[0], scale.mid[1]), scale.decimals) for _ in range(n)]
        hump_length = rng.randint(4, 6)
        hump = rng.randint(window + 2, n - hump_length)
        spike = rng.randint(1, hump - window - 1)
        for i in range(hump, hump + hump_length):
            values[i] = draw(rng, scale.high, scale.decimals)
        values[spike] = draw(rng, scale.spike, scale.decimals)
        busy = set(range(spike - 1, spike + 2)) | set(range(hump - 1, hump + hump_length + 1))
        expected_index = spike
    else:
        n = rng.randint(14, 26)
        pre = rng.randint(5, n - 5)
        values = [
            draw(rng, (scale.low[0], scale.mid[1]) if i < pre else scale.high, scale.decimals)
            for i in range(n)
        ]
        busy = set(range(pre - 2, n))
        expected_index = pre
    raw = with_gaps(rng, values, [i for i in range(n) if i not in busy])
    inter = interpolated(raw, scale.decimals)
    smooth = trailing_mean(inter, window, scale.decimals)
    ys = slice_years(rng, n)
    span = (ys[0] - ys[1]) * window
    c = m.column
    columns = [
        ("year_bce", SLICE_KEY),
        (c, f"{m.description}; empty where the slice was not sampled"),
        (f"{c}_inter", f"{c} linearly interpolated over the slices not sampled"),
        (f"{c}_smooth", f"{c}_inter smoothed: mean of the slice and the two before it"),
    ]
    trap_note = (
        f"{c}_smooth is a trailing {span}-year mean: it flattens short peaks and shifts "
        f"changes later, so timings are read from the raw {c} ({c}_inter only fills the "
        "slices not sampled)."
    )
    if variant == "peak":
        if unique_argmax(inter) != spike or unique_argmax(smooth) == spike:
            raise Redraw
        query = f"When did {m.label} in {region} peak?"
        template = peak_template(m)
        first = step(
            f"extrema(slices, {c}, year_bce, max)",
            "peaks are read from the raw series",
            f"extrema(slices, {c}_inter, year_bce, max)",
        )
        naive = f"extrema(slices, {c}_smooth, year_bce, max)"
        how = f"the highest raw value of {c}"
    else:
        lvl_value = rng.choice(scale.levels)
        lvl = number(lvl_value)
        if first_crossing(smooth, lvl_value, scale.margin / 2) <= first_crossing(
            inter, lvl_value, scale.margin
        ):
            raise Redraw
        query = f"When did {m.label} in {region} first exceed {lvl}?"
        template = rise_template(m, lvl)
        first = step(
            f"event(slices, {c}, >, {lvl}, year_bce, 1)",
            "crossings are read from the raw series",
            f"event(slices, {c}_inter, >, {lvl}, year_bce, 1)",
        )
        naive = f"event(slices, {c}_smooth, >, {lvl}, year_bce, 1)"
        how = f"the first raw value of {c} above {lvl}"
    return slice_draft(
        "smoothed_column",
        region,
        ys,
        [c, "year_bce"],
        f" ({how}).",
        query=query,
        tables=[
            make_table(
                "slices",
                "One row per time slice of the lake core.",
                columns,
                [list(r) for r in zip(ys, raw, inter, smooth, strict=True)],
            )
        ],
        notes=make_notes(("statistics", trap_note), source_note(m, region), ("chronology", LISTED)),
        workflow=[first],
        template=template,
        expected=ys[expected_index],
        traps=[trap("smoothed_column", "n1", 0, naive)],
    )
