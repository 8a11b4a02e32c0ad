"""The reference analyst: the analysis game's rule-based player for any seat.

The first seat leads the analysis; the others share their notes, one message each, then wait.
The lead runs the task's reference workflow step by step in the shared notebook, reads each
result from the notebook (``Observation.state``), words the last value with the task's relation
template, fills the hypothesis editor and submits. A workflow written as free text (a
DiscoveryBench task's) has no step to run: the lead then writes the answer fields directly. Every
edit fits the editor (:data:`~collabrl.envs.analysis.game.MAX_ARGUMENT` characters), and the
sentence repeats the context only where the relation does not already hold it.

Fields are shared: a teammate may overwrite one this analyst wrote. Whether it then restores its
own text or leaves the teammate's is :meth:`AnalysisExpert.defers` (the reference analyst
novice defers, as it takes every note it hears, the expert never; a persona by its temperament),
and no teammate restores a field more than :data:`MAX_RESTORES` times (the lead has the last
word, so a disagreement ends before the clock does). Any seat may run the
analysis itself (:meth:`AnalysisExpert.analyse`: a teammate that acts) from what it knows, a
misleading note it holds included (:mod:`collabrl.envs.analysis.expertise`), and edit the shared
hypothesis; only the lead submits.

Knowledge decides the answer: :class:`AnalysisExpert` knows the field (every note of the task),
so it solves every task; :class:`AnalysisNovice` knows only its own notes and what teammates
said or wrote on the board, so where a trap's note never reached it, it takes the trap's naive
step instead and reaches another relation; a note that reaches it after it took that step makes
it run the analysis again. Both read the task's public record (its reference workflow and the
wording of its answer fields) by the task name in the state: this player *is* the reference.

Under a collaboration structure (:mod:`collabrl.envs.structures`) it plays by the rules, not
around them: in a build phase teammates record their notes on the board's ``expertise`` section
and the lead records the plan (and, scaffolded, makes the first teammate who recorded expertise
the approver of submitting, leaving the rest ungated); a gated action it chose waits while its
request is open and is chosen again once approved; as a gate owner it reviews each request
against its own notes: it denies a hypothesis edit or submission (or a run) resting on a trap's
naive step whose note it holds, then tells the note, and approves anything else.
"""

from __future__ import annotations

from typing import Any

from collabrl.envs.analysis.discoverybench import LEADING_WORD
from collabrl.envs.analysis.game import MAX_ARGUMENT, MESSAGE, RUN, SUBMIT, WAIT
from collabrl.envs.analysis.language import is_step
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask, get_task
from collabrl.envs.base import Observation, format_response
from collabrl.envs.structures import StructureView, pick_owner

ALL_SAID = "That is all I know."  # a teammate's last message: the lead may start
PATIENCE = 8  # ticks a lead waits for teammates who never finish sharing
PLAN = "Plan: teammates record their notes; I run the analysis with them, then write and submit."
NO_NOTES = "nothing beyond the data card"
MAX_RESTORES = 2  # times a teammate puts its own text back into one field before it gives way
SCAFFOLD_GATED = "submit"  # the kind a scripted scaffolded lead puts under a teammate's approval


