"""Analysis persona: the reference analyst's play, bent by the profile's temperament.

In the lead seat (the first) it analyses like :class:`AnalysisNovice`, from its own notes and
what it heard, and its traits decide how. Agreeableness decides whether each note a teammate
tells it is taken up: a dismissed note is as good as unheard, so a low-agreeable lead falls into
that note's trap (this is where personality changes the answer, not only the pace).
Conscientiousness governs hesitating, dawdling over a table and slipping; openness whether it
looks at the tables before its first step; neuroticism whether a new result makes it voice a
doubt or run the step again.

As a teammate it tells its notes verbatim (decoration around a note is fine: the lead recognises
a note by its text in the dialogue or on the board), and talk (extraversion, some agreeableness)
decides whether it mentions each note at all and how promptly; a lead's request for the notes is
honoured the way agreeableness lets it (an accepted one ends the holding back); then it says it
is done, the line the reference lead waits for. Everywhere, the first decision among teammates
opens the conversation (a leader with a plan, anyone else with a greeting), extraverts cheer now
and then, and neurotic players question new results.

A teammate also acts: initiative (extraversion, conscientiousness) decides, decision by
decision, whether it takes up the analysis itself, interleaved with telling its notes while it
still has some (the less talkative, the more it analyses instead)
(:meth:`AnalysisExpert.analyse`: from its own notes, a wrong one included, and what it heard)
and writes its answer into the shared hypothesis, over what the lead wrote. Whoever finds a
field it wrote rewritten leaves the teammate's text when agreeable (the comply chance, once per
text) and restores its own otherwise: teammates can disagree and overwrite each other, and a
lead listens by temperament.

Under a collaboration structure it keeps gates the way its temperament lets it: a request whose
analysis took a trap's naive step that its own notes avoid is denied and that note told (the
reference analyst's check); any other request is judged by temperament
(:meth:`PersonaBase.gatekeep`). A leader chooses the gate owners a scaffolded team lacks, a
teammate writes its notes on a writable board (a build phase's) instead of the chat, and the
lead's analyst does the rest by the rules (its plan on the board, waiting on its requests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collabrl.agents.persona.base import PersonaBase, Reply, named
from collabrl.agents.persona.temperament import trait_degree
from collabrl.agents.protocol import parse_observed
from collabrl.envs.analysis.expert import ALL_SAID, AnalysisNovice, contradicted_note
from collabrl.envs.analysis.game import MESSAGE, WAIT
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask, get_task
from collabrl.envs.base import MAX_MESSAGE_CHARS, Observation
from collabrl.envs.structures import StructureView

MENTION_FLOOR = 0.3  # even the quietest teammate mentions a note now and then
ASK_NOTES = "share your notes"  # how a lead's request for the notes reads (and is recognised)
LEAD_PLAN = (
    "{name}, please share your notes first; then I'll run the analysis and write the hypothesis."
)
MATE_PLAN = "Plan: {lead}, you run the analysis; I'll pass on my notes now and check the results."
DOUBTS = (
    "Is {result} really right? It looks odd to me.",
    "Hmm, {result}? Should we double-check that step?",
    "I'm not sure about {result}. Did we use the right column?",
)


class _Analyst(AnalysisNovice):
    """The reference novice analyst, deaf to the heard notes its persona chose to dismiss, that
    leaves a teammate's rewrite of its fields when its persona complies."""

    def __init__(self, defers: Callable[[], bool]) -> None:
        self.dismissed: set[str] = set()
        self._defers = defers

    def defers(self, field: str) -> bool:
        return self._defers()

    def _known_notes(self, task: AnalysisTask, state: dict) -> set[str]:
        return super()._known_notes(task, state) - self.dismissed

    def rechecked(self) -> None:
        """Its persona ran one of its steps again: a repeat, not the workflow's next step (the
        analyst counts its own notebook cells from ``restart`` on as steps taken)."""
        self.restart += 1


