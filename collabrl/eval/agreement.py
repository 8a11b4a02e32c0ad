"""Judge-human agreement on CB-Affective, as the paper reports it (Tables 13-14), and agreement
between the human raters.

The paper (appendix D.6) measures "LLM Judge-human consistency" with the **Spearman
correlation**, one value per dimension (Helpfulness, Trustfulness, Empathy; its first column,
Personality Filtering, is about the profile pipeline's filter, which no window rating covers),
one row per judge model (Table 13: model scales, Table 14: model types), over five player types
x five tasks, i.e. per trajectory. It does not say how human ratings were collected; here people
rate the judged windows themselves on the judges' 0-5 scale (:mod:`collabrl.eval.ratings`), so
both levels can be computed:

- **trajectory** (the tables' level): per episode and dimension, the judge's CB-Affective score
  ``S = aggregate_dimension(V_w, rho)`` over the windows people rated, against the same formula
  on the human window deductions ``5 - mean rating`` (same message ratio rho, so both sides are
  scores of one kind); episodes with no rated window are left out.
- **window**: the judge's window score ``s_w = max(0, 5 - V_w)`` against the mean rating.

A window whose judge call failed for a dimension is left out of that dimension. With several
raters, the human side is the mean of their latest ratings. Intervals: 95%, Fisher's z for
Spearman's rho with the standard error ``sqrt(1.06 / (n - 3))`` (Fieller, Hartley and Pearson
1957; n >= 4), none for n < 4 or an undefined rho (a constant side).

Between raters: Krippendorff's alpha per dimension, ordinal level (the ``krippendorff``
package), over windows rated by at least two raters, with a 95% percentile bootstrap interval
over windows (1000 resamples, seed 0); and the mean Spearman rho over rater pairs that share at
least three windows.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any, Literal

import numpy as np
from scipy import stats

from collabrl.eval.affective import aggregate_dimension
from collabrl.eval.rated_windows import SCALE, TOP, JudgedWindow, windows_of
from collabrl.eval.ratings import Rating, latest
from collabrl.rewards.judges import DIMENSIONS

LEVEL = 0.95
FIELLER = 1.06  # variance factor of Fisher's z for Spearman's rho
BOOTSTRAP = 1000
LEVELS = ("trajectory", "window")
PAPER_COLUMN = "personality_filtering"  # the tables' first column: not measured by window ratings


@dataclass(frozen=True)
class Estimate:
    """A statistic over ``n`` items with its interval (NaN where none is defined)."""

    n: int
    value: float
    low: float = math.nan
    high: float = math.nan
    p: float = math.nan

    def cell(self, digits: int = 2) -> str:
        if math.isnan(self.value):
            return f"n/a (n={self.n})"
        text = f"{self.value:.{digits}f}"
        if not math.isnan(self.low):
            text += f" [{self.low:.{digits}f}, {self.high:.{digits}f}]"
        return f"{text} (n={self.n})"

    def as_dict(self) -> dict[str, Any]:
        return {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in asdict(self).items()
        }


def spearman(x: Sequence[float], y: Sequence[float], level: float = LEVEL) -> Estimate:
    """Spearman's rho of paired values, its Fisher-z interval (n >= 4) and two-sided p-value."""
    n = len(x)
    if n != len(y):
        raise ValueError(f"{n} and {len(y)} values")
    if n < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return Estimate(n, math.nan)
    rho, p = stats.spearmanr(x, y)
    rho, p = float(rho), float(p)
    if n < 4:
        return Estimate(n, rho, p=p)
    if abs(rho) >= 1.0:
        return Estimate(n, rho, rho, rho, p)
    half = stats.norm.ppf(0.5 + level / 2) * math.sqrt(FIELLER / (n - 3))
    z = math.atanh(rho)
    return Estimate(n, rho, math.tanh(z - half), math.tanh(z + half), p)


