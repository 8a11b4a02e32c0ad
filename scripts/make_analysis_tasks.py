"""Regenerate the analysis game's tasks (38 test, 48 train) reproducibly from one seed.

Usage: ``python scripts/make_analysis_tasks.py [--seed 0] [--out DIR] [--check]``.
The shipped ``collabrl/data/analysis/tasks.json`` must equal what this writes (a test checks it);
``--check`` writes nothing and exits 1 when the file is stale.

Every task is synthetic archaeology (invented regions, sites and numbers, shaped like
DiscoveryBench's archaeology data: time slices in years BCE, z-values of artefact classes,
pollen shares, per-sample measurements). Each family is built around its traps, and the data are
drawn until the reference workflow, run in the analysis language, gives the answer the family
designed while every trap's naive step, and every combination of them, gives another relation.
Trap-free tasks (family "plain") are there for comparison: their notes speed an analyst up but
cannot change the answer.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from collabrl.envs.analysis.language import Workspace
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import (
    AnalysisTask,
    Column,
    Hypothesis,
    Note,
    Role,
    Step,
    Table,
    Trap,
    TrapKind,
    frames,
)

DEFAULT_SEED = 0
DATA_DIR = Path(__file__).resolve().parent.parent / "collabrl" / "data" / "analysis"
Split = Literal["train", "test"]
ATTEMPTS = 500  # draws per task before giving up (a handful suffice; more means a bug)

REGIONS = [
    "the Vell valley", "the Orran lowlands", "the Skarn coast", "the upper Mirren basin",
    "the Tavel plateau", "the Lune moraine", "the Brack fens", "the Hollin downs",
]  # fmt: skip
SITES = [
    "Aldmere", "Brennock", "Corvale", "Duneth", "Esklan", "Farrow", "Galdry", "Hessel",
    "Irwen", "Kelmor", "Lathe", "Morvain", "Nesbit", "Orlow", "Pelter", "Quarne",
]  # fmt: skip
MATERIALS = ["amber", "copper", "jet", "gold", "faience", "glass"]


@dataclass(frozen=True)
class Scale:
    """The value bands of one kind of series: z-values of artefact counts, or pollen shares."""

    decimals: int
    low: tuple[float, float]  # quiet values
    mid: tuple[float, float]  # ordinary values, still below every level
    levels: tuple[float, ...]  # thresholds a query may name
    high: tuple[float, float]  # above every level
    spike: tuple[float, float]  # one outstanding value
    tolerance: float  # what "holds steady" means for a plateau
    margin: float  # no value lies closer than this to a level, so > and >= agree


SCALES = {
    "z": Scale(2, (-1.2, -0.6), (0.0, 0.4), (0.8, 1.0), (1.3, 1.9), (2.5, 3.1), 0.3, 0.1),
    "pct": Scale(1, (1.0, 1.8), (3.4, 4.2), (5.0, 6.0), (7.5, 10.0), (13.0, 16.0), 1.0, 0.3),
}


@dataclass(frozen=True)
class Measure:
    """A time series a query can ask about."""

    column: str
    label: str  # what it counts, as a noun phrase
    description: str
    scale: str
    event: str  # what a rise of it stands for
    source: str  # where the numbers come from


MEASURES = [
    Measure("dagger_z", "dagger finds", "Daggers per time slice, as a z-value over the sequence",
            "z", "the spread of daggers", "dated graves and hoards with daggers"),
    Measure("sickle_z", "sickle finds", "Sickles per time slice, as a z-value over the sequence",
            "z", "sickle harvesting", "sickles from settlements and hoards"),
    Measure("amber_z", "amber finds", "Amber beads per time slice, as a z-value over the sequence",
            "z", "the amber exchange", "amber beads from graves"),
    Measure("axe_z", "axes and celts", "Axes and celts per time slice, as a z-value",
            "z", "the axe trade", "stone and bronze axes from all contexts"),
    Measure("depot_z", "hoard deposition", "Hoards deposited per time slice, as a z-value",
            "z", "the hoarding horizon", "hoards holding at least one datable object"),
    Measure("monument_z", "monument building", "New monuments per time slice, as a z-value",
            "z", "the monument-building phase", "radiocarbon-dated monuments"),
    Measure("copper_z", "copper and gold objects", "Copper and gold objects per slice, z-value",
            "z", "the first metal horizon", "copper and gold objects from graves and hoards"),
    Measure("cereal_pct", "cereal pollen", "Cereal-type pollen as a share of land pollen (%)",
            "pct", "arable farming", "the cereal-type grains of the lake core"),
    Measure("plantago_pct", "ribwort plantain pollen", "Ribwort plantain pollen share (%)",
            "pct", "grazing pressure", "the ribwort plantain grains of the lake core"),
    Measure("nap_pct", "non-tree pollen", "Non-arboreal pollen share (%), a measure of open land",
            "pct", "woodland clearance", "all non-tree pollen of the lake core"),
]  # fmt: skip


@dataclass(frozen=True)
class Sampled:
    """A measurement taken on single samples (filter and grouping tasks)."""

    column: str
    label: str
    description: str
    typical: tuple[float, float]  # ordinary sample values
    decimals: int
    flaw: str  # why one site's samples cannot be used


SAMPLED = [
    Sampled("tin_pct", "tin content of bronzes", "Tin in the metal, % by weight (XRF)",
            (6.0, 11.0), 1, "were measured against a contaminated reference standard that "
            "inflates tin readings"),
    Sampled("arsenic_pct", "arsenic content of copper objects", "Arsenic, % by weight (XRF)",
            (0.5, 3.0), 2, "were measured against a contaminated reference standard that "
            "inflates arsenic readings"),
    Sampled("lead_ppm", "lead in copper objects", "Lead in the metal, parts per million (XRF)",
            (200.0, 900.0), 0, "were read on an instrument whose own shielding adds lead"),
    Sampled("floor_m2", "house floor area", "Floor area of the house plan, square metres",
            (40.0, 120.0), 0, "were planned from aerial photographs that merge overlapping "
            "houses into one"),
]  # fmt: skip
GRAIN = Sampled("grain_per_l", "charred grain density", "Charred cereal grains per litre of soil",
                (2.0, 14.0), 1, "")  # fmt: skip

BCE_NOTE = (
    "All dates in these tables are years BCE: a larger number is earlier, so time runs from the "
    "largest year down to the smallest, and the first or earliest of anything has the largest year."
)
SLICE_KEY = "Start of the time slice, years BCE (a larger number is earlier)"
BARE_YEAR = "Start of the time slice, in years as the dating report gives them"
LISTED = "The slices are listed in time order, one row each, from the earliest down."


@dataclass
class Draft:
    """One task before its name and split, with the answer the family designed it to have."""

    family: str
    query: str
    tables: list[Table]
    notes: list[Note]
    context: str
    variables: list[str]
    sentence: str  # the gold sentence, with {relation} where the relation goes
    workflow: list[Step]
    template: str
    expected: Any  # the value the workflow must yield
    traps: list[Trap] = field(default_factory=list)


class Redraw(Exception):
    """These random numbers do not make the task the family wants; draw again."""


# ---------------------------------------------------------------------------- small pieces


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


# ---------------------------------------------------------------------------- series shapes


def runs_of(states: Sequence[bool]) -> list[int]:
    """Start indices of the runs of True."""
    return [i for i, s in enumerate(states) if s and (i == 0 or not states[i - 1])]


def two_excursions(rng: random.Random) -> list[bool]:
    """Slice states: a brief first excursion (1-2 slices), then a long second one (4-7)."""
    parts = [
        (False, rng.randint(2, 5)),
        (True, rng.randint(1, 2)),
        (False, rng.randint(2, 4)),
        (True, rng.randint(4, 7)),
        (False, rng.randint(2, 5)),
    ]
    return [state for state, length in parts for _ in range(length)]


def one_excursion(rng: random.Random) -> list[bool]:
    """Slice states with one excursion of 3-6 slices."""
    pre, length, post = rng.randint(3, 6), rng.randint(3, 6), rng.randint(3, 6)
    return [False] * pre + [True] * length + [False] * post


def excursion_values(rng: random.Random, scale: Scale, states: list[bool], rise: bool) -> list:
    """Values beyond the levels where a state is True (above for a rise, below for a fall)."""
    above, below = scale.high, (scale.low[0], scale.mid[1])
    return [draw(rng, above if s == rise else below, scale.decimals) for s in states]


def jumpy_baseline(rng: random.Random, scale: Scale, n: int) -> list[float]:
    """Ordinary values alternating between the low and mid bands, so that no two neighbours
    hold steady: the only long level stretch of a series is the one a task puts there."""
    start = rng.randint(0, 1)
    return [
        draw(rng, scale.low if (i + start) % 2 else scale.mid, scale.decimals) for i in range(n)
    ]


def level_run(values: Sequence[float], tolerance: float) -> tuple[int, int]:
    """(start, length) of the longest run staying within ``tolerance`` of its first value,
    the earlier of equal runs."""
    best = (0, 0)
    for i, first in enumerate(values):
        j = i
        while j < len(values) and abs(values[j] - first) <= tolerance:
            j += 1
        if j - i > best[1]:
            best = (i, j - i)
    return best


def robust_plateau(values: Sequence[float], tolerance: float) -> int:
    """Start of the longest level run, which must be the same at 80% and 120% of the tolerance
    and strictly longer than any run outside it: every reading of "within" finds it."""
    start, length = level_run(values, tolerance)
    for factor in (0.8, 1.2):
        if level_run(values, tolerance * factor) != (start, length):
            raise Redraw
    outside = [values[:start], values[start + length :]]
    if any(part and level_run(part, tolerance * 1.2)[1] >= length for part in outside):
        raise Redraw
    return start


def plateau_series(rng: random.Random, scale: Scale, n: int) -> tuple[list[float], range, int]:
    """A jumpy series with one long level stretch of high values and, elsewhere, one higher
    single spike: (values, the stretch's indices, the spike's index)."""
    values = jumpy_baseline(rng, scale, n)
    length = rng.randint(4, 7)
    start = rng.randint(1, n - length - 1)
    level = rng.uniform(*scale.high)
    jitter = scale.tolerance * 0.3
    for i in range(start, start + length):
        values[i] = draw(rng, (level - jitter, level + jitter), scale.decimals)
    spike = rng.choice([i for i in range(n) if i < start - 1 or i > start + length])
    values[spike] = draw(rng, scale.spike, scale.decimals)
    if robust_plateau(values, scale.tolerance) != start:
        raise Redraw
    return values, range(start, start + length), spike


def interpolated(values: Sequence[float | None], decimals: int) -> list[float]:
    """Gaps (None) filled linearly from their neighbours, as the data cards' ``_inter`` columns."""
    filled: list[float] = []
    for i, v in enumerate(values):
        if v is None:
            left = max(j for j in range(i) if values[j] is not None)
            right = min(j for j in range(i + 1, len(values)) if values[j] is not None)
            a, b = values[left], values[right]
            assert a is not None and b is not None
            v = round(a + (i - left) / (right - left) * (b - a), decimals)
        filled.append(v)
    return filled


