"""The analysis game: a team analyses tables in a shared notebook and submits one hypothesis.

After the team-structures study's data-analysis tasks (DiscoveryBench's archaeology subset in
Collaborative Gym's shared workspace): each seat holds the notes of its expertise (chronology,
materials, statistics), the team shares a notebook of analysis steps, a hypothesis editor and a
chat, and the episode ends when a seat submits the hypothesis, which is scored against the gold
one (:mod:`collabrl.envs.analysis.scoring`). What a seat's notes say (which event counts, that
years run BCE, that a smoothed column misleads, which samples to drop) changes the right answer,
so the team does well only when knowledge reaches the seat that analyses.

- Seats: 1 to 3, composed one of two ways. By role (the default): seat k holds role
  ``roles[k]``; notes of a role no seat holds go to the last seat, so every note is in the team.
  By collaborator profile (``teammates``, the team-structures study's D and R;
  :mod:`collabrl.envs.analysis.expertise`): seat 0 is the agent, then one seat per profile; each
  profile holds the notes that avoid its traps, the agent the others, and the notes of a profile
  not at the table are held by nobody.
- Collaboration structure (``structure``, :mod:`collabrl.envs.structures`): ``memory`` adds a
  group-memory board with a build phase (the first ``build_ticks`` ticks: only looks, messages,
  waits and board entries; afterwards the board is fixed); ``gates`` routes the ``gated`` kinds
  (``edit``: hypothesis edits, ``submit``; ``run`` may be added) through preassigned owners
  (``gate_owners``; by default edits to R, submitting to D, runs to D in a profiled team, else
  the second seat); ``scaffolded`` has the board, and the team chooses gate owners during the
  build phase, kinds nobody is chosen for staying ungated. A gated action by anyone but its
  owner files a request (one tick) and runs when chosen again after approval.
- Clock: every decision costs one tick; every seat decides every tick (seat order breaks ties
  within a tick: an earlier seat's edit or step is seen by a later seat's the same tick only
  from the next observation on).
- Action space (lettered in this order): ``look(<table>)`` per table (the seat's own view of that
  table: its columns, their descriptions, its first rows); the templates ``run(<step>)`` (an
  analysis-language step, :mod:`collabrl.envs.analysis.language`, run in the team's notebook),
  ``edit_context(<text>)``, ``edit_variables(<text>)`` (comma-separated), ``edit_relation(<text>)``,
  ``edit_sentence(<text>)`` (the shared hypothesis editor); ``[send_message]``; ``submit``;
  ``wait``; then the structure's actions (board entries, approvals, gate assignments). A
  template sent as offered (no argument) does nothing but cost its tick; a step that fails shows
  its error in the notebook. With ``pandas_code`` (off by default) ``python(<code>)``
  is offered too: a real pandas cell run in a sandboxed subprocess
  (:mod:`collabrl.envs.analysis.sandbox`: time, memory and output limits, no network, no files
  beyond the task's tables), for LLM seats; it costs about 0.3 s of start-up per cell.
- Observation: the query, the seat's role and notes, the tables, the last notebook cells, the
  hypothesis as it stands, the last messages, the seat's last look, the clock, the actions.
  ``state`` holds the same as data; the GiGPO anchor is what the team has established (the
  notebook's scalar results, which hypothesis fields are filled, the tables the seat has looked
  at), never the dialogue.
- Reward: 0 per step; the section's ``efficiency`` is the submission's hypothesis match score.
- Episode end: ``submit`` (``outcome`` "submitted"; success when the score is 1.0) or
  ``max_ticks`` ("time up", score 0).
- Summary: ``task``, ``success``, ``steps`` (the submission tick, else ``max_ticks``), ``score``
  (DiscoveryBench's hypothesis match score), ``performance`` (the context facet), the facets,
  the submitted ``hypothesis``, ``ticks``, ``outcome``, per-seat ``decisions`` / ``invalid`` /
  ``messages``, the process ``trace`` (``work`` for runs, edits and the submission, targets
  ``run:<op>``, ``edit:<field>`` and ``submit``; ``message``; ``board``; gate ``request`` /
  ``wait`` / ``approve`` / ``deny`` / ``assign``; ``invalid``) and the ``notebook`` (every cell: tick, seat, step,
  result name, value, error), which the workflow judgements read; ``roles`` (seat -> role or
  profile), ``notes_held`` (seat -> note ids) and the structure's record (``structure``, the
  ``board`` entries, ``gate_requests``, ...; :meth:`Structures.summary`).
- Version: :data:`VERSION`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collabrl.envs.analysis.expertise import (
    AGENT,
    PROFILE_FOCUS,
    PROFILE_TITLES,
    PROFILES,
    Profile,
    fallible,
    notes_by_profile,
)
from collabrl.envs.analysis.language import Outcome, Workspace
from collabrl.envs.analysis.scoring import Facets, Scorer, score_hypothesis
from collabrl.envs.analysis.tasks import AnalysisTask, Hypothesis, Note, Role, frames
from collabrl.envs.base import (
    Decision,
    Observation,
    StepResult,
    lettered,
    message_text,
    sends_message,
)
from collabrl.envs.structures import (
    EMPTY_ENTRY,
    Structure,
    Structures,
    Trace,
    Vocabulary,
    default_owner,
)

VERSION = 1
TIME_LIMIT = 40  # ticks per episode; the reference analyst needs 5-12
ROLES: tuple[Role, ...] = ("statistics", "chronology", "materials")  # default role per seat
MESSAGE, SUBMIT, WAIT = "[send_message]", "submit", "wait"
RUN = "run(<step>)"
CODE = "python(<code>)"  # offered only with the pandas sandbox on (off by default)
FIELDS = ("context", "variables", "relation", "sentence")
EDITS = {f"edit_{f}(<text>)": f for f in FIELDS}
TEMPLATE = re.compile(r"(\w+)\((.*)\)", re.S)
MAX_ARGUMENT = 500  # characters of a step or an edit
SHOWN_CELLS, SHOWN_MESSAGES, LOOK_ROWS = 6, 5, 6
SUBMITTED, TIME_UP = "submitted", "time up"
GATE_KINDS = ("run", "edit", "submit")  # the action kinds a gate may cover
BUILDING_KINDS = ("look", MESSAGE, WAIT)  # what a build phase leaves of the game's actions
DEFAULT_GATED = ("edit", "submit")  # the consequential ones: the hypothesis and its submission
BUILD_TICKS = 4  # the group-memory build phase (board structures)
PROFILE_OWNERS = {"edit": ("R", "D"), "submit": ("D", "R"), "run": ("D", "R")}  # first present
WORDS = Vocabulary(kind="{kind}")


@dataclass(frozen=True)
class Cell:
    """One notebook entry: who ran which step at which tick, and what came out."""

    tick: int
    seat: str
    outcome: Outcome


class AnalysisGame:
    """One episode of the analysis game on ``task`` (see the module docstring)."""

    name = "analysis"
    message_action = MESSAGE

    def __init__(
        self,
        task: AnalysisTask,
        seats: Sequence[str],
        roles: Sequence[Role] | None = None,
        max_ticks: int = TIME_LIMIT,
        pandas_code: bool = False,
        *,
        teammates: Sequence[str] | None = None,
        structure: Structure = "default",
        gated: Sequence[str] = DEFAULT_GATED,
        gate_owners: Mapping[str, str] | None = None,
        build_ticks: int = BUILD_TICKS,
        scorer: Scorer = "claims",
        reliability: Mapping[Profile, float] | None = None,
    ) -> None:
        if not 1 <= len(seats) <= len(ROLES):
            raise ValueError(f"the analysis game takes 1-{len(ROLES)} seats, got {len(seats)}")
        self.task = task
        self.agents = list(seats)
        self.profiled = teammates is not None
        if teammates is not None:
            check_team(self.agents, teammates, roles)
            self.roles: list[str] = [AGENT, *teammates]
            self.held = notes_by_profile(task, self.roles)
            self.notes = dict(zip(self.agents, self.held, strict=True))
        else:
            self.roles = list(roles or ROLES[: len(seats)])
            if len(self.roles) != len(self.agents):
                raise ValueError(f"{len(self.agents)} seats need {len(self.agents)} roles")
            self.notes = _notes_by_seat(task, self.agents, self.roles)  # type: ignore[arg-type]
        unknown = [k for k in gated if k not in GATE_KINDS]
        if unknown:
            raise ValueError(f"gated: unknown action kind(s) {unknown}; kinds: {GATE_KINDS}")
        self.max_ticks = max_ticks
        self.pandas_code = pandas_code
        self.scorer = scorer
        self.reliability = {str(p): r for p, r in (reliability or {}).items()}
        self.structure, self.gated, self.build_ticks = structure, tuple(gated), build_ticks
        self.gate_owners = dict(gate_owners or self._preassigned_owners())
        self.offered = (  # fixed for the game: built once, not per observation
            *(f"look({t.name})" for t in task.tables),
            RUN,
            *([CODE] if pandas_code else []),
            *EDITS,
            MESSAGE,
            SUBMIT,
            WAIT,
        )
        self.building_offered = (*(f"look({t.name})" for t in task.tables), MESSAGE, WAIT)
        self.tables = frames(task)
        self.reset()

    def _preassigned_owners(self) -> dict[str, str]:
        """Gate owners by action kind when none are given: in a profiled team the first present
        of :data:`PROFILE_OWNERS` (the researcher signs off the hypothesis, the data analyst the
        submission and the runs), else the second seat (the games' common default)."""
        if not self.profiled:
            owner = default_owner(self.agents)
            return {k: owner for k in self.gated} if owner else {}
        by_kind = dict(zip(self.roles, self.agents, strict=True))
        owners = {}
        for kind in self.gated:
            present = [by_kind[p] for p in PROFILE_OWNERS[kind] if p in by_kind]
            if present:
                owners[kind] = present[0]
        return owners

    # ------------------------------------------------------------------ the Game protocol
    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start over. ``seed`` draws which collaborator notes are wrong in a profiled team of
        ``reliability`` below 1 (:func:`~collabrl.envs.analysis.expertise.fallible`); nothing
        else in the game is random."""
        if self.profiled and self.reliability:
            drawn = fallible(self.task, self.roles, self.held, self.reliability, seed or 0)
            self.notes = dict(zip(self.agents, drawn, strict=True))
        self.tick = 0
        self.workspace = Workspace(self.tables)
        self.cells: list[Cell] = []
        self.hypothesis = dict.fromkeys(FIELDS, "")
        self.dialogue: list[tuple[int, str, str]] = []
        self.looked: dict[str, str | None] = dict.fromkeys(self.agents)
        self.seen: dict[str, set[str]] = {seat: set() for seat in self.agents}
        self.outcome: str | None = None
        self.submitted_at: int | None = None
        self.facets: Facets | None = None
        self.counts = {
            k: dict.fromkeys(self.agents, 0) for k in ("decisions", "invalid", "messages")
        }
        self.trace = Trace()
        self.team = Structures(
            self.structure, self.agents, WORDS, self.gated, self.gate_owners, self.build_ticks
        )
        self.moves: dict[str, dict[str, tuple[str, Any]]] = {}
        return self._observations()

    @property
    def done(self) -> bool:
        return self.outcome is not None

    @property
    def progress(self) -> int:
        """Hypothesis fields filled in so far (0-4)."""
        return sum(bool(v) for v in self.hypothesis.values())

    def actions(self, seat: str | None = None) -> list[str]:
        """The actions offered now: the game's (during a build phase only looks, messages and
        waits), then ``seat``'s structure actions."""
        if seat is None or not self.team.active:
            return list(self._base())
        return [*self._base(), *self._moves_now(seat)]

    def _base(self) -> tuple[str, ...]:
        """The game's own actions now (a build phase leaves looks, messages and waits)."""
        return self.building_offered if self.team.building(self.tick) else self.offered

    def _moves_now(self, seat: str) -> dict[str, tuple[str, Any]]:
        """``seat``'s structure actions at this tick (action text -> move)."""
        return self.team.offers(seat, self.tick) if self.team.active else {}

    def intro(self, seat: str) -> str:
        others = [a for a in self.agents if a != seat]
        team = f" with {', '.join(others)}" if others else " alone"
        who = self._title(seat)
        rules = (
            f"You are {seat}, {who} of a data-analysis team{team}. The team answers a "
            "research query about the tables by submitting one hypothesis (context, variables, "
            "relation and a sentence). Everyone shares a notebook: run(<step>) runs one step of "
            'the analysis language, e.g. run(r1 = filter(samples, site != "C")) or '
            "run(extrema(r1, tin, period, max)), and every result is seen by all. Each of you holds "
            "notes only your expertise knows; they can change the right answer, so share what "
            "matters. Edit the shared hypothesis with edit_context, edit_variables, edit_relation "
            "and edit_sentence, and submit when it is right: the score compares it with the "
            f"correct hypothesis. Every action, a message included, takes one of the {self.max_ticks} "
            "ticks."
        )
        return "\n".join([rules, *self.team.intro(seat)])

    def _title(self, seat: str) -> str:
        """How the seat's expertise reads in its prompt: a profile's title, or a role's."""
        kind = self.roles[self.agents.index(seat)]
        return PROFILE_TITLES[kind] if self.profiled else f"the {kind} expert"

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        if self.done:
            raise RuntimeError("the episode is over; call reset first")
        infos = {}
        for seat in self.agents:
            infos[seat] = self._apply(seat, decisions.get(seat, Decision(None, valid=False)))
        self.tick += 1
        if not self.done and self.tick >= self.max_ticks:
            self.outcome = TIME_UP
        done = self.done
        return StepResult(
            observations={} if done else self._observations(),
            rewards=dict.fromkeys(self.agents, 0.0),
            terminations=dict.fromkeys(self.agents, done and self.outcome == SUBMITTED),
            truncations=dict.fromkeys(self.agents, done and self.outcome == TIME_UP),
            infos=infos,
        )

    def summary(self) -> dict[str, Any]:
        facets = self.facets
        return {
            "task": self.task.name,
            "success": facets is not None and facets.hms == 1.0,
            "steps": self.submitted_at if self.submitted_at is not None else self.max_ticks,
            "score": facets.hms if facets is not None else 0.0,
            "performance": facets.context if facets is not None else 0.0,
            "facets": facets.as_dict() if facets is not None else None,
            "hypothesis": dict(self.hypothesis) if self.outcome == SUBMITTED else None,
            "ticks": self.tick,
            "outcome": self.outcome or "running",
            **{key: dict(counts) for key, counts in self.counts.items()},
            "roles": dict(zip(self.agents, self.roles, strict=True)),
            "notes_held": {seat: [n.id for n in notes] for seat, notes in self.notes.items()},
            **self.team.summary(),
            "trace": self.trace.records(),
            "notebook": self._notebook(),
        }

    # ------------------------------------------------------------------ rules
    def _apply(self, seat: str, decision: Decision) -> dict[str, Any]:
        """One seat's decision: count it, then carry it out (an unusable one idles the seat;
        after a teammate submitted earlier in the same tick, none is carried out)."""
        self.counts["decisions"][seat] += 1
        action = decision.action
        move = self.moves.get(seat, {}).get(action or "")
        if move is not None:
            return self._structure(seat, move, decision)
        kind, argument = self._parse(action)
        if kind is not None and self.team.building(self.tick) and kind not in BUILDING_KINDS:
            kind = None  # the task's actions wait for the build phase to end
        usable = kind is not None and (kind != MESSAGE or bool(message_text(decision.message)))
        if not usable:
            self.counts["invalid"][seat] += 1
            self.trace.add(self.tick, seat, "invalid")
            return {"invalid": True, "action": None, "reason": "not an offered action"}
        if not decision.valid:
            self.counts["invalid"][seat] += 1
        if self.done:
            return {"invalid": not decision.valid, "action": None, "reason": "already submitted"}
        if sends_message(action, decision.message, MESSAGE):
            text = message_text(decision.message)
            self.counts["messages"][seat] += 1
            self.dialogue.append((self.tick, seat, text))
            self.trace.add(self.tick, seat, "message", text=text)
        elif kind == "look":
            self.looked[seat] = argument
            self.seen[seat].add(argument or "")
        elif (verdict := self._gate(seat, kind, argument, action)) != "free":
            return {"invalid": not decision.valid, "action": action, "gate": verdict}
        elif kind == "run":
            self._run(seat, argument)
        elif kind == "python":
            self._python(seat, argument)
        elif kind in FIELDS:
            self._edit(seat, kind, argument)
        elif kind == SUBMIT:
            self._submit(seat)
        return {"invalid": not decision.valid, "action": action}

    def _structure(self, seat: str, move: tuple[str, Any], decision: Decision) -> dict[str, Any]:
        """A board entry, a gate decision or a gate assignment: one tick, no analysis."""
        text = message_text(decision.message)
        if self.team.needs_text(move) and not text:
            self.counts["invalid"][seat] += 1
            self.trace.add(self.tick, seat, "invalid")
            return {"invalid": True, "action": None, "reason": EMPTY_ENTRY}
        self.counts["invalid"][seat] += not decision.valid
        if self.done:
            return {"invalid": not decision.valid, "action": None, "reason": "already submitted"}
        kind, target = self.team.apply(seat, move, text, self.tick)
        self.trace.add(self.tick, seat, kind, target, text if kind == "board" else "")
        return {"invalid": not decision.valid, "action": decision.action}

    def _gate(self, seat: str, kind: str | None, argument: str | None, action: str | None) -> str:
        """Whether a run, edit or submission runs now ("free") or a gate holds it (a request is
        filed, or the seat waits on its own open one); a template with no argument is not
        gated (it does nothing)."""
        gate_kind = "edit" if kind in FIELDS else "run" if kind == "python" else kind
        if gate_kind not in GATE_KINDS or (kind != SUBMIT and not argument) or action is None:
            return "free"
        verdict = self.team.gate(seat, gate_kind, action, self.tick)
        if verdict in ("request", "wait"):
            target = f"edit:{kind}" if gate_kind == "edit" else gate_kind
            self.trace.add(self.tick, seat, verdict, target)  # type: ignore[arg-type]
        return "free" if verdict == "approved" else verdict

    def _parse(self, action: str | None) -> tuple[str | None, str | None]:
        """(kind, argument) of an action: ``look``, ``run``, a hypothesis field, the message,
        ``submit`` or ``wait``; (None, None) when it is not offered. A template sent as offered
        has the argument None."""
        if action is None:
            return None, None
        if action in (MESSAGE, SUBMIT, WAIT):
            return action, None
        if action == RUN:
            return "run", None
        if action == CODE and self.pandas_code:
            return "python", None
        if action in EDITS:
            return EDITS[action], None
        match = TEMPLATE.fullmatch(action.strip())
        if match is None or len(match.group(2)) > MAX_ARGUMENT:
            return None, None
        name, argument = match.group(1), match.group(2).strip()
        if name == "look":
            return ("look", argument) if f"look({argument})" in self.offered else (None, None)
        if name == "run":
            return "run", argument
        if name == "python" and self.pandas_code:
            return "python", argument
        if f"{name}(<text>)" in EDITS:
            return EDITS[f"{name}(<text>)"], argument
        return None, None

    def _run(self, seat: str, step: str | None) -> None:
        if not step:
            return
        outcome = self.workspace.run(step)
        self.cells.append(Cell(self.tick, seat, outcome))
        op = step.split("=", 1)[-1].strip().split("(", 1)[0].strip() or "step"
        self.trace.work(self.tick, seat, f"run:{op}", wasted=outcome.error is not None)

    def _python(self, seat: str, code: str | None) -> None:
        """A real pandas cell, run by the sandbox (:mod:`collabrl.envs.analysis.sandbox`); its
        output joins the notebook like a step's (no value: the analysis language names results)."""
        if not code:
            return
        from collabrl.envs.analysis.sandbox import run_code

        result = run_code(code, self.tables)
        outcome = Outcome(f"python: {code[:200]}", None, result.text, None, error=result.error)
        self.cells.append(Cell(self.tick, seat, outcome))
        self.trace.work(self.tick, seat, "run:python", wasted=result.error is not None)

    def _edit(self, seat: str, field: str, text: str | None) -> None:
        if text is None:
            return
        self.hypothesis[field] = " ".join(text.split())
        self.trace.work(self.tick, seat, f"edit:{field}")

    def _submit(self, seat: str) -> None:
        submitted = Hypothesis(
            context=self.hypothesis["context"],
            variables=[v.strip() for v in self.hypothesis["variables"].split(",") if v.strip()],
            relation=self.hypothesis["relation"],
            sentence=self.hypothesis["sentence"],
        )
        self.facets = score_hypothesis(submitted, self.task.gold, self.scorer)
        self.trace.work(self.tick, seat, "submit")
        self.outcome = SUBMITTED
        self.submitted_at = self.tick + 1

    # ------------------------------------------------------------------ observations
    def _observations(self) -> dict[str, Observation]:
        return {seat: self.observe(seat) for seat in self.agents}

    def observe(self, seat: str) -> Observation:
        self.moves[seat] = self._moves_now(seat)  # once: what is offered and what is decided
        actions = [*self._base(), *self.moves[seat]]
        role = self.roles[self.agents.index(seat)]
        notes = self.notes[seat]
        lines = [
            f"Tick {self.tick} of {self.max_ticks}.",
            f"Query: {self.task.query}",
            *self._expertise_lines(seat),
            "Your notes:",
            *([f"- {n.text}" for n in notes] or ["- (none)"]),
            "Tables:",
            *(f"- {t.name} ({len(t.rows)} rows): {', '.join(c.name for c in t.columns)}"
              for t in self.task.tables),
            f"Notebook ({_cells_shown(len(self.cells))}):",
            *([_cell_text(c) for c in self.cells[-SHOWN_CELLS:]] or ["- empty"]),
            "Hypothesis (shared):",
            *(f"- {f}: {self.hypothesis[f] or '(empty)'}" for f in FIELDS),
            f"Messages (last {SHOWN_MESSAGES}):",
            *([f"- {who} (tick {t}): {text}" for t, who, text in self.dialogue[-SHOWN_MESSAGES:]]
              or ["- none yet"]),
            *self._look_lines(seat),
            *self.team.lines(seat, self.tick),
            "Available actions:",
            lettered(actions),
        ]  # fmt: skip
        anchor = self._anchor(seat, role)
        state = self._state(seat, role)
        if self.team.active:
            anchor = (*anchor, self.team.building(self.tick), self.team.anchor(seat))
            state["structure"] = self.team.view(seat, self.tick)
        return Observation(
            seat=seat,
            tick=self.tick,
            text="\n".join(lines),
            actions=actions,
            anchor=anchor,
            state=state,
            message_action=MESSAGE,
        )

    def _expertise_lines(self, seat: str) -> list[str]:
        kind = self.roles[self.agents.index(seat)]
        if not self.profiled:
            return [f"Your expertise: {kind}."]
        return [f"You are {PROFILE_TITLES[kind]}.", PROFILE_FOCUS[kind]]

    def _look_lines(self, seat: str) -> list[str]:
        name = self.looked[seat]
        table = next((t for t in self.task.tables if t.name == name), None)
        if table is None:
            return []
        described = [f"- {c.name}: {c.description}" for c in table.columns]
        head = [", ".join(_short(v) for v in row) for row in table.rows[:LOOK_ROWS]]
        return [
            f"You looked at {table.name}: {table.description}",
            *described,
            f"First rows ({', '.join(c.name for c in table.columns)}):",
            *(f"  {row}" for row in head),
        ]

    def _notebook(self) -> list[dict[str, Any]]:
        """The notebook's cells as data: who ran which step at which tick, and what came out."""
        return [
            {
                "tick": c.tick,
                "seat": c.seat,
                "step": c.outcome.step,
                "name": c.outcome.name,
                "value": c.outcome.value,
                "error": c.outcome.error,
            }
            for c in self.cells
        ]

    def _anchor(self, seat: str, role: str) -> tuple:
        established = tuple(
            (c.outcome.name or "", _short(c.outcome.value))
            for c in self.cells
            if c.outcome.error is None and c.outcome.value is not None
        )
        filled = tuple(bool(self.hypothesis[f]) for f in FIELDS)
        return (role, established, filled, tuple(sorted(self.seen[seat])))

    def _state(self, seat: str, role: str) -> dict[str, Any]:
        return {
            "seats": list(self.agents),
            "role": role,
            "roles": dict(zip(self.agents, self.roles, strict=True)),
            "profiled": self.profiled,
            "task": self.task.name,
            "notes": [{"id": n.id, "text": n.text} for n in self.notes[seat]],
            "tables": [t.name for t in self.task.tables],
            "cells": self._notebook(),
            "hypothesis": dict(self.hypothesis),
            "dialogue": [{"tick": t, "seat": who, "text": text} for t, who, text in self.dialogue],
            "looked": self.looked[seat],
            "tick": self.tick,
        }


