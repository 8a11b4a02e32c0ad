"""The team-structures study's Tables 2 and 3 from a composition grid (``teams.compositions``).

Rows are team variants, labelled as the study does: ``Single-agent`` (the agent alone), then
structure and collaborator profiles joined (``Default-D``, ``Scaffolded-DR``; ``Memory-R`` is
the shared-group-memory-only diagnostic, ``Gates-R`` the preassigned-gates one). Table 2 holds
the headline variants (Single-agent, Default and Scaffolded with each composition); Table 3
places the diagnostics beside the Default and Scaffolded anchors, per composition.

Cells are the study's "task-level mean (SE)": each task's mean over its episodes (seeds, and
the profile teams drawn for it) first, then the mean and standard error across tasks (SE = the
sample standard deviation / sqrt(tasks); none for one task). A metric that does not apply to an
episode (Profile Alignment without collaborators, initiative entropy of one seat) is left out of
its task's mean; a variant where it never applies shows a dash.

Columns (:data:`COLUMNS`): Performance (Collaborative Gym's, the context facet) and the
hypothesis match score; Human Work (non-message actions of the simulated collaborators: here
runs, edits and submissions; looks, waits and structure actions are not work, see
:mod:`collabrl.eval.process`), Total Work (the same over every seat), Team Messages, normalised
initiative entropy; the trace judgements Workflow Coverage, Hypothesis Support and Profile
Alignment (:mod:`collabrl.envs.analysis.workflow`).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from collabrl.eval.runner import EpisodeOutcome

COLUMNS = {
    "performance": "Performance ↑",
    "score": "HMS ↑",
    "work_teammates": "W human",
    "work_total": "W total",
    "messages_total": "M team",
    "initiative_entropy": "H init,norm",
    "workflow_coverage": "C wf ↑",
    "hypothesis_support": "S hyp ↑",
    "profile_alignment": "A profile ↑",
}
SUMMARY_KEYS = ("performance", "score")  # read from the episode summary, the rest from process
HEADLINE = ("default", "scaffolded")
DIAGNOSTIC = ("default", "memory", "gates", "scaffolded")
SINGLE = "Single-agent"


def variant_label(structure: str, composition: Sequence[str]) -> str:
    """``Single-agent`` or ``<Structure>-<profiles>`` (``Default-DR``)."""
    return SINGLE if not composition else f"{structure.capitalize()}-{''.join(composition)}"


def _value(o: EpisodeOutcome, key: str) -> float | None:
    raw = o.record.summary.get(key) if key in SUMMARY_KEYS else o.process.get(key)
    return None if raw is None else float(raw)


def _task_level(outcomes: Sequence[EpisodeOutcome], key: str) -> dict[str, Any]:
    """Mean, SE across tasks (after each task's mean) and the number of tasks with a value."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for o in outcomes:
        value = _value(o, key)
        if value is not None:
            by_task[o.job.task].append(value)
    means = [sum(v) / len(v) for v in by_task.values()]
    if not means:
        return {"mean": None, "se": None, "tasks": 0}
    se = statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else None
    return {"mean": sum(means) / len(means), "se": se, "tasks": len(means)}


def study_rows(outcomes: Sequence[EpisodeOutcome]) -> list[dict[str, Any]]:
    """One row per (game, structure, composition) of a composition grid, in grid order: the
    variant label, the episode and task counts, and each column's mean and SE."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[EpisodeOutcome]] = {}
    for o in outcomes:
        if o.job.composition is not None and o.job.structure is not None:
            groups.setdefault((o.job.game, o.job.structure, o.job.composition), []).append(o)
    rows = []
    for (game, structure, comp), group in groups.items():
        row: dict[str, Any] = {
            "game": game,
            "variant": variant_label(structure, comp),
            "structure": structure,
            "composition": "".join(comp),
            "episodes": len(group),
            "tasks": len({o.job.task for o in group}),
        }
        for key in COLUMNS:
            cell = _task_level(group, key)
            row[key], row[f"{key}_se"] = cell["mean"], cell["se"]
        rows.append(row)
    return rows


def _cell(row: dict[str, Any], key: str) -> str:
    mean, se = row[key], row[f"{key}_se"]
    if mean is None:
        return "—"
    return f"{mean:.2f} ({se:.2f})" if se is not None else f"{mean:.2f}"


def _table(rows: Sequence[dict[str, Any]]) -> str:
    head = ["Variant", "Episodes", *COLUMNS.values()]
    body = [[r["variant"], str(r["episodes"]), *(_cell(r, k) for k in COLUMNS)] for r in rows]
    return tabulate(body, head, tablefmt="github", disable_numparse=True)


def headline(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table 2's rows: Single-agent, then Default and Scaffolded with each composition."""
    single = [r for r in rows if r["variant"] == SINGLE]
    return single + [r for s in HEADLINE for r in rows if r["structure"] == s and r["composition"]]


def diagnostics(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Table 3's blocks: per composition, Default, Memory, Gates and Scaffolded."""
    comps = dict.fromkeys(r["composition"] for r in rows if r["composition"])
    return {
        comp: [
            r for s in DIAGNOSTIC for r in rows if r["composition"] == comp and r["structure"] == s
        ]
        for comp in comps
    }


def study_markdown(rows: Sequence[dict[str, Any]], title: str) -> str:
    """Tables 2 and 3 of one game as Markdown (a note on how cells are computed)."""
    parts = [
        f"### {title}: Table 2 shape (headline variants)\n",
        _table(headline(rows)),
        f"\n### {title}: Table 3 shape (diagnostics beside the Default and Scaffolded anchors)\n",
    ]
    for comp, block in diagnostics(rows).items():
        parts += [f"\nCollaborators {comp}:\n", _table(block)]
    parts.append(
        "\n_Cells: task-level mean (SE across tasks) after averaging each task's episodes "
        "(seeds and profile teams). W human, W total and M team are raw counts; the rest are on "
        "[0, 1]._\n"
    )
    return "\n".join(parts)
