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
- The agent holds the task's other notes (background any analyst reads on the data card).
- A trap note whose profile is not at the table is held by nobody: the team lacks that
  expertise, and an agent that does not know it already falls into the trap.

The game's other composition, by role (``statistics``, ``chronology``, ``materials`` in seat
order, orphan notes to the last seat), stays the default of sections that name no profiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from collabrl.envs.analysis.schema import AnalysisTask, Note, TrapKind

Profile = Literal["D", "R"]
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
        "windows the data needs, compute the numbers and check them."
    ),
    "R": (
        "Your focus: guard what the query means (first or second event, peak or highest "
        "plateau, which way years run, bounded periods), review the variables chosen and the "
        "evidence, and shape the wording of the final hypothesis."
    ),
}


def trap_profile(kind: TrapKind) -> Profile:
    """The collaborator profile whose expertise avoids a trap of ``kind``."""
    return next(p for p, kinds in PROFILE_TRAPS.items() if kind in kinds)


def note_profiles(task: AnalysisTask) -> dict[str, str]:
    """Note id -> who holds it in a profiled team: ``D``, ``R`` (trap notes) or the agent."""
    owner = {n.id: AGENT for n in task.notes}
    for trap in task.traps:
        owner[trap.note] = trap_profile(trap.kind)
    return owner


def notes_by_profile(task: AnalysisTask, kinds: Sequence[str]) -> list[list[Note]]:
    """Each seat's notes for a team whose seats are of ``kinds`` (``agent`` first, then
    profiles); a trap note whose profile is absent goes to nobody."""
    owner = note_profiles(task)
    return [[n for n in task.notes if owner[n.id] == kind] for kind in kinds]