def trailing_mean(values: Sequence[float], window: int, decimals: int) -> list[float]:
    """Mean of each value and the ``window - 1`` before it (fewer at the start)."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(round(sum(part) / len(part), decimals))
    return out


def with_gaps(rng: random.Random, values: list[float], allowed: Sequence[int]) -> list:
    """The raw series with two slices not sampled, chosen among ``allowed`` (never neighbours,
    never the ends, so the interpolated column is defined everywhere)."""
    pairs = [
        (a, b)
        for a, b in itertools.combinations([i for i in allowed if 0 < i < len(values) - 1], 2)
        if b - a > 1
    ]
    if not pairs:
        raise Redraw
    gaps = rng.choice(pairs)
    return [None if i in gaps else v for i, v in enumerate(values)]


def first_crossing(values: Sequence[float], level: float, margin: float) -> int:
    """Index of the first value above ``level``; every value must keep ``margin`` from it."""
    if any(abs(v - level) < margin for v in values):
        raise Redraw
    above = [i for i, v in enumerate(values) if v > level]
    if not above:
        raise Redraw
    return above[0]


# ---------------------------------------------------------------------------- shared task pieces


def pick_measure(rng: random.Random) -> tuple[Measure, Scale]:
    """A measure, drawn, with the scale its values follow."""
    m = rng.choice(MEASURES)
    return m, SCALES[m.scale]


def excursion_slices(
    rng: random.Random, scale: Scale, states: list[bool], rise: bool
) -> tuple[list, list[int], str]:
    """(values, slice years, level) of a series whose excursions beyond the level follow
    ``states``, drawn in that order."""
    values = excursion_values(rng, scale, states, rise)
    years = slice_years(rng, len(states))
    return values, years, number(rng.choice(scale.levels))


def slices_table(m: Measure, years: Sequence[int], values: Sequence[float]) -> Table:
    """The standard slices table: one measure per slice, earliest slice first."""
    return make_table(
        "slices",
        "One row per time slice.",
        [("year_bce", SLICE_KEY), (m.column, m.description)],
        [[y, v] for y, v in zip(years, values, strict=True)],
    )


def report_order_table(
    years: Sequence[int], columns: Sequence[tuple[str, str]], *series: Sequence[float]
) -> Table:
    """A slices table as the dating report lists it: bare years, the smallest first."""
    rows = sorted((list(r) for r in zip(years, *series, strict=True)), key=lambda r: r[0])
    return make_table(
        "slices",
        "One row per time slice, in the dating report's order.",
        [("year", BARE_YEAR), *columns],
        rows,
    )


def time_order_step() -> Step:
    """The step that puts a report-order slices table into time order (years BCE, descending)."""
    return step("r1 = sort(slices, year, desc)", "years run BCE: descending numbers are time order")


def time_order_trap() -> Trap:
    """The naive sort of a report-order table: ascending years, which runs backwards in time."""
    return trap("bce_order", "n1", 0, "r1 = sort(slices, year, asc)")


def event_step(table: str, column: str, op: str, lvl: str, key: str, nth: int, why: str) -> Step:
    """An ``event`` step, with the non-strict comparison as its alternative."""
    return step(
        f"event({table}, {column}, {op}, {lvl}, {key}, {nth})",
        why,
        f"event({table}, {column}, {op}=, {lvl}, {key}, {nth})",
    )


def rise_template(m: Measure, lvl: str) -> str:
    """The relation of a first rise above a level."""
    return f"the first rise of {m.label} above {lvl} comes in {{value}} BCE"


def peak_template(m: Measure) -> str:
    """The relation of a series' peak."""
    return f"the peak of {m.label} falls in {{value}} BCE"