def krippendorff_alpha(
    units: Mapping[str, Mapping[str, float]],
    *,
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "ordinal",
    boot: int = BOOTSTRAP,
    seed: int = 0,
    ci: float = LEVEL,
) -> Estimate:
    """Krippendorff's alpha of ``units`` (window -> rater -> value) over the units with at least
    two values, with a percentile bootstrap interval over those units."""
    import krippendorff

    pairable = {u: v for u, v in units.items() if len(v) >= 2}
    raters = sorted({r for v in pairable.values() for r in v})
    if not pairable or len({x for v in pairable.values() for x in v.values()}) < 2:
        return Estimate(len(pairable), math.nan)
    data = np.array(
        [[pairable[u].get(r, np.nan) for u in sorted(pairable)] for r in raters], dtype=float
    )

    def alpha(matrix: np.ndarray) -> float:
        if len(np.unique(matrix[~np.isnan(matrix)])) < 2:
            return math.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(
                krippendorff.alpha(
                    reliability_data=matrix,
                    level_of_measurement=level,
                    value_domain=list(SCALE),
                )
            )

    value = alpha(data)
    with warnings.catch_warnings():  # NaN draws (below) make SciPy call the data degenerate
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(
            (np.arange(data.shape[1]),),  # resample units (columns), each keeping its raters
            lambda units: alpha(data[:, units]),
            vectorized=False,
            n_resamples=boot,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    # a resample whose values are all equal has no alpha: such draws are left out, and with
    # more than half of them there is no interval (SciPy's own interval would be NaN)
    draws = result.bootstrap_distribution
    kept = draws[~np.isnan(draws)]
    if len(kept) < boot / 2:
        return Estimate(len(pairable), value)
    low, high = np.percentile(kept, [100 * (1 - ci) / 2, 100 * (1 + ci) / 2])
    return Estimate(len(pairable), value, float(low), float(high))


def pairwise_spearman(units: Mapping[str, Mapping[str, float]], min_shared: int = 3) -> Estimate:
    """The mean Spearman rho over rater pairs sharing ``min_shared`` or more windows (``n`` is
    the number of pairs with a defined rho; ``low``/``high`` the smallest and largest)."""
    by_rater: dict[str, dict[str, float]] = defaultdict(dict)
    for unit, values in units.items():
        for rater, v in values.items():
            by_rater[rater][unit] = v
    rhos = []
    for a, b in combinations(sorted(by_rater), 2):
        shared = sorted(set(by_rater[a]) & set(by_rater[b]))
        if len(shared) < min_shared:
            continue
        r = spearman([by_rater[a][u] for u in shared], [by_rater[b][u] for u in shared]).value
        if not math.isnan(r):
            rhos.append(r)
    if not rhos:
        return Estimate(0, math.nan)
    return Estimate(len(rhos), float(np.mean(rhos)), min(rhos), max(rhos))


@dataclass
class JudgeRow:
    """One judge's consistency with the human ratings: per level and dimension."""

    judge: str
    source: str
    cells: dict[str, dict[str, Estimate]]  # level -> dimension -> Spearman


@dataclass
class AgreementReport:
    rows: list[JudgeRow]
    raters: list[str]
    rated_windows: int  # judged windows with at least one rating (over all sources)
    ratings: int  # latest ratings that matched a judged window
    unmatched: int  # latest ratings of windows no source holds
    inter_rater: dict[str, dict[str, Estimate]] = field(default_factory=dict)  # stat -> dim
    notes: list[str] = field(default_factory=list)


def human_units(ratings: Sequence[Rating], dimension: str) -> dict[str, dict[str, float]]:
    """window -> rater -> that rater's latest rating of ``dimension``."""
    units: dict[str, dict[str, float]] = defaultdict(dict)
    for r in latest(ratings):
        units[r.window][r.rater] = float(r.scores[dimension])
    return dict(units)


def judge_row(
    judge: str,
    source: str,
    windows: Sequence[JudgedWindow],
    records: Sequence[dict[str, Any]],
    ratings: Sequence[Rating],
    *,
    a: float = 0.8,
    b: float = 0.8,
) -> JudgeRow:
    """Spearman of the judge against the mean human rating, at both levels."""
    cells: dict[str, dict[str, Estimate]] = {level: {} for level in LEVELS}
    for d in DIMENSIONS:
        human = {u: float(np.mean(list(v.values()))) for u, v in human_units(ratings, d).items()}
        pairs: list[tuple[JudgedWindow, float, float]] = []
        for w in windows:
            v = w.judge_deductions[d]
            if w.id in human and v is not None:  # rated, and the judge call did not fail
                pairs.append((w, v, human[w.id]))
        judge_w = [max(0.0, TOP - v) for _, v, _ in pairs]
        cells["window"][d] = spearman(judge_w, [h for *_, h in pairs])
        episodes: dict[int, list[tuple[float, float]]] = defaultdict(list)
        for w, v, h in pairs:
            episodes[w.record].append((v, TOP - h))
        judge_s, human_s = [], []
        for n, values in episodes.items():
            rho = float(records[n].get("message_ratio") or 0.0)
            judge_s.append(aggregate_dimension([v for v, _ in values], rho, a=a, b=b))
            human_s.append(aggregate_dimension([h for _, h in values], rho, a=a, b=b))
        cells["trajectory"][d] = spearman(judge_s, human_s)
    return JudgeRow(judge, source, cells)


def agreement(
    sources: Sequence[tuple[str, Sequence[dict[str, Any]]]],
    ratings: Sequence[Rating],
    *,
    a: float = 0.8,
    b: float = 0.8,
) -> AgreementReport:
    """The report for evaluations ``sources`` (label, records) and one set of ratings: a row per
    judge per source (a source whose windows several judges rated gives one row each)."""
    current = latest(ratings)
    rows, known = [], set()
    for label, records in sources:
        windows = windows_of(records)
        known |= {w.id for w in windows}
        by_judge: dict[str, list[JudgedWindow]] = defaultdict(list)
        for w in windows:
            by_judge[w.judge].append(w)
        for judge, mine in by_judge.items():
            rows.append(judge_row(judge, label, mine, records, current, a=a, b=b))
    matched = [r for r in current if r.window in known]
    inter = {
        "krippendorff_alpha_ordinal": {
            d: krippendorff_alpha(human_units(matched, d)) for d in DIMENSIONS
        },
        "mean_pairwise_spearman": {
            d: pairwise_spearman(human_units(matched, d)) for d in DIMENSIONS
        },
    }
    notes = []
    if len(matched) < len(current):
        notes.append(
            f"{len(current) - len(matched)} rating(s) name windows none of the evaluations holds "
            "(another evaluation's, or trajectories since re-run); they are left out"
        )
    if any(r.judge.startswith("heuristic") for r in rows):
        notes.append(
            "PROXY: a row of the offline heuristic judge measures that proxy, not an LLM judge"
        )
    return AgreementReport(
        rows=rows,
        raters=sorted({r.rater for r in matched}),
        rated_windows=len({r.window for r in matched}),
        ratings=len(matched),
        unmatched=len(current) - len(matched),
        inter_rater=inter,
        notes=notes,
    )


TITLES = {d: d.capitalize() for d in DIMENSIONS}
STAT_TITLES = {
    "krippendorff_alpha_ordinal": "Krippendorff's alpha (ordinal) [95% bootstrap]",
    "mean_pairwise_spearman": "mean pairwise Spearman rho [min, max] (n = pairs)",
}


def report_markdown(report: AgreementReport) -> str:
    """The paper's layout (Tables 13-14): a row per judge; Personality Filtering, then the
    three Collaborative Evaluation dimensions; the trajectory table first, then windows and the
    raters' agreement."""
    from tabulate import tabulate

    header = ["Judge", "Personality Filtering", *(TITLES[d] for d in DIMENSIONS)]
    several = len({r.source for r in report.rows}) > 1
    out = [
        f"LLM judge-human consistency (Spearman rho [95% CI] (n)); {len(report.raters)} rater(s), "
        f"{report.rated_windows} rated window(s), {report.ratings} rating(s)",
    ]
    for level in LEVELS:
        what = (
            "per trajectory (the level of the paper's Tables 13-14)"
            if level == "trajectory"
            else "per window (judge s_w against the mean rating)"
        )
        rows = [
            [
                f"{r.judge} ({r.source})" if several else r.judge,
                "n/a",
                *(r.cells[level][d].cell() for d in DIMENSIONS),
            ]
            for r in report.rows
        ]
        out += ["", f"{what}:", tabulate(rows, header, tablefmt="github")]
    inter = [
        [STAT_TITLES[s], *(cells[d].cell() for d in DIMENSIONS)]
        for s, cells in report.inter_rater.items()
    ]
    out += [
        "",
        "between raters:",
        tabulate(inter, ["Statistic", *(TITLES[d] for d in DIMENSIONS)], tablefmt="github"),
        "",
        "Personality Filtering (the paper's first column) rates the profile pipeline's filter, "
        "which window ratings do not cover.",
    ]
    out += report.notes
    return "\n".join(out) + "\n"


def report_rows(report: AgreementReport) -> list[dict[str, Any]]:
    """Long rows (one per statistic, level, judge and dimension) for CSV and JSON."""
    rows = []
    for r in report.rows:
        for level, cells in r.cells.items():
            for d, e in cells.items():
                rows.append(
                    {
                        "comparison": "judge-human",
                        "statistic": "spearman",
                        "level": level,
                        "judge": r.judge,
                        "source": r.source,
                        "dimension": d,
                        **e.as_dict(),
                    }
                )
    for stat, cells in report.inter_rater.items():
        for d, e in cells.items():
            rows.append(
                {
                    "comparison": "human-human",
                    "statistic": stat,
                    "level": "window",
                    "judge": "",
                    "source": "",
                    "dimension": d,
                    **e.as_dict(),
                }
            )
    return rows


def report_json(report: AgreementReport) -> dict[str, Any]:
    return {
        "raters": report.raters,
        "rated_windows": report.rated_windows,
        "ratings": report.ratings,
        "unmatched_ratings": report.unmatched,
        "rows": report_rows(report),
        "notes": report.notes,
        "method": {
            "judge_human": "Spearman rho, judge vs mean of raters' latest ratings; 95% Fisher-z "
            "interval, SE sqrt(1.06/(n-3))",
            "trajectory": "CB-Affective aggregate (a, b, message penalty) over the rated windows, "
            "judge V_w vs human 5 - mean rating",
            "window": "judge s_w = max(0, 5 - V_w) vs mean rating",
            "human_human": "Krippendorff's alpha (ordinal, domain 0-5) with a 1000-resample "
            "bootstrap over windows; mean pairwise Spearman over pairs sharing >= 3 windows",
        },
    }