class AnalysisExpert:
    """A scripted analyst (``collabrl.agents.player.Player``) that knows every note."""

    name = "analysis-expert"
    full_knowledge = True

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.shared = 0  # own notes sent so far (a teammate)
        self.restart = 0  # own notebook cells before the current run of the analysis (the lead)
        self.basis: set[str] = set()  # notes the current run of the analysis took into account
        self.edits: list[tuple[str, str]] | None = None
        self.recorded = False  # its build-phase board entry is written
        self.to_tell: list[str] = []  # notes owed to the team after a denial (a gate owner)
        self.wrote: dict[str, str] = {}  # field -> the text this seat last saw there as its own
        self.verdicts: dict[str, bool] = {}  # field -> a teammate's rewrite there is left
        self.restored: dict[str, int] = {}  # field -> times it put its own text back

    def act(self, obs: Observation) -> str:
        state = obs.state
        view = StructureView.of(state)
        duty = self._structure_duty(state, view)
        if duty is not None:
            return duty
        if RUN not in obs.actions:  # a build phase: the task has not started
            return format_response("The build phase is on.", "", WAIT)
        if state["seats"][0] != self.seat:
            return self._share(state)
        return self._lead(get_task(state["task"]), state, view)

    # ------------------------------------------------------------------ structures
    def _structure_duty(self, state: dict, view: StructureView | None) -> str | None:
        """What the structure asks of this seat first: a request to review, a note owed after a
        denial, its build-phase board entry, the scaffolded lead's gate choice."""
        if view is None:
            return None
        if view.to_decide:
            return self._review(state, view.to_decide[0])
        if self.to_tell:
            return format_response("Why I said no.", self.to_tell.pop(0), MESSAGE)
        lead = state["seats"][0] == self.seat
        if view.has_board and view.build_ticks and not self.recorded:
            self.recorded = True
            if lead:
                return format_response("The team needs a plan.", PLAN, view.update["plan"])
            self.shared = len(state["notes"]) + 1  # the board carries them: no messages needed
            entry = " ".join(n["text"] for n in state["notes"]) or NO_NOTES
            return format_response("Recording what I know.", f"{self.seat} knows: {entry}",
                                   view.update["expertise"])  # fmt: skip
        if lead and SCAFFOLD_GATED in view.unassigned() and _expertise_recorded(view, self.seat):
            owner = pick_owner(view, self.seat, state["seats"])
            why = f"{owner} should sign off before we submit."
            return format_response(why, "", view.assign[SCAFFOLD_GATED][owner])
        return None

    def _review(self, state: dict, request: dict[str, Any]) -> str:
        """Approve a request unless the requester's analysis rests on a trap this seat's notes
        avoid: then deny it and owe the team that note."""
        note = contradicted_note(state, request)
        if note is None:
            return format_response("That looks right.", "", request["approve"])
        self.to_tell.append(note)
        return format_response("That rests on the wrong step.", "", request["deny"])

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
    def analyse(self, obs: Observation) -> str:
        """Run the analysis and write the hypothesis from this seat, whatever it is; a seat
        other than the lead waits once its fields stand, where the lead would submit."""
        state = obs.state
        if RUN not in obs.actions:  # a build phase: the task has not started
            return format_response("The build phase is on.", "", WAIT)
        reply = self._lead(get_task(state["task"]), state, StructureView.of(state))
        if state["seats"][0] != self.seat and reply.endswith(f"<action>{SUBMIT}</action>"):
            return format_response("My part of the hypothesis stands.", "", WAIT)
        return reply

    def defers(self, field: str) -> bool:
        """Whether this seat leaves ``field`` as a teammate rewrote it rather than restore its
        own text: the reference analyst does when it does not know the field (the novice, who
        trusts what teammates say as it takes every note it hears), and the expert never."""
        return not self.full_knowledge

    def _left(self, field: str, state: dict) -> bool:
        """Whether ``field`` stands as a teammate rewrote it (decided once per rewrite: until
        this seat's own text is back)."""
        now = state["hypothesis"][field]
        if field not in self.wrote or now in ("", self.wrote[field]):
            return False
        if field not in self.verdicts:
            patient = state["seats"][0] == self.seat or self.restored.get(field, 0) < MAX_RESTORES
            insists = patient and not self.defers(field)
            self.verdicts[field] = not insists
            self.restored[field] = self.restored.get(field, 0) + insists
        return self.verdicts[field]

    def _lead(self, task: AnalysisTask, state: dict, view: StructureView | None) -> str:
        if self.edits is None and not self.full_knowledge and self._still_hearing(state, view):
            return format_response("Waiting for my teammates' notes.", "", WAIT)
        known = self._known_notes(task, state)
        mine = [c for c in state["cells"] if c["seat"] == self.seat]
        if self._stale(task, known, len(mine) - self.restart):
            self.restart, self.edits = len(mine), None  # a note came late: analyse again
        self.basis = known  # grows only: what is heard or written stays
        done = len(mine) - self.restart
        if done < len(task.workflow) and is_step(task.workflow[done].step):
            step = self._next_step(task, known, done)
            return self._gated(view, "The next step of the analysis.", f"run({step})")
        if self.edits is None:
            self.edits = self._answer(task, mine[-1] if mine else None)
        for field, text in self.edits:
            if state["hypothesis"][field] == " ".join(text.split()):
                self.wrote[field] = state["hypothesis"][field]
                self.verdicts.pop(field, None)
        todo = [
            (f, t)
            for f, t in self.edits
            if state["hypothesis"][f] != " ".join(t.split()) and not self._left(f, state)
        ]
        if todo:
            field, text = todo[0]
            return self._gated(view, f"Writing the {field}.", f"edit_{field}({text})")
        return self._gated(view, "The hypothesis is complete.", SUBMIT)

    def _gated(self, view: StructureView | None, think: str, action: str) -> str:
        """``action``, or a wait while its approval request is still open."""
        if view is not None and view.waiting(action):
            return format_response("Waiting for approval.", "", WAIT)
        return format_response(think, "", action)

    def _stale(self, task: AnalysisTask, known: set[str], done: int) -> bool:
        """Whether a note learnt since this run of the analysis began changes a step it took."""
        fresh = known - self.basis
        return any(t.note in fresh and t.at < done for t in task.traps)

    def _still_hearing(self, state: dict, view: StructureView | None) -> bool:
        """Teammates who have not said they are done may still hold a note (a few ticks); after
        a build phase the board holds what they know. A teammate analysing does not wait."""
        if (view is not None and view.build_ticks) or state["seats"][0] != self.seat:
            return False
        done = {line["seat"] for line in state["dialogue"] if line["text"] == ALL_SAID}
        waiting = [s for s in state["seats"][1:] if s not in done]
        return bool(waiting) and state["tick"] < PATIENCE

    def _next_step(self, task: AnalysisTask, known: set[str], index: int) -> str:
        """The workflow's step ``index``, or the trap's naive step when its note is not known."""
        for trap in task.traps:
            if trap.at == index and trap.note not in known:
                return trap.naive_step
        return task.workflow[index].step

    def _known_notes(self, task: AnalysisTask, state: dict) -> set[str]:
        if self.full_knowledge:
            return {n.id for n in task.notes}
        said = [line["text"] for line in state["dialogue"]]
        view = StructureView.of(state)
        written = [e["text"] for e in view.board] if view is not None else []
        heard = " | ".join(normalise(text) for text in (*said, *written))
        own = {n["id"] for n in state["notes"]}
        return own | {n.id for n in task.notes if normalise(n.text) in heard}

    def _answer(self, task: AnalysisTask, last: dict | None) -> list[tuple[str, str]]:
        """The hypothesis fields to write, the relation worded from the value of this seat's
        last notebook cell."""
        value = last["value"] if last is not None and last["error"] is None else None
        relation = task.relation_template.format(value=value)
        gold = task.gold
        context = (
            task.context_template.format(value=value) if task.context_template else gold.context
        )
        fields = [
            ("context", context),
            ("variables", ", ".join(gold.variables)),
            ("relation", relation),
            ("sentence", sentence_of(context, relation)),
        ]
        return [(field, fit(text)) for field, text in fields if text]