def slice_draft(
    family: str,
    region: str,
    years: Sequence[int],
    variables: list[str],
    tail: str,
    **parts: Any,
) -> Draft:
    """A draft about one series over dated slices: its context is the region and the slices'
    span, and its sentence opens with them (``tail`` follows the relation); ``parts`` are the
    other fields of :class:`Draft`."""
    return Draft(
        family=family,
        context=f"{region}, {years[0]}-{years[-1]} BCE",
        variables=variables,
        sentence=f"In {region} between {years[0]} and {years[-1]} BCE, {{relation}}{tail}",
        **parts,
    )


def period_mean_query(s: Sampled, region: str) -> str:
    """The question of group tasks: the period with the highest mean."""
    return f"In which period was the mean {s.label} highest in {region}?"


def period_mean_template(s: Sampled) -> str:
    """The relation of group tasks."""
    return f"the mean {s.label} is highest in period {{value}}"


def numbered_samples(rng: random.Random, rows: list[list[Any]]) -> list[list[Any]]:
    """[site or context, period, value] rows shuffled, then put in period order and numbered
    S01, S02, ... (the samples table's rows)."""
    rng.shuffle(rows)
    rows.sort(key=lambda r: r[1])
    return [[f"S{i:02d}", *r] for i, r in enumerate(rows, 1)]


