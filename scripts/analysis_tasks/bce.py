"""Family ``bce_order``: years BCE count down, so the earliest slice has the largest number."""

from __future__ import annotations

import random
from typing import Any

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.pieces import (
    make_notes,
    make_table,
    pick_sites,
    scale_note,
    source_note,
    step,
    trap,
)
from analysis_tasks.series import one_excursion, runs_of
from analysis_tasks.shared import (
    event_step,
    excursion_slices,
    pick_measure,
    report_order_table,
    rise_template,
    slice_draft,
    time_order_step,
    time_order_trap,
)
from analysis_tasks.vocabulary import BCE_NOTE, MATERIALS, REGIONS


def bce_order(rng: random.Random, variant: str) -> Draft:
    """Dates are years BCE (the chronology note), so the earliest is the largest number and time
    order is descending. Variants: the earliest or latest find of a material; a first rise in a
    table listed with the smallest year first."""
    region = rng.choice(REGIONS)
    if variant == "event":
        return bce_event(rng, region)
    material = rng.choice(MATERIALS)
    sites = pick_sites(rng, rng.randint(4, 6))
    others = rng.sample([x for x in MATERIALS if x != material], 3)
    n = rng.randint(16, 40)
    hits = rng.randint(5, 10)
    kinds = [material] * hits + [rng.choice(others) for _ in range(n - hits)]
    rng.shuffle(kinds)
    dated = rng.sample(range(1200, 3800), n)
    rows: list[list[Any]] = [
        [f"F{i + 1:02d}", rng.choice(sites), kind, year]
        for i, (kind, year) in enumerate(zip(kinds, dated, strict=True))
    ]
    mine = [r for r in rows if r[2] == material]
    earliest = max(mine, key=lambda r: r[3])[1]
    latest = min(mine, key=lambda r: r[3])[1]
    if earliest == latest:
        raise Redraw
    if variant == "earliest":
        query = f"At which site of {region} does {material} appear earliest?"
        template, want, naive, expected = (
            f"{material} appears earliest at {{value}}",
            "max",
            "min",
            earliest,
        )
    else:
        query = f"Which site of {region} has the latest {material}?"
        template, want, naive, expected = (
            f"the latest {material} comes from {{value}}",
            "min",
            "max",
            latest,
        )
    word = "earliest" if variant == "earliest" else "latest"
    return Draft(
        family="bce_order",
        query=query,
        tables=[
            make_table(
                "finds",
                "One row per dated find.",
                [
                    ("find", "Find number"),
                    ("site", "Site of the find"),
                    ("material", "Material of the object"),
                    (
                        "year",
                        "Calibrated date of the find's context, in years as the "
                        "laboratory reports them",
                    ),
                ],
                rows,
            )
        ],
        notes=make_notes(
            ("chronology", BCE_NOTE),
            (
                "materials",
                f"Every {material} object in the table was identified "
                "by eye and checked under the microscope.",
            ),
            (
                "statistics",
                "Each row is one object with its own date; one context can hold several objects.",
            ),
        ),
        context=f"{material} finds of {region}",
        variables=["site", "year", "material"],
        sentence=f"Among the dated {material} finds of {region}, {{relation}} (the {word} date "
        "in years BCE).",
        workflow=[
            step(
                f'r1 = filter(finds, material == "{material}")',
                f"only {material} finds answer the question",
            ),
            step(
                f"extrema(r1, year, site, {want})",
                f"years run BCE, so the {word} find has the "
                f"{'largest' if want == 'max' else 'smallest'} number",
            ),
        ],
        template=template,
        expected=expected,
        traps=[trap("bce_order", "n1", 1, f"extrema(r1, year, site, {naive})")],
    )


def bce_event(rng: random.Random, region: str) -> Draft:
    """A first rise above a level in a slice table listed with the smallest year first: in time
    order (descending years) the rise starts at the excursion's largest year."""
    m, scale = pick_measure(rng)
    states = one_excursion(rng)
    values, ys, lvl = excursion_slices(rng, scale, states, True)
    return slice_draft(
        "bce_order",
        region,
        ys,
        [m.column, "year"],
        ", reading the slices in time order.",
        query=f"When did {m.label} in {region} first rise above {lvl}?",
        tables=[report_order_table(ys, [(m.column, m.description)], values)],
        notes=make_notes(("chronology", BCE_NOTE), source_note(m, region), scale_note(m)),
        workflow=[
            time_order_step(),
            event_step("r1", m.column, ">", lvl, "year", 1, "the first rise in time order"),
        ],
        template=rise_template(m, lvl),
        expected=ys[runs_of(states)[0]],
        traps=[time_order_trap()],
    )
