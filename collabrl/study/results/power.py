"""How many participants a study needs to detect a stated effect, with the spread taken from its
pretest (``collabrl study power``).

For each measure and pair of conditions, the pretest gives the standard deviation the test will
see: of the paired differences (within-subject: each participant rates both) or the pooled one of
the two groups (between-subject). The stated effect is a difference in the measure's own units
(half a scale point, two steps); the number needed is the smallest n whose two-sided t-test
reaches the target power, computed exactly from SciPy's noncentral t distribution (paired:
df = n - 1, noncentrality d * sqrt(n); two groups of n: df = 2n - 2, d * sqrt(n / 2)).

The spread of simulated participants is the answer model's, not people's: the figure is as good
as the pretest's resemblance to the live study (``collabrl study sim-vs-live`` measures it once
live data exist), so it is a planning figure to revise, not a promise.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass
from typing import Any

from scipy import stats

from collabrl.errors import CollabrlError
from collabrl.study.results.report import measures, participant_values
from collabrl.study.spec.schema import Study

MAX_PARTICIPANTS = 100_000
"""The search for n stops here (an effect too small to detect with any real study)."""


@dataclass(frozen=True)
class PowerRow:
    """Participants needed for one measure and pair of conditions."""

    measure: str
    a: str
    b: str
    design: str
    sd: float
    d: float
    per_condition: int | None
    total: int | None


def t_test_power(d: float, n: int, paired: bool, alpha: float) -> float:
    """The power of a two-sided t-test for standardised effect ``d`` with ``n`` participants
    (paired) or ``n`` per group (two groups)."""
    df, ncp = (n - 1, d * math.sqrt(n)) if paired else (2 * n - 2, d * math.sqrt(n / 2))
    critical = stats.t.ppf(1 - alpha / 2, df)
    return float(stats.nct.sf(critical, df, ncp) + stats.nct.cdf(-critical, df, ncp))


def needed(d: float, paired: bool, alpha: float, power: float) -> int | None:
    """The smallest n reaching ``power`` (None: more than :data:`MAX_PARTICIPANTS`): doubling n
    until the power suffices, then bisecting the last doubling (the power grows with n; SciPy's
    noncentral t loses precision far beyond the n that suffices, so those are never asked)."""
    if d <= 0:
        return None
    low, high = 2, 2
    while t_test_power(d, high, paired, alpha) < power:
        if high >= MAX_PARTICIPANTS:
            return None
        low, high = high + 1, min(2 * high, MAX_PARTICIPANTS)
    while low < high:
        middle = (low + high) // 2
        if t_test_power(d, middle, paired, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return low


def power_rows(
    study: Study, rows: list[dict[str, Any]], effect: float, alpha: float, power: float
) -> list[PowerRow]:
    """Participants needed per measure and pair of conditions for a difference of ``effect``
    (in each measure's units), from the pretest's ``rows``."""
    if effect <= 0:
        raise CollabrlError(f"--effect {effect}: state a positive difference in the measure")
    paired = study.design.kind == "within"
    found = []
    conditions = [c.id for c in study.conditions]
    for m in measures(study):
        for a, b in itertools.combinations(conditions, 2):
            va, vb = participant_values(rows, a, m), participant_values(rows, b, m)
            if paired:
                both = sorted(set(va) & set(vb))
                spread = [vb[p] - va[p] for p in both]
                sd = statistics.stdev(spread) if len(spread) > 1 else math.nan
            else:
                sd = _pooled_sd(list(va.values()), list(vb.values()))
            if not sd > 0:  # nan or no spread: the pretest cannot tell
                found.append(PowerRow(m, a, b, study.design.kind, sd, math.nan, None, None))
                continue
            n = needed(effect / sd, paired, alpha, power)
            total = None if n is None else (n if paired else n * len(conditions))
            found.append(PowerRow(m, a, b, study.design.kind, sd, effect / sd, n, total))
    return found


def _pooled_sd(x: list[float], y: list[float]) -> float:
    if len(x) < 2 or len(y) < 2:
        return math.nan
    pooled = ((len(x) - 1) * statistics.variance(x) + (len(y) - 1) * statistics.variance(y)) / (
        len(x) + len(y) - 2
    )
    return math.sqrt(pooled)


def _needed(row: PowerRow) -> str:
    if row.total is not None:
        return str(row.total)
    return "n/a" if math.isnan(row.d) else f"> {MAX_PARTICIPANTS}"


def power_table(found: list[PowerRow], effect: float, alpha: float, power: float) -> str:
    """The rows as a markdown table with the assumptions above it."""
    from tabulate import tabulate

    lines = [
        f"Participants needed to detect a difference of {effect:g} (two-sided t-test, "
        f"alpha {alpha:g}, power {power:g}), with the spread of the pretest's simulated "
        "participants:",
        "",
    ]
    table = [
        [
            r.measure,
            f"{r.a} vs {r.b}",
            "n/a" if math.isnan(r.sd) else f"{r.sd:.3f}",
            "n/a" if math.isnan(r.d) else f"{r.d:.2f}",
            _needed(r),
        ]
        for r in found
    ]
    headers = ["measure", "conditions", "sd", "d", "participants"]
    return "\n".join(lines) + tabulate(table, headers, tablefmt="github") + "\n"