def samples_table(
    rows: list[list[Any]],
    s: Sampled,
    where: tuple[str, str] = ("site", "Site of the sample"),
    description: str = "One row per analysed sample.",
) -> Table:
    """One row per numbered sample: where it comes from, its period and its measurement."""
    return make_table(
        "samples",
        description,
        [
            ("sample", "Sample number"),
            where,
            ("period", "Period of the layer, 1 the earliest"),
            (s.column, s.description),
        ],
        rows,
    )


def excluded_phrases(what: str, excluded: str | None) -> tuple[str, str]:
    """(context, phrase for the sentence) of ``what``, with one site left out or none."""
    if excluded is None:
        return what, what
    return f"{what}, {excluded} excluded", f"{what} ({excluded} excluded)"


def amber_draft(
    family: str, region: str, rows: list[list[Any]], excluded: str | None = None, **parts: Any
) -> Draft:
    """A correlation task over the sites table (amber finds against monuments); ``parts`` are
    the other fields of :class:`Draft`."""
    context, sites = excluded_phrases(f"sites of {region}", excluded)
    return Draft(
        family=family,
        query=f"Across the sites of {region}, how closely do amber finds go with the number "
        "of monuments?",
        tables=[sites_table(rows)],
        context=context,
        variables=["amber", "monuments"],
        sentence=f"Across the {sites}, {{relation}}.",
        template="amber finds and monument numbers correlate at r = {value}",
        **parts,
    )


