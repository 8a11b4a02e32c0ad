"""Task pieces several families share: time-slice and period tables, event steps, the templates
of a relation, sample tables and the ready-made drafts of the simpler variants.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from analysis_tasks.draft import Draft
from analysis_tasks.pieces import make_table, number, slice_years, step, trap
from analysis_tasks.series import excursion_values
from analysis_tasks.site_tables import hoards_table, sites_table
from analysis_tasks.vocabulary import (
    BARE_YEAR,
    MEASURES,
    SCALES,
    SLICE_KEY,
    Measure,
    Sampled,
    Scale,
)
from collabrl.envs.analysis.tasks import (
    Step,
    Table,
    Trap,
)


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
