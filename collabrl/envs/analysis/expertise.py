"""Collaborator profiles of the team-structures study: who holds which of a task's notes.

The study's team variants differ in the collaborator profiles at the table: none (the agent
alone), a data-analysis collaborator **D** (maps the query to columns, applies filters and time
windows, computes and checks the numbers) and a researcher **R** (guards what the query means:
first or second event, peak or highest plateau, which way years run, bounded periods; reviews
the variables and shapes the hypothesis). Here a profile is the expertise a seat holds as
private notes, derived from the task:

- D holds the notes that avoid the data-side traps (a smoothed column, a filter that must be
  applied, a unit or bin convention); R holds those that avoid the semantic traps (first vs
  second event, peak vs plateau, BCE ordering).
- The agent holds the task's other notes (background any analyst reads on the data card), except
  those that name a profile (:attr:`Note.profile`: a DiscoveryBench task's derived guidance).
- A trap note whose profile is not at the table is held by nobody: the team lacks that
  expertise, and an agent that does not know it already falls into the trap.

Collaborators are fallible (``reliability``, per profile: the chance that each trap note a
collaborator holds is right). A wrong note is drawn per episode: the seat holds, believes and
tells the *misleading* version (:func:`misleading_note`), which endorses the trap's naive step.
Nobody at the table is told which notes are wrong; the analyst who acts on one falls into the
trap as if it had heard nothing, and a collaborator who runs the analysis itself on it reaches
another relation.

The game's other composition, by role (``statistics``, ``chronology``, ``materials`` in seat
order, orphan notes to the last seat), stays the default of sections that name no profiles.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping, Sequence
from typing import get_args

from collabrl.envs.analysis.schema import AnalysisTask, Note, Profile, Trap, TrapKind

PROFILES: tuple[Profile, ...] = get_args(Profile)
AGENT = "agent"  # the seat kind of the AI agent in a profiled team
PROFILE_TRAPS: dict[Profile, tuple[TrapKind, ...]] = {
    "D": ("smoothed_column", "required_filter", "unit_or_bin"),
    "R": ("first_vs_second", "peak_vs_plateau", "bce_order"),
}
PROFILE_TITLES: dict[str, str] = {
    AGENT: "the analysis agent",
    "D": "data-analysis collaborator (D)",
    "R": "researcher collaborator (R)",
}
PROFILE_FOCUS: dict[str, str] = {
    AGENT: "You lead the analysis: run the steps, write the hypothesis and submit it.",
    "D": (
        "Your focus: map the query's concepts to the right columns, apply the filters and time "
        "windows the data needs, compute the numbers and check them. You may run steps and "
        "edit the shared hypothesis yourself; the agent submits."
    ),
    "R": (
        "Your focus: guard what the query means (first or second event, peak or highest "
        "plateau, which way years run, bounded periods), review the variables chosen and the "
        "evidence, and shape the wording of the final hypothesis. You may run steps and edit "
        "the shared hypothesis yourself; the agent submits."
    ),
}


MISLEADING: dict[TrapKind, str] = {
    "smoothed_column": "the smoothed or filled-in column is the cleaner series to read here",
    "required_filter": "no rows need to be left out for this query: take the table as it is",
    "unit_or_bin": "the table's own units and bins already answer the query as they stand",
    "first_vs_second": "the event the query means is the one the step below finds",
    "peak_vs_plateau": "the single highest value is what the query means here",
    "bce_order": "the years sort the usual way: the smallest number comes first",
}
"""What a wrong note of each trap kind claims (the misleading version of the trap's note)."""
WRONG = "~wrong"
"""The suffix of a misleading note's id: ``n1~wrong`` is the wrong version of ``n1``."""


def misleading_note(task: AnalysisTask, trap: Trap) -> Note:
    """The wrong version of ``trap``'s note: same holder, a claim that leads to the naive step."""
    role = next(n.role for n in task.notes if n.id == trap.note)
    text = f"From experience: {MISLEADING[trap.kind]} (I would run {trap.naive_step})."
    return Note(id=f"{trap.note}{WRONG}", role=role, text=text)


def misleading_notes(task: AnalysisTask) -> list[Note]:
    """Every trap's misleading note, in trap order (what a listener may hear)."""
    return [misleading_note(task, trap) for trap in task.traps]


def fallible(
    task: AnalysisTask,
    kinds: Sequence[str],
    held: Sequence[Sequence[Note]],
    reliability: Mapping[str, float],
    seed: int,
) -> list[list[Note]]:
    """``held`` (each seat's notes) with each trap note of a collaborator of profile ``p``
    replaced by its misleading version with probability ``1 - reliability[p]`` (1.0 when not
    given), drawn from ``seed``, the task and the note (the same in every process)."""
    traps = {t.note: t for t in task.traps}
    out = []
    for kind, notes in zip(kinds, held, strict=True):
        right = reliability.get(kind, 1.0)
        seat_notes = []
        for note in notes:
            trap = traps.get(note.id)
            draw = random.Random(zlib.crc32(f"{task.name}|{seed}|{kind}|{note.id}".encode()))
            wrong = trap is not None and kind != AGENT and draw.random() >= right
            seat_notes.append(misleading_note(task, trap) if wrong and trap else note)
        out.append(seat_notes)
    return out


def trap_profile(kind: TrapKind) -> Profile:
    """The collaborator profile whose expertise avoids a trap of ``kind``."""
    return next(p for p, kinds in PROFILE_TRAPS.items() if kind in kinds)


def note_profiles(task: AnalysisTask) -> dict[str, str]:
    """Note id -> who holds it in a profiled team: ``D``, ``R`` (trap notes and notes that name
    their profile) or the agent."""
    owner: dict[str, str] = {n.id: n.profile or AGENT for n in task.notes}
    for trap in task.traps:
        owner[trap.note] = trap_profile(trap.kind)
    return owner


def notes_by_profile(task: AnalysisTask, kinds: Sequence[str]) -> list[list[Note]]:
    """Each seat's notes for a team whose seats are of ``kinds`` (``agent`` first, then
    profiles); a trap note whose profile is absent goes to nobody."""
    owner = note_profiles(task)
    return [[n for n in task.notes if owner[n.id] == kind] for kind in kinds]
