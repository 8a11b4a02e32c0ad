"""``collabrl study report``: per condition means with 95% intervals, paired tests, a plot.

Measures: the game's efficiency column (completion steps in the household game) over every
round played, and each questionnaire dimension (a participant's mean over that dimension's
items) over rated rounds. Conditions are compared pairwise: Wilcoxon signed-rank tests on the
participants who have both (within-subject), Mann-Whitney U tests otherwise (between-subject,
and conditions of different between-subject cells of a multi-factor design), with Holm's adjustment over the pairs of each measure. The plot follows the layout of the
CollabBench paper's Figure 6: completion steps per model on the left, the three affective
dimensions as grouped bars on the right, 95% intervals as error bars and stars for pairs that
differ (Holm-adjusted p < .05, .01, .001).

Intervals of a questionnaire dimension are Student-t intervals clipped to the scale (1 to its
items' points): a mean rating cannot leave the scale, and the clipped interval still covers
every value the t-interval covers that a rating can take. The success column is left out for a
game whose rounds record no success (the kitchen's score has none); a condition without any is
"n/a".
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from tabulate import tabulate

from collabrl.records import write_text
from collabrl.study.results.stats import Interval, holm, mann_whitney, mean_ci, wilcoxon
from collabrl.study.spec.logic import ROOM_MEASURE
from collabrl.study.spec.schema import Study


def measures(study: Study) -> list[str]:
    """The efficiency column (without a game: the turns of chat and document rounds), then
    the questionnaire dimensions in item order."""
    items = study.questionnaire.items if study.questionnaire else []
    dims = dict.fromkeys(item.dimension for item in items)
    metric = type(study.game).efficiency_metric if study.game is not None else ROOM_MEASURE
    return [metric, *dims]


def participant_values(
    rows: list[dict[str, Any]], condition: str, measure: str
) -> dict[str, float]:
    """participant -> value of ``measure`` in ``condition`` (rows without one are left out)."""
    return {
        r["participant"]: float(r[measure])
        for r in rows
        if r["condition"] == condition and r.get(measure) is not None
    }


def scales(study: Study) -> dict[str, tuple[int, int]]:
    """Each questionnaire dimension's scale: 1 to the most points of its items."""
    out: dict[str, tuple[int, int]] = {}
    for item in study.questionnaire.items if study.questionnaire else []:
        out[item.dimension] = (1, max(item.points, out.get(item.dimension, (1, 0))[1]))
    return out


def _interval(values: list[float], scale: tuple[int, int] | None) -> Interval:
    """Mean and Student-t interval, clipped to ``scale`` when the measure has one."""
    interval = mean_ci(values)
    if scale is None or interval.n == 0:
        return interval
    low, high = scale
    return replace(interval, low=max(interval.low, low), high=min(interval.high, high))


