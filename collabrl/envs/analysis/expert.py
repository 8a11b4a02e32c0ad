"""The reference analyst: the analysis game's rule-based player for any seat.

The first seat leads the analysis; the others share their notes, one message each, then wait.
The lead runs the task's reference workflow step by step in the shared notebook, reads each
result from the notebook (``Observation.state``), words the last value with the task's relation
template, fills the hypothesis editor and submits.

Knowledge decides the answer: :class:`AnalysisExpert` knows the field (every note of the task),
so it solves every task; :class:`AnalysisNovice` knows only its own notes and what teammates
said, so where a trap's note never reached it, it takes the trap's naive step instead and
reaches another relation. Both read the task's public record (its reference workflow and the
wording of its answer fields) by the task name in the state: this player *is* the reference.
"""

from __future__ import annotations

from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask, get_task
from collabrl.envs.base import Observation, format_response

MESSAGE, SUBMIT, WAIT = "[send_message]", "submit", "wait"
ALL_SAID = "That is all I know."  # a teammate's last message: the lead may start
PATIENCE = 8  # ticks a lead waits for teammates who never finish sharing


class AnalysisExpert:
    """A scripted analyst (``collabrl.agents.player.Player``) that knows every note."""

    name = "analysis-expert"
    full_knowledge = True

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.shared = 0  # own notes sent so far (a teammate)
        self.step_index = 0  # workflow steps run so far (the lead)
        self.edits: list[tuple[str, str]] | None = None

    def act(self, obs: Observation) -> str:
        state = obs.state
        if state["seats"][0] != self.seat:
            return self._share(state)
        return self._lead(get_task(state["task"]), state)

    # ------------------------------------------------------------------ a teammate
    def _share(self, state: dict) -> str:
        notes = state["notes"]
        if self.shared < len(notes):
            note = notes[self.shared]["text"]
            self.shared += 1
            return format_response("My notes can change the answer.", note, MESSAGE)
        if self.shared == len(notes):
            self.shared += 1
            return format_response("The lead can start.", ALL_SAID, MESSAGE)
        return format_response("I have shared what I know.", "", WAIT)

    # ------------------------------------------------------------------ the lead
    def _lead(self, task: AnalysisTask, state: dict) -> str:
        if self.edits is None and not self.full_knowledge and self._still_hearing(state):
            return format_response("Waiting for my teammates' notes.", "", WAIT)
        if self.step_index < len(task.workflow):
            step = self._next_step(task, state)
            self.step_index += 1
            return format_response("The next step of the analysis.", "", f"run({step})")
        if self.edits is None:
            self.edits = self._answer(task, state)
        if self.edits:
            field, text = self.edits.pop(0)
            return format_response(f"Writing the {field}.", "", f"edit_{field}({text})")
        return format_response("The hypothesis is complete.", "", SUBMIT)

    def _still_hearing(self, state: dict) -> bool:
        """Teammates who have not said they are done may still hold a note (a few ticks)."""
        done = {line["seat"] for line in state["dialogue"] if line["text"] == ALL_SAID}
        waiting = [s for s in state["seats"][1:] if s not in done]
        return bool(waiting) and state["tick"] < PATIENCE

    def _next_step(self, task: AnalysisTask, state: dict) -> str:
        """The workflow's next step, or the trap's naive step when its note is not known."""
        known = self._known_notes(task, state)
        for trap in task.traps:
            if trap.at == self.step_index and trap.note not in known:
                return trap.naive_step
        return task.workflow[self.step_index].step

    def _known_notes(self, task: AnalysisTask, state: dict) -> set[str]:
        if self.full_knowledge:
            return {n.id for n in task.notes}
        heard = " | ".join(normalise(line["text"]) for line in state["dialogue"])
        own = {n["id"] for n in state["notes"]}
        return own | {n.id for n in task.notes if normalise(n.text) in heard}

    def _answer(self, task: AnalysisTask, state: dict) -> list[tuple[str, str]]:
        """The hypothesis fields to write, the relation worded from the notebook's last value
        of this seat's steps."""
        mine = [c for c in state["cells"] if c["seat"] == self.seat]
        value = mine[-1]["value"] if mine and mine[-1]["error"] is None else None
        relation = task.relation_template.format(value=value)
        gold = task.gold
        return [
            ("context", gold.context),
            ("variables", ", ".join(gold.variables)),
            ("relation", relation),
            ("sentence", f"In {gold.context}, {relation}."),
        ]


class AnalysisNovice(AnalysisExpert):
    """The same analyst knowing only its own notes and what teammates told it."""

    name = "analysis-novice"
    full_knowledge = False
