"""Where a team's expertise was lost: the gap between what the team knew and what it submitted,
split by the stage at which each trap's note failed to count (the analysis game's traces).

Why: a team table says *that* a Default team scores below its potential, not *why*. Process
loss (the gap between a group's potential and its result) has three places to happen in a team
of distributed expertise, and the trace shows which: the expertise never reached the others,
it reached them but the analysis did not use it, or what was used was wrong. Definitions, per
episode of a task with traps (:mod:`collabrl.envs.analysis.tasks`):

- ``potential``: 1.0 when some seat holds the note of every trap, right or in a fallible
  collaborator's misleading version (the expertise is at the table: the best its members could
  reach together), else 0.0 (the team lacks that expertise: a gap of composition, not of
  process);
- ``gap``: ``max(0, potential - score)``;
- the *writer* is the seat that last edited the relation (none: nobody wrote it). For each trap
  whose right step the writer did not run in its latest analysis (it took the naive step or
  never ran one), the trap's note was:

  - ``never_surfaced``: held by a seat other than the writer and never said (a message or board
    entry holding its text);
  - ``used_wrongly``: a misleading version of it (a fallible collaborator's,
    :func:`~collabrl.envs.analysis.expertise.misleading_note`) was said or held by the writer;
  - ``surfaced_not_used``: said (or held by the writer) and still not applied;

- ``other``: the part of the gap no failed trap explains (a rewrite that changed another field,
  time running out with the right analysis done).

The gap is split equally over the failed traps' stages (then ``other`` only when none failed),
so ``never_surfaced + surfaced_not_used + used_wrongly + other == gap`` in every episode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from collabrl.envs.analysis.expertise import WRONG, misleading_note
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask

STAGES = ("never_surfaced", "surfaced_not_used", "used_wrongly", "other")
"""The parts of the gap, in the order a note travels (said, applied, right)."""
LOSS_KEYS = ("potential", "gap", *STAGES)


def _said(summary: Mapping[str, Any]) -> str:
    """Every message and board entry of the episode, normalised and joined."""
    texts = [e.get("text") or "" for e in summary["trace"] if e["kind"] in ("message", "board")]
    return " | ".join(normalise(t) for t in texts)


def _writer(summary: Mapping[str, Any]) -> str | None:
    edits = [e["seat"] for e in summary["trace"] if e.get("target") == "edit:relation"]
    return edits[-1] if edits else None


def _latest_steps(summary: Mapping[str, Any], seat: str | None, task: AnalysisTask) -> list[str]:
    """The steps of ``seat``'s latest run through the workflow (its last cells)."""
    steps = [c["step"] for c in summary["notebook"] if c["seat"] == seat]
    return steps[-len(task.workflow) :] if task.workflow else []


def decompose(summary: Mapping[str, Any], task: AnalysisTask) -> dict[str, float]:
    """:data:`LOSS_KEYS` of one analysis episode (see the module docstring)."""
    held = {note.removesuffix(WRONG) for notes in summary["notes_held"].values() for note in notes}
    potential = float(all(t.note in held for t in task.traps))
    gap = max(0.0, potential - float(summary["score"]))
    out = dict.fromkeys(LOSS_KEYS, 0.0)
    out.update(potential=potential, gap=gap)
    if gap == 0.0:
        return out
    said, writer = _said(summary), _writer(summary)
    own = set(summary["notes_held"].get(writer, [])) if writer else set()
    steps = _latest_steps(summary, writer, task)
    failed = []
    for trap in task.traps:
        if task.workflow[trap.at].step in steps:
            continue
        right = next(n for n in task.notes if n.id == trap.note)
        wrong = misleading_note(task, trap)
        if normalise(wrong.text) in said or f"{trap.note}{WRONG}" in own:
            failed.append("used_wrongly")
        elif normalise(right.text) in said or trap.note in own:
            failed.append("surfaced_not_used")
        else:
            failed.append("never_surfaced")
    for stage in failed or ["other"]:
        out[stage] += gap / len(failed or ["other"])
    return out


def mean_loss(rows: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each of :data:`LOSS_KEYS` over episodes (0.0 for none)."""
    rows = list(rows)
    return {k: sum(r[k] for r in rows) / len(rows) if rows else 0.0 for k in LOSS_KEYS}