def hoard_draft(
    family: str,
    region: str,
    rows: list[list[Any]],
    tail: str,
    excluded: str | None = None,
    **parts: Any,
) -> Draft:
    """A task over the hoards table (``tail`` follows the relation in the sentence); ``parts``
    are the other fields of :class:`Draft`."""
    context, hoards = excluded_phrases(f"dated hoards of {region}", excluded)
    return Draft(
        family=family,
        tables=[hoards_table(rows)],
        context=context,
        variables=["year_bce", "hoard"],
        sentence=f"Among the {hoards}, {{relation}}{tail}",
        **parts,
    )


def busiest_bin_draft(
    family: str, region: str, rows: list[list[Any]], excluded: str | None = None, **parts: Any
) -> Draft:
    """The 50-year-bin task over the hoards table: which bin holds the most hoards."""
    return hoard_draft(
        family,
        region,
        rows,
        " (counted in 50-year bins).",
        excluded,
        query=f"In which time bin were the most hoards of {region} deposited?",
        template="hoard deposition peaks in bin {value}",
        **parts,
    )


def busiest_bin_steps(source: str, first: int) -> list[Step]:
    """Bin ``source`` by 50 years, count hoards per bin, take the busiest: results r{first}
    and r{first + 1}."""
    binned, counted = f"r{first}", f"r{first + 1}"
    return [
        step(f"{binned} = bin({source}, year_bce, 50)", "the regional scheme's 50-year bins"),
        step(f"{counted} = group({binned}, year_bce_bin, hoard, count)", "hoards per bin"),
        step(f"extrema({counted}, hoard, year_bce_bin, max)", "the busiest bin"),
    ]


# ---------------------------------------------------------------------------- the families


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


@dataclass(frozen=True)
class Family:
    builder: Callable[[random.Random, str], Draft]
    variants: tuple[str, ...]  # taken in turn
    test: int  # tasks in the test split
    train: int

    def count(self, split: Split) -> int:
        return self.test if split == "test" else self.train


PLAN = {
    "first_vs_second": Family(first_vs_second, ("rise", "decline"), 5, 6),
    "peak_vs_plateau": Family(peak_vs_plateau, ("periods", "slices"), 5, 6),
    "bce_order": Family(bce_order, ("earliest", "event", "latest"), 5, 6),
    "smoothed_column": Family(smoothed_column, ("peak", "event"), 5, 6),
    "required_filter": Family(required_filter, ("site", "context", "small", "corr"), 5, 6),
    "unit_or_bin": Family(unit_or_bin, ("bins", "per100"), 5, 6),
    "combo": Family(combo, ("bce_first", "bce_smoothed", "filter_bin", "filter_plateau"), 4, 6),
    "plain": Family(plain, ("peak", "corr", "count", "group", "event"), 4, 6),
}