def sentence_of(context: str, relation: str) -> str:
    """The hypothesis as one sentence: "In {context}, {relation}.", the context as written where
    it is already a clause ("Around 1100 BCE, ..."), the relation alone where it holds the
    context (a DiscoveryBench gold without a leading clause is both)."""
    context, relation = context.strip().rstrip("."), relation.strip().rstrip(".")
    if not context or normalise(context) in normalise(relation):
        return f"{relation[:1].upper()}{relation[1:]}."
    lead = context if LEADING_WORD.match(context) else f"In {context}"
    return f"{lead[:1].upper()}{lead[1:]}, {relation}."


def fit(text: str) -> str:
    """``text`` cut at a word to fit the editor (an edit over the limit is refused, and retrying
    it would never end)."""
    text = " ".join(text.split())
    if len(text) <= MAX_ARGUMENT:
        return text
    return text[: MAX_ARGUMENT + 1].rsplit(" ", 1)[0][:MAX_ARGUMENT]


class AnalysisNovice(AnalysisExpert):
    """The same analyst knowing only its own notes and what teammates told it."""

    name = "analysis-novice"
    full_knowledge = False


def contradicted_note(state: dict, request: dict[str, Any]) -> str | None:
    """The text of a note of this seat's (``state``'s) that the gate ``request`` goes against:
    the requester's latest analysis took the naive step of that note's trap. None: none does."""
    task = get_task(state["task"])
    mine = {n["id"] for n in state["notes"]}
    steps = [c["step"] for c in state["cells"] if c["seat"] == request["seat"]]
    steps = [*steps[-len(task.workflow) :], request["action"].removeprefix("run(")[:-1]]
    for trap in task.traps:
        if trap.note in mine and trap.naive_step in steps:
            return next(n.text for n in task.notes if n.id == trap.note)
    return None


def _expertise_recorded(view: StructureView, me: str) -> bool:
    """Whether a teammate has put its expertise on the board (a scaffolded lead waits for it)."""
    return any(e["section"] == "expertise" and e["author"] != me for e in view.board)