class AnalysisPersona(PersonaBase):
    """An analysis teammate whose play follows a profile's Big Five traits, in any seat.

    Besides :class:`PersonaBase`'s counters, ``stats`` counts ``shared`` and ``withheld`` own
    notes and ``acted`` decisions spent on its own analysis (a teammate), ``dismissed`` heard
    notes (a lead) and ``looks`` at tables out of curiosity.
    """

    def _reset_game(self) -> None:
        self.analyst = _Analyst(lambda: self.chance(self.temperament.comply))
        self.analyst.reset(self.seat, 0)
        self.acting = False  # a teammate that has taken up the analysis itself
        self.curiosity = trait_degree(self.profile, "openness")
        self.read = 0  # dialogue lines already heard
        self.judged = 0  # notebook cells already looked at
        self.taken: set[str] = set()  # heard notes taken up (a lead)
        self.board_read: set[tuple[int, str, str]] = set()  # board entries already read
        self.browsed: set[str] = set()  # tables it has thought of looking at
        self.pending: list[str] | None = None  # own notes it will still mention (a teammate)
        self.asked = False  # agreed to the lead's request for the notes
        self.finished = False  # said it has told all it will tell

    # ----------------------------------------------------------------- decision
    def _decide(self, obs: Observation) -> Reply:
        state = obs.state
        view = StructureView.of(state)
        duty = self._check(state, view) or self.gatekeep(view) or self.organise(obs, view)
        if duty:
            return duty
        lead, mates = state["seats"][0] == self.seat, [s for s in state["seats"] if s != self.seat]
        if mates and self.opens_now():
            return self._open(state, lead, mates)
        self._hear(state, lead)
        reply = self._answer(state)
        if reply:
            return self.voice.think("I should answer that."), reply, MESSAGE
        fresh = self._fresh_result(state)
        if lead:
            return self._lead(obs, view, fresh, bool(mates))
        return self._support(obs, view, fresh)

    def _check(self, state: dict[str, Any], view: StructureView | None) -> Reply | None:
        """A request to decide whose analysis goes against one of its notes: deny it, and owe
        the team that note (said in the chat at its next chance)."""
        if view is None or not view.to_decide:
            return None
        request = view.to_decide[0]
        note = contradicted_note(state, request)
        if note is None:
            return None
        self.stats["denials"] += 1
        self.reply = note
        return self.voice.think("That rests on the wrong step."), "", request["deny"]

    def _team(self, state: dict[str, Any]) -> tuple[str, list[str]]:
        return self.seat, list(state["seats"])

    def _blunder(self, obs: Observation) -> str | None:
        """A plot of a table: a plausible analyst's move that the game does not offer."""
        tables = obs.state["tables"]
        return f"plot({self.voice.pick(tables) if tables else 'notebook'})"

    # ----------------------------------------------------------------- listening
    def _hear(self, state: dict[str, Any], lead: bool) -> None:
        """Take in teammates' new lines: a lead weighs the notes it hears, a teammate the lead's
        request for its notes."""
        lines = [line for line in state["dialogue"][self.read :] if line["seat"] != self.seat]
        self.read = len(state["dialogue"])
        if lead:
            self._weigh(get_task(state["task"]), state, lines)
            return
        asks = [line for line in lines if line["seat"] == state["seats"][0]]
        if not self.finished and any(ASK_NOTES in line["text"].lower() for line in asks):
            self.asked = self.consider_request() or self.asked

    def _weigh(self, task: AnalysisTask, state: dict[str, Any], lines: list[dict]) -> None:
        """Take up each note told anew (agreeable) or dismiss it; a dismissed note told again
        (after a denied request, say) is weighed again."""
        view = StructureView.of(state)
        entries = {(e["tick"], e["author"], e["text"]) for e in view.board} if view else set()
        written = [text for _, author, text in entries - self.board_read if author != self.seat]
        self.board_read |= entries
        heard = " | ".join(normalise(text) for text in [*(li["text"] for li in lines), *written])
        own = {n["id"] for n in state["notes"]}
        for note in task.notes:
            if note.id in own | self.taken or normalise(note.text) not in heard:
                continue
            if self.consider_request():
                self.honour()  # the note counts from the next step on
                self.taken.add(note.id)
                self.analyst.dismissed.discard(note.id)
            else:
                self.stats["dismissed"] += 1
                self.analyst.dismissed.add(note.id)

    def _fresh_result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """The newest value the notebook gained since the last decision (None: none)."""
        cells = state["cells"][self.judged :]
        self.judged = len(state["cells"])
        values = [c for c in cells if c["error"] is None and c["value"] is not None]
        return values[-1] if values else None

    # ----------------------------------------------------------------- things to say
    def _open(self, state: dict[str, Any], lead: bool, mates: list[str]) -> Reply:
        if not self.temperament.leads:
            return self.voice.think("Say hello first."), self.voice.greeting(), MESSAGE
        self.stats["instructions"] += 1
        plan = (
            named(LEAD_PLAN, " and ".join(mates), len(mates))
            if lead
            else MATE_PLAN.format(lead=state["seats"][0])
        )
        return self.voice.think("We need a plan before anyone starts."), plan, MESSAGE

    def _react(
        self, fresh: dict[str, Any] | None, mates: bool, may_run: bool = False
    ) -> Reply | None:
        """Nerves about a new result: ask the team about it, or (``may_run``: a lead's own
        result, runs ungated) run its step again."""
        if fresh is None:
            return None
        if mates and self.chance(self.temperament.doubt):
            self.stats["doubts"] += 1
            result = f"{fresh['name']} = {fresh['value']}" if fresh["name"] else str(fresh["value"])
            doubt = self.voice.phrase(DOUBTS).format(result=result)
            return self.voice.think("That number worries me."), doubt, MESSAGE
        if may_run and fresh["seat"] == self.seat and self.chance(self.temperament.recheck):
            self.stats["rechecks"] += 1
            self.analyst.rechecked()
            return (
                self.voice.think("Let me run that again, to be sure."),
                "",
                f"run({fresh['step']})",
            )
        return None

    def _cheer(self, mates: bool) -> Reply | None:
        cheer = self.voice.cheer() if mates and self.chance(self.temperament.chatter) else None
        return (
            (self.voice.think("A little encouragement helps."), cheer, MESSAGE) if cheer else None
        )

    # ----------------------------------------------------------------- moves
    def _stall(self, state: dict[str, Any]) -> Reply | None:
        """Hesitate (nerves, carelessness) or dawdle over a table (low conscientiousness)."""
        t = self.temperament
        if self.chance(t.hesitate):
            self.stats["hesitations"] += 1
            return self.voice.think(self.voice.hesitation()), "", WAIT
        if self.chance(t.dawdle):
            self.stats["dawdles"] += 1
            tables = state["tables"]
            move = f"look({self.voice.pick(tables)})" if tables else WAIT
            return self.voice.think("No hurry; let me browse for a moment."), "", move
        return None

    def _lead(
        self,
        obs: Observation,
        view: StructureView | None,
        fresh: dict[str, Any] | None,
        mates: bool,
    ) -> Reply:
        state = obs.state
        runs_freely = view is None or "run" not in view.owners
        impulse = self._react(fresh, mates, runs_freely) or self._stall(state)
        if impulse is None and not any(c["seat"] == self.seat for c in state["cells"]):
            impulse = self._browse(state)
        impulse = impulse or self._cheer(mates)
        if impulse:
            return impulse
        parsed = parse_observed(self.analyst.act(obs), obs)
        return self.voice.think(parsed.think), parsed.message, parsed.action or WAIT

    def _browse(self, state: dict[str, Any]) -> Reply | None:
        """Openness: look at each table once before the first step, when curious enough."""
        for table in state["tables"]:
            if table in self.browsed:
                continue
            self.browsed.add(table)
            if self.chance(self.curiosity):
                self.stats["looks"] += 1
                return self.voice.think("First, what is in this table?"), "", f"look({table})"
        return None

    def _support(
        self, obs: Observation, view: StructureView | None, fresh: dict[str, Any] | None
    ) -> Reply:
        """A teammate: tell the notes, say so when done, then watch the results, or take up
        the analysis itself (initiative)."""
        state = obs.state
        if self.pending is None:
            self.pending = self._worth_mentioning(state["notes"])
        self.acting = self.acting or self.chance(self.temperament.initiative)
        if not self.finished and not (self.acting and self.chance(1.0 - self.temperament.talk)):
            board = view.update.get("expertise") if view is not None else None
            return self._stall(state) or self._tell(self.pending, board)
        impulse = self._react(fresh, True) or self._cheer(True) if self.finished else None
        if impulse:
            return impulse
        if self.acting:
            self.stats["acted"] += 1
            parsed = parse_observed(self.analyst.analyse(obs), obs)
            return self.voice.think(parsed.think), parsed.message, parsed.action or WAIT
        return self.voice.think("I have told what I know."), "", WAIT

    def _worth_mentioning(self, notes: list[dict[str, str]]) -> list[str]:
        """The own notes it will mention, each decided once by talk (all of them when it agreed
        to the lead's request); the others it keeps to itself."""
        mention = MENTION_FLOOR + (1.0 - MENTION_FLOOR) * self.temperament.talk
        kept = [n["text"] for n in notes if self.asked or self.chance(mention)]
        self.stats["withheld"] += len(notes) - len(kept)
        return kept

    def _tell(self, pending: list[str], board: str | None) -> Reply:
        """The next note, when it feels like speaking (at once when asked), on the board when
        ``board`` (its expertise entry's action) is given, else in the chat; then "all I know"."""
        if not pending:
            self.finished = True
            return self.voice.think("The lead can start."), ALL_SAID, MESSAGE
        if not (self.asked or self.chance(self.temperament.talk)):
            return self.voice.think("Maybe later; it may not matter."), "", WAIT
        self.honour()
        note = pending.pop(0)
        self.stats["shared"] += 1
        think = self.voice.think("The lead should know this.")
        if board is not None:
            return think, note, board
        decorated = self.voice.decorate(note)
        return think, decorated if len(decorated) <= MAX_MESSAGE_CHARS else note, MESSAGE
