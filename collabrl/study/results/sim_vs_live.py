"""How far the pretest's simulated participants are from the live ones, for one protocol
(``collabrl study sim-vs-live``).

Both databases must hold the same resolved study (the same protocol hash: the live database is
opened as that study's, which refuses any other), so the comparison is of people and their
stand-ins on one protocol, never of two versions of a study. For each condition and measure it
gives the simulated and the live mean with their 95% Student-t intervals, and the live minus
simulated difference with Welch's interval (the two samples are different people, of unequal
spread): an interval that excludes zero marks a measure the pretest gets wrong, whose pretest
figures (the power analysis among them) should not be trusted as they stand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scipy import stats

from collabrl.stats import Interval, mean_ci
from collabrl.study.results.report import measures, participant_values
from collabrl.study.spec.schema import Study


@dataclass(frozen=True)
class Comparison:
    """One condition and measure, simulated against live."""

    condition: str
    measure: str
    simulated: Interval
    live: Interval
    difference: Interval
    """Live minus simulated, with Welch's 95% interval (nan: a side has fewer than two)."""


def welch_difference(simulated: list[float], live: list[float]) -> Interval:
    """Mean of ``live`` minus mean of ``simulated`` with Welch's 95% interval."""
    if len(simulated) < 2 or len(live) < 2:
        return Interval(len(simulated) + len(live), math.nan, math.nan, math.nan)
    mean = math.fsum(live) / len(live) - math.fsum(simulated) / len(simulated)
    if min(simulated) == max(simulated) and min(live) == max(live):
        return Interval(len(simulated) + len(live), mean, mean, mean)  # no spread on either side
    interval = stats.ttest_ind(live, simulated, equal_var=False).confidence_interval(0.95)
    return Interval(len(simulated) + len(live), mean, float(interval.low), float(interval.high))


def compare(
    study: Study, simulated: list[dict[str, Any]], live: list[dict[str, Any]]
) -> list[Comparison]:
    """Every condition and measure of the study, simulated rows against live rows."""
    found = []
    for condition in (c.id for c in study.conditions):
        for m in measures(study):
            sim = list(participant_values(simulated, condition, m).values())
            real = list(participant_values(live, condition, m).values())
            found.append(
                Comparison(condition, m, mean_ci(sim), mean_ci(real), welch_difference(sim, real))
            )
    return found


def comparison_table(found: list[Comparison]) -> str:
    """The comparisons as a markdown table; a difference whose interval excludes zero is
    marked."""
    from tabulate import tabulate

    table = [
        [
            c.condition,
            c.measure,
            c.simulated.cell(),
            c.live.cell(),
            c.difference.cell() + (" *" if c.difference.excludes_zero else ""),
        ]
        for c in found
    ]
    headers = ["condition", "measure", "simulated", "live", "live - simulated"]
    note = (
        "\n\nMeans with 95% intervals; the difference's is Welch's. *: the interval excludes "
        "zero (the pretest misjudges this measure)."
    )
    return tabulate(table, headers, tablefmt="github") + note + "\n"