def check_team(seats: Sequence[str], teammates: Sequence[str], roles: Sequence[str] | None) -> None:
    """A profiled team: one seat per profile after the agent's, each profile at most once
    (ValueError in one line otherwise; sections call it so that lint refuses such a team)."""
    if roles is not None:
        raise ValueError("give roles or teammates (collaborator profiles), not both")
    unknown = [t for t in teammates if t not in PROFILES]
    if unknown:
        raise ValueError(f"teammates: unknown profile(s) {unknown}; profiles: {list(PROFILES)}")
    if len(set(teammates)) != len(teammates):
        raise ValueError(f"teammates: each profile at most once, got {list(teammates)}")
    if len(seats) != 1 + len(teammates):
        raise ValueError(
            f"{len(seats)} seats for the agent and {len(teammates)} teammate(s) "
            f"{list(teammates)}: need {1 + len(teammates)}"
        )


def _notes_by_seat(
    task: AnalysisTask, seats: list[str], roles: list[Role]
) -> dict[str, list[Note]]:
    """Each seat's notes: those of its role, and the notes of roles nobody holds go to the last
    seat (every note is somewhere in the team)."""
    held = {
        seat: [n for n in task.notes if n.role == role]
        for seat, role in zip(seats, roles, strict=True)
    }
    orphans = [n for n in task.notes if n.role not in roles]
    held[seats[-1]] = [*held[seats[-1]], *orphans]
    return held


def _cells_shown(count: int) -> str:
    cells = f"{count} cell{'s' if count != 1 else ''}"
    return f"{cells}, the last {SHOWN_CELLS} shown" if count > SHOWN_CELLS else cells


def _cell_text(cell: Cell) -> str:
    shown = cell.outcome.error and f"error: {cell.outcome.error}" or cell.outcome.text
    first, *rest = shown.split("\n")
    body = "".join(f"\n    {line}" for line in rest[:8])
    if first.startswith(cell.outcome.step):  # an unnamed value reads "step = value" already
        return f"- [{cell.tick}] {cell.seat}: {first}{body}"
    return f"- [{cell.tick}] {cell.seat}: {cell.outcome.step} -> {first}{body}"


def _short(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