def summarize(study: Study, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Intervals per condition and measure, success rates (None: the condition's rounds record
    none), and the pairwise tests."""
    conditions = [c.id for c in study.conditions]
    names = measures(study)
    bounds = scales(study)
    intervals = {
        c: {
            m: _interval(list(participant_values(rows, c, m).values()), bounds.get(m))
            for m in names
        }
        for c in conditions
    }
    success: dict[str, float | None] = {}
    for c in conditions:
        played = [r["success"] for r in rows if r["condition"] == c and r["success"] is not None]
        success[c] = sum(bool(s) for s in played) / len(played) if played else None
    tests = []
    for m in names:
        family = []
        for a, b in itertools.combinations(conditions, 2):
            va, vb = participant_values(rows, a, m), participant_values(rows, b, m)
            both = sorted(set(va) & set(vb))
            # a multi-factor design pairs only conditions of one between-subject cell
            if study.design.kind == "within" and (both or not study.design.factors):
                test = wilcoxon([va[p] for p in both], [vb[p] for p in both])
            else:
                test = mann_whitney(list(va.values()), list(vb.values()))
            family.append({"measure": m, "a": a, "b": b, **asdict(test)})
        for entry, adjusted in zip(family, holm([e["p"] for e in family]), strict=True):
            entry["p_holm"] = adjusted
        tests.extend(family)
    return {
        "measures": names,
        "intervals": intervals,
        "scales": {m: list(bounds[m]) for m in names if m in bounds},
        "success": success,
        "tests": tests,
    }


def _cell(interval: Interval) -> str:
    if interval.n == 0:
        return "–"
    return f"{interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}]"


def condition_table(study: Study, summary: dict[str, Any]) -> str:
    """Per condition: n, each measure's mean [95% CI], success rate (GitHub Markdown; no
    success column when no round records one)."""
    names = summary["measures"]
    success = summary["success"]
    recorded = any(s is not None for s in success.values())
    rows = []
    for c in study.conditions:
        cells = summary["intervals"][c.id]
        rate = "n/a" if success[c.id] is None else f"{success[c.id]:.2f}"
        rows.append([c.id, cells[names[0]].n, *(_cell(cells[m]) for m in names)])
        if recorded:
            rows[-1].append(rate)
    headers = ["condition", "n", *(f"{m} (95% CI)" for m in names)]
    headers += ["success"] if recorded else []
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def method_note(summary: dict[str, Any]) -> str:
    """How the intervals were made (what a reader of the table needs to know)."""
    clipped = ", ".join(f"{m} {lo}-{hi}" for m, (lo, hi) in summary["scales"].items())
    note = "Intervals: Student-t 95%"
    if clipped:
        note += f"; ratings' intervals clipped to their scale ({clipped})"
    return note + "."


def tests_table(summary: dict[str, Any]) -> str:
    rows = [
        [
            t["measure"],
            f"{t['a']} vs {t['b']}",
            t["name"],
            t["n"],
            f"{t['statistic']:.1f}",
            _p(t["p"]),
            _p(t["p_holm"]),
            t["method"],
        ]
        for t in summary["tests"]
    ]
    headers = ["measure", "pair", "test", "n", "statistic", "p", "p (Holm)", "method"]
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _stars(p: float) -> str:
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def plot(study: Study, summary: dict[str, Any], path: Path) -> Path:
    """The Figure 6 layout: steps per condition (left), dimensions as grouped bars (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    conditions = [c.id for c in study.conditions]
    metric, *dims = summary["measures"]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), width_ratios=[1, 2])

    def bar(ax, x, interval, color, label=None, width=0.7):
        err = [[interval.mean - interval.low], [interval.high - interval.mean]]
        ax.bar(x, interval.mean, width, yerr=err, capsize=4, color=color, label=label)

    for i, c in enumerate(conditions):
        bar(left, i, summary["intervals"][c][metric], colors[i % len(colors)])
    left.set_xticks(range(len(conditions)), conditions)
    left.set_ylabel(f"{metric} (mean, 95% CI)")
    left.set_title(f"(a) Efficiency: {metric}")
    top = max((summary["intervals"][c][metric].high for c in conditions), default=1) or 1
    for k, t in enumerate(x for x in summary["tests"] if x["measure"] == metric):
        stars = _stars(t["p_holm"])
        if stars:
            a, b = conditions.index(t["a"]), conditions.index(t["b"])
            y = top * (1.05 + 0.08 * k)
            left.plot([a, a, b, b], [y, y * 1.02, y * 1.02, y], color="black", lw=1)
            left.text((a + b) / 2, y * 1.03, stars, ha="center")
    width = 0.8 / max(1, len(conditions))
    for i, c in enumerate(conditions):
        for j, d in enumerate(dims):
            bar(
                right,
                j + (i - (len(conditions) - 1) / 2) * width,
                summary["intervals"][c][d],
                colors[i % len(colors)],
                label=c if j == 0 else None,
                width=width,
            )
    items = study.questionnaire.items if study.questionnaire else []
    points = max((item.points for item in items), default=5)
    right.set_xticks(range(len(dims)), [d.capitalize() for d in dims])
    right.set_ylim(0, points + 0.8)
    right.set_ylabel(f"rating 1-{points} (mean, 95% CI)")
    right.set_title("(b) Questionnaire")
    right.legend(loc="upper left", ncols=len(conditions), frameon=False)
    fig.suptitle(f"{study.name}: per condition")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_report(study: Study, rows: list[dict[str, Any]], out: Path) -> tuple[str, dict]:
    """``report.md``, ``report.json`` and ``report.png`` in ``out``; the Markdown text."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(study, rows)
    text = (
        f"# {study.name}: report\n\n{len({r['participant'] for r in rows})} participants, "
        f"{len(rows)} rounds ({study.design.kind}-subject).\n\n"
        f"{condition_table(study, summary)}\n\n{method_note(summary)}\n\n"
        f"{tests_table(summary)}\n\n![](report.png)\n"
    )
    write_text(out / "report.md", text)
    serial = {
        **summary,
        "intervals": {
            c: {m: asdict(i) for m, i in v.items()} for c, v in summary["intervals"].items()
        },
    }
    write_text(out / "report.json", json.dumps(serial, indent=2, default=str) + "\n")
    plot(study, summary, out / "report.png")
    return text, summary