# ---------------------------------------------------------------------------- checking


def final_value(task: AnalysisTask, replaced: dict[int, str]) -> Any:
    """The last step's value of the workflow with some steps replaced, run in a fresh
    Workspace; a failing step is a bug in the family, not bad luck."""
    workspace = Workspace(frames(task))
    value = None
    for index, s in enumerate(task.workflow):
        outcome = workspace.run(replaced.get(index, s.step))
        if outcome.error:
            raise RuntimeError(f"{task.name} step {index}: {outcome.error}")
        value = outcome.value
    return value


def finish(draft: Draft, name: str, split: Split) -> AnalysisTask:
    """The task with its gold hypothesis, after checking it in the analysis language: the
    workflow yields the designed value and each alternative step keeps it (else a bug: raise);
    every non-empty set of naive steps words another relation (else :class:`Redraw`)."""
    task = AnalysisTask(
        name=name,
        split=split,
        query=draft.query,
        tables=draft.tables,
        notes=draft.notes,
        gold=Hypothesis(context=draft.context, variables=draft.variables, relation="", sentence=""),
        workflow=draft.workflow,
        relation_template=draft.template,
        traps=draft.traps,
    )
    if any(not 8 <= len(t.rows) <= 60 for t in task.tables):
        raise Redraw
    value = final_value(task, {})
    if value != draft.expected:
        raise RuntimeError(f"{name}: the workflow gives {value!r}, the design {draft.expected!r}")
    for index, s in enumerate(task.workflow):
        for alternative in s.alternatives:
            if final_value(task, {index: alternative}) != value:
                raise RuntimeError(f"{name}: alternative {alternative!r} changes the answer")
    relation = draft.template.format(value=value)
    for size in range(1, len(task.traps) + 1):
        for chosen in itertools.combinations(task.traps, size):
            naive = final_value(task, {t.at: t.naive_step for t in chosen})
            if normalise(draft.template.format(value=naive)) == normalise(relation):
                raise Redraw
    gold = Hypothesis(
        context=draft.context,
        variables=draft.variables,
        relation=relation,
        sentence=draft.sentence.format(relation=relation),
    )
    return task.model_copy(update={"gold": gold})


def make_task(seed: int, name: str, split: Split, family: str, variant: str) -> AnalysisTask:
    """Draw the task's numbers from its own seed until the family's design holds."""
    builder = PLAN[family].builder
    rng = random.Random(f"{seed}:{name}")
    for _ in range(ATTEMPTS):
        try:
            return finish(builder(rng, variant), name, split)
        except Redraw:
            continue
    raise RuntimeError(f"{name}: no draw made a {family}/{variant} task in {ATTEMPTS} tries")


def build_tasks(seed: int = DEFAULT_SEED) -> list[AnalysisTask]:
    """Every task of both splits; within a split the families are interleaved by the seed."""
    tasks = []
    splits: tuple[Split, ...] = ("test", "train")
    for split in splits:
        plan = [
            (name, family.variants[i % len(family.variants)])
            for name, family in PLAN.items()
            for i in range(family.count(split))
        ]
        random.Random(f"{seed}:{split}").shuffle(plan)
        for number_, (family, variant) in enumerate(plan, 1):
            tasks.append(make_task(seed, f"arch-{split}-{number_:02d}", split, family, variant))
    return tasks


def build(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """File name -> JSON text of the whole task set for ``seed``."""
    records = [t.model_dump(mode="json") for t in build_tasks(seed)]
    return {"tasks.json": json.dumps(records, indent=1, ensure_ascii=True) + "\n"}


def main(argv: Sequence[str] | None = None) -> int:
    """Write the task set, or with ``--check`` only compare it (exit 1 when stale)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    parser.add_argument("--check", action="store_true", help="only compare with --out")
    args = parser.parse_args(argv)
    stale = []
    for name, text in build(args.seed).items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; rerun without --check")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
