"""Family ``required_filter``: the answer holds only after a filter that a note asks for
(site, context, small samples, a correlation on the kept sites).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.pieces import (
    draw,
    make_notes,
    make_table,
    periods_table,
    pick_sites,
    rounded_r,
    step,
    trap,
    unique_argmax,
)
from analysis_tasks.shared import (
    amber_draft,
    numbered_samples,
    period_mean_query,
    period_mean_template,
    samples_table,
)
from analysis_tasks.vocabulary import GRAIN, REGIONS, SAMPLED, Sampled
from collabrl.envs.analysis.tasks import (
    Role,
)


def period_samples(
    rng: random.Random, s: Sampled, periods: list[int], sites: list[str]
) -> list[list[Any]]:
    """3-5 ordinary samples per period, from random sites: [site, period, value] rows."""
    return [
        [rng.choice(sites), p, draw(rng, s.typical, s.decimals)]
        for p in periods
        for _ in range(rng.randint(3, 5))
    ]


def mean_by(
    rows: Sequence[Sequence[Any]], key: int, value: int, keys: Sequence[Any]
) -> list[float]:
    """Mean of column ``value`` per key, in the order of ``keys``."""
    groups: dict[Any, list[float]] = {k: [] for k in keys}
    for r in rows:
        groups[r[key]].append(r[value])
    return [sum(groups[k]) / len(groups[k]) for k in keys]


def required_filter(rng: random.Random, variant: str) -> Draft:
    """Some rows must go before any summary (a note says why). Variants: a contaminated site, an
    intrusive context, assemblages too small, an outlying site in a correlation."""
    region = rng.choice(REGIONS)
    if variant == "corr":
        return filter_corr(rng, region)
    if variant == "small":
        return filter_small(rng, region)
    s = rng.choice(SAMPLED) if variant == "site" else GRAIN
    periods, keys = periods_table(rng, rng.randint(8, 10))
    sites = pick_sites(rng, rng.randint(4, 5))
    width = s.typical[1] - s.typical[0]
    rows = period_samples(rng, s, keys, sites[1:])
    bad_periods = rng.sample(keys, 3)
    if variant == "site":
        bad, column, wrong = sites[0], "site", sites[0]
        extra = [
            [bad, p, draw(rng, (s.typical[1], s.typical[1] + width), s.decimals)]
            for p in bad_periods
            for _ in range(rng.randint(1, 2))
        ]
        trap_note: tuple[Role, str] = (
            "materials",
            f"The {bad} samples {s.flaw}; they must be left out.",
        )
        other: tuple[Role, str] = (
            "chronology",
            "Periods are numbered from the earliest; the "
            "periods table gives their spans in years BCE.",
        )
        context = f"samples from {region}, {bad} excluded"
    else:
        column, wrong = "context", "pit"
        contexts = ["floor", "ditch", "posthole"]
        rows = [[rng.choice(contexts), p, v] for _, p, v in rows]
        extra = [
            ["pit", p, draw(rng, (s.typical[1], s.typical[1] + width), s.decimals)]
            for p in bad_periods
            for _ in range(rng.randint(1, 2))
        ]
        trap_note = (
            "chronology",
            "The pits were recut in later periods, so whatever lies in "
            'the "pit" contexts is intrusive and does not date to its layer; leave '
            "those rows out.",
        )
        other = (
            "materials",
            "Every sample is ten litres of soil floated the same way, so "
            "densities compare directly.",
        )
        context = f"samples from {region}, pit contexts excluded"
    gold_means = mean_by(rows, 1, 2, keys)
    best = keys[unique_argmax(gold_means, width * 0.02)]
    naive_means = mean_by(rows + extra, 1, 2, keys)
    if keys[unique_argmax(naive_means, width * 0.02)] == best:
        raise Redraw
    table_rows = numbered_samples(rng, rows + extra)
    label = "Site of the sample" if column == "site" else "Excavated context of the sample"
    return Draft(
        family="required_filter",
        query=period_mean_query(s, region),
        tables=[samples_table(table_rows, s, (column, label)), periods],
        notes=make_notes(
            trap_note,
            other,
            (
                "statistics",
                "A period's value is the mean over its samples; every sample counts once.",
            ),
        ),
        context=context,
        variables=[s.column, "period"],
        sentence=f"Among the {context}, {{relation}}.",
        workflow=[
            step(
                f'r1 = filter(samples, {column} != "{wrong}")',
                "those rows are not evidence for the period they sit in",
            ),
            step(f"r2 = group(r1, period, {s.column}, mean)", "one mean per period"),
            step(f"extrema(r2, {s.column}, period, max)", "the period with the highest mean"),
        ],
        template=period_mean_template(s),
        expected=best,
        traps=[trap("required_filter", "n1", 0, f"r1 = select(samples, period, {s.column})")],
    )


def filter_small(rng: random.Random, region: str) -> Draft:
    """Shares from tiny assemblages swing wildly; only those of at least 30 sherds count."""
    phases, keys = periods_table(rng, rng.randint(8, 10), "phases", "phase")
    rows = []
    for p in keys:
        for _ in range(rng.randint(2, 3)):
            rows.append([p, rng.randint(40, 400), draw(rng, (8.0, 30.0), 1)])
        if rng.random() < 0.4:
            rows.append([p, rng.randint(4, 25), draw(rng, (35.0, 70.0), 1)])
    best = keys[unique_argmax(mean_by([r for r in rows if r[1] >= 30], 0, 2, keys), 0.5)]
    if keys[unique_argmax(mean_by(rows, 0, 2, keys), 0.5)] == best:
        raise Redraw
    table_rows = [[f"A{i + 1:02d}", *r] for i, r in enumerate(rows)]
    return Draft(
        family="required_filter",
        query=f"In which phase was the share of decorated pottery highest in {region}?",
        tables=[
            make_table(
                "assemblages",
                "One row per excavated pottery assemblage.",
                [
                    ("assemblage", "Assemblage number"),
                    ("phase", "Phase of the assemblage, 1 the earliest"),
                    ("sherds", "Sherds in the assemblage"),
                    ("decorated_pct", "Decorated sherds, % of the assemblage"),
                ],
                table_rows,
            ),
            phases,
        ],
        notes=make_notes(
            (
                "statistics",
                "Percentages from assemblages of fewer than 30 sherds "
                "swing wildly; use only assemblages of at least 30.",
            ),
            (
                "materials",
                "Decorated means incised, stamped or cord-impressed; "
                "plain burnished ware counts as undecorated.",
            ),
            (
                "chronology",
                "Phases are numbered from the earliest; the phases table "
                "gives their spans in years BCE.",
            ),
        ),
        context=f"pottery assemblages of {region} with at least 30 sherds",
        variables=["decorated_pct", "phase"],
        sentence=f"Among the pottery assemblages of {region} with at least 30 sherds, "
        "{relation}.",
        workflow=[
            step(
                "r1 = filter(assemblages, sherds >= 30)",
                "small assemblages give unstable shares",
                "r1 = filter(assemblages, sherds > 29)",
            ),
            step("r2 = group(r1, phase, decorated_pct, mean)", "one share per phase"),
            step("extrema(r2, decorated_pct, phase, max)", "the phase with the highest share"),
        ],
        template="the share of decorated pottery is highest in phase {value}",
        expected=best,
        traps=[trap("required_filter", "n1", 0, "r1 = select(assemblages, phase, decorated_pct)")],
    )


def site_counts(rng: random.Random, n: int, slope: float, noise: float) -> list[list[Any]]:
    """[site, amber, monuments] rows whose counts go together with the given slope and noise."""
    rows = []
    for site in pick_sites(rng, n):
        amber = rng.randint(2, 60)
        monuments = max(0, round(3 + slope * amber + rng.gauss(0, noise)))
        rows.append([site, amber, monuments])
    return rows


def filter_corr(rng: random.Random, region: str) -> Draft:
    """One site's figures mix several cemeteries; it must leave the correlation."""
    rows = site_counts(rng, rng.randint(10, 15), rng.uniform(0.1, 0.3), rng.uniform(2.0, 5.0))
    bad = rows[0][0]
    rows[0][1:] = [rng.randint(150, 260), rng.randint(0, 4)]
    clean = rows[1:]
    gold_r = rounded_r([r[1] for r in clean], [r[2] for r in clean])
    naive_r = rounded_r([r[1] for r in rows], [r[2] for r in rows])
    if abs(abs(gold_r) - abs(naive_r)) < 0.15:
        raise Redraw
    rows.sort(key=lambda r: r[0])
    return amber_draft(
        "required_filter",
        region,
        rows,
        bad,
        notes=make_notes(
            (
                "materials",
                f"The {bad} figures come from an antiquarian collection "
                "that mixes the finds of several cemeteries; that site "
                "must be left out of any comparison.",
            ),
            ("statistics", "Closeness is Pearson's r over sites, to two decimals."),
            (
                "chronology",
                "All the sites date to the same two centuries, so they can be compared directly.",
            ),
        ),
        workflow=[
            step(f'r1 = filter(sites, site != "{bad}")', "that site's counts are mixed"),
            step("corr(r1, amber, monuments)", "Pearson's r over the remaining sites"),
        ],
        expected=gold_r,
        traps=[trap("required_filter", "n1", 0, "r1 = select(sites, amber, monuments)")],
    )
