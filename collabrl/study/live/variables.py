"""The state variables of a running study: every participant's and group's, over the database
(``state`` events), with what depends on them at run time (``set:`` after a page or a round,
``when:`` routes, texts and agent prompts filled in). An expression that fails for one
participant (an answer they skipped used in arithmetic) changes nothing and takes no branch; the
failure is a ``logic_error`` event. The rules themselves, and their lint, are
:mod:`collabrl.study.spec.logic`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from collabrl.study.live.host import StudyHost
from collabrl.study.results.room_export import room_measures
from collabrl.study.spec.expressions import ExpressionError, truth
from collabrl.study.spec.logic import (
    PLACEHOLDER,
    ROOM_MEASURES,
    apply_set,
    interpolate,
    names,
    route,
)
from collabrl.study.spec.retry import retry_target
from collabrl.study.spec.schema import Condition, SurveyPage
from collabrl.study.spec.state import coerce
from collabrl.study.store.db import Phase
from collabrl.study.store.room import Room, room_facts

if TYPE_CHECKING:
    from collabrl.agents.player import Player
    from collabrl.envs.base import Game
    from collabrl.envs.registry import GameSection


class Round(Protocol):
    """What the state variables read of a group's round
    (:class:`~collabrl.study.live.rounds.GroupRun`)."""

    @property
    def gid(self) -> str: ...

    @property
    def position(self) -> int: ...

    @property
    def members(self) -> dict[str, str | None]: ...

    def condition(self, position: int | None = None) -> Condition: ...

    def section(self, position: int | None = None) -> GameSection: ...

    def active(self) -> list[str]: ...

    def node(self, phase: Phase, position: int | None = None) -> str: ...


class LogicHost(StudyHost, Protocol):
    """What the state variables need of the runtime: the game's message action besides."""

    @property
    def message_action(self) -> str: ...


class StudyLogic:
    """The state of every participant and group of a running study, over its database (the
    ``state`` events), and what depends on it."""

    def __init__(self, rt: LogicHost) -> None:
        self.rt, self.study = rt, rt.study
        self.state: dict[str, dict[str, Any]] = {}  # participant -> their variables
        self.group_state: dict[str, dict[str, Any]] = {}  # group -> its variables
        self.given: dict[str, dict[str, Any]] = {}  # participant -> page.question -> answer
        self.failures: dict[str, dict[str, int]] = {}  # participant -> page -> failed attempts

    def recover(self) -> None:
        """The last stored state of every participant and group, and their answers."""
        for event in self.rt.db.events("answers"):
            self._remember(event["pid"], event["data"]["form"], event["data"]["answers"])
        for event in self.rt.db.events("quiz_attempt"):
            if not event["data"]["passed"]:
                tried = self.failures.setdefault(event["pid"], {})
                tried[event["node"]] = tried.get(event["node"], 0) + 1
        for event in self.rt.db.events("state"):
            data = event["data"]
            if data.get("scope") == "group":
                self.group_state[event["gid"]] = data["values"]
            else:
                self.state[event["pid"]] = data["values"]

    def _remember(self, pid: str, form: str, answers: Mapping[str, Any]) -> None:
        self.given.setdefault(pid, {}).update({f"{form}.{q}": v for q, v in answers.items()})

    def answers(self, pid: str) -> dict[str, Any]:
        """The participant's answers so far, keyed ``page.question`` (kept in memory: texts
        with placeholders are filled in on every page push)."""
        return self.given.get(pid, {})

    def values(self, pid: str, result: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What an expression about ``pid`` sees now."""
        gid = self.rt.people[pid]["gid"]
        group = self.group_state.get(gid) if gid else None
        return names(self.study, self.state.get(pid), group, self.answers(pid), result)

    def _store(self, pid: str, scope: str, before: Mapping, after: dict, where: str) -> None:
        """Store a changed state (the participant's, or their group's) as a ``state`` event;
        memory follows once it is committed."""
        if dict(before) == after:
            return
        gid = self.rt.people[pid]["gid"]
        self.rt.db.event("state", pid=pid, gid=gid, node=where, scope=scope, values=after)
        held = self.group_state if scope == "group" else self.state
        key = gid if scope == "group" else pid
        assert key is not None  # group state is only set for a participant in a group
        self.rt.db.after_commit(partial(held.__setitem__, key, after))

    def assign(self, pid: str, levels: Mapping[str, str], where: str) -> None:
        """Set the participant's randomised factors to their assigned ``levels``."""
        before = dict(self.values(pid)["state"])
        self._store(pid, "participant", before, {**before, **levels}, where)

    def set_value(self, pid: str, name: str, value: Any, where: str) -> str | None:
        """The participant's variable ``name`` set by an agent's set_state tool or a sandboxed
        component (a text ``value`` read as the variable's type: a number, true/false); why
        not, when it does not fit (None: set)."""
        var = self.study.state.get(name)
        if var is None or var.scope != "participant":
            return f"no participant state variable {name!r}"
        parsed: Any = value
        if isinstance(value, str) and var.type == "number":
            try:
                parsed = float(value)
            except ValueError:
                return f"{value!r} is not a number"
        elif isinstance(value, str) and var.type == "bool":
            parsed = {"true": True, "false": False}.get(value.lower(), value)
        try:
            coerced = coerce(var, parsed)
        except ExpressionError as exc:
            return str(exc)
        before = dict(self.values(pid)["state"])
        self._store(pid, "participant", before, {**before, name: coerced}, where)
        return None

    def _failed(self, pid: str, where: str, failed: Mapping[str, str]) -> None:
        for var, error in failed.items():
            self.rt.db.event("logic_error", pid=pid, node=where, what=f"set {var}", error=error)

    def survey_done(self, pid: str, page: SurveyPage, answers: dict[str, Any]) -> str:
        """Apply the page's ``set:`` (its answers are stored already) and pick its route."""
        self._remember(pid, page.id, answers)
        self._attention(pid, page, answers)
        simple = not page.set and page.retry is None
        if simple and all(b.when is None for b in page.branches):
            return route(self.study, page, answers, {}) or self.rt.flow.successor(page.id)
        values = self.values(pid)
        if page.set:
            mine, _, failed = apply_set(self.study, page.set, values)
            self._failed(pid, page.id, failed)
            self._store(pid, "participant", values["state"], mine, page.id)
            values = self.values(pid)
        try:
            target = self._retried(pid, page, values) or route(self.study, page, answers, values)
        except ExpressionError as exc:
            self.rt.db.event("logic_error", pid=pid, node=page.id, what="when", error=str(exc))
            target = None
        return target or self.rt.flow.successor(page.id)

    def _attention(self, pid: str, page: SurveyPage, answers: Mapping[str, Any]) -> None:
        """An ``attention_check`` event for each attention check the participant answered."""
        for q in page.questions:
            if q.expect is not None and answers.get(q.id) is not None:
                given = answers[q.id]
                self.rt.db.event(
                    "attention_check",
                    pid=pid,
                    node=page.id,
                    question=q.id,
                    answer=given,
                    expected=q.expect,
                    passed=given == q.expect,
                )

    def _retried(self, pid: str, page: SurveyPage, values: Mapping[str, Any]) -> str | None:
        """Where the attempt at a page with a bounded retry leads (None: it passed, or the page
        has none), recorded as a ``quiz_attempt`` event; raises ExpressionError."""
        if page.retry is None:
            return None
        passed = truth(page.retry.passed, values)
        failures = self.failures.get(pid, {}).get(page.id, 0)
        target = retry_target(page.retry, passed, failures)
        self.rt.db.event(
            "quiz_attempt", pid=pid, node=page.id, attempt=failures + 1, passed=passed, to=target
        )
        if not passed:
            tried = self.failures.setdefault(pid, {})
            self.rt.db.after_commit(partial(tried.__setitem__, page.id, failures + 1))
        return target

    def _round(self, group: Round) -> dict[str, Any]:
        """Where the round that just ended stands: its condition, position and kind."""
        condition = group.condition()
        return {"condition": condition.id, "position": group.position + 1, "round": condition.round}

    def result(self, group: Round, record: dict[str, Any], seat: str) -> dict[str, Any]:
        """A finished game round as ``result`` shows it to the participant in ``seat``."""
        from collabrl.study.results.export import round_facts

        metric = type(self.study.played_game).efficiency_metric
        facts = round_facts(record, seat, metric, self.rt.message_action)
        return {
            **facts,
            "efficiency": group.section().efficiency(record["summary"]),
            **dict.fromkeys(ROOM_MEASURES),
            **self._round(group),
        }

    def room_result(self, group: Round, room: Room, pid: str) -> dict[str, Any]:
        """A finished chat or document round as ``result`` shows it to participant ``pid``:
        no success, steps or efficiency; their turns as decisions and messages; the room's
        own measures (:func:`collabrl.study.results.room_export.room_measures`)."""
        return {
            **room_facts(room, pid),
            "efficiency": None,
            **room_measures(room, pid),
            **self._round(group),
        }

    def round_done(self, group: Round, record: dict[str, Any]) -> None:
        """Apply the conditions page's ``set:`` after a game round."""
        self._round_set(group, lambda pid, seat: self.result(group, record, seat))

    def room_round_done(self, group: Round, room: Room) -> None:
        """Apply the conditions page's ``set:`` after a chat or document round."""
        self._round_set(group, lambda pid, seat: self.room_result(group, room, pid))

    def _round_set(self, group: Round, result: Callable[[str, str], dict[str, Any]]) -> None:
        """Apply the conditions page's ``set:`` after a round (``result``: participant, seat
        -> the round as they see it): each active member's own variables, and the group's
        once (from its first active member's view)."""
        page = self.rt.flow.conditions_page
        if not page.set:
            return
        node = group.node("play")
        for k, pid in enumerate(group.active()):
            seat = self.rt.people[pid]["seat"]
            assert seat is not None  # a group's member has a seat in it
            values = self.values(pid, result(pid, seat))
            mine, ours, failed = apply_set(self.study, page.set, values)
            self._failed(pid, node, failed)
            self._store(pid, "participant", values["state"], mine, node)
            if k == 0:
                self._store(pid, "group", values["group"], ours, node)

    def text(self, pid: str, text: str, markdown: bool = True) -> str:
        """``text`` with the participant's state and answers filled in."""
        if "{" not in text or not PLACEHOLDER.search(text):
            return text
        return interpolate(text, self.values(pid), markdown)

    def group_values(self, group: Round) -> dict[str, Any]:
        """What a group's agent prompt sees: its first participant's state and answers."""
        first = next((p for p in group.members.values() if p), None)
        if first is None:
            return names(self.study, None, self.group_state.get(group.gid), {})
        return self.values(first)

    def agent(
        self, group: Round, condition: Condition, section: GameSection, game: Game, seed: int
    ) -> Player:
        """The condition's agent for one seat of the group's round: its profile from
        ``profile_from`` and its persona prompt filled in from the group's first participant,
        where the condition has them (recorded as an ``agent_setup`` event)."""
        from collabrl.factory import make_llm_player
        from collabrl.profiles import get_profile
        from collabrl.study.live.players import agent_player

        spec = condition.player
        if not condition.prompt and not condition.profile_from:
            return agent_player(spec, section, game, seed, self.rt.engines)
        values = self.group_values(group)
        if condition.profile_from:
            var = self.study.state[condition.profile_from]
            scope = "group" if var.scope == "group" else "state"
            spec = spec.model_copy(update={"profile": values[scope][condition.profile_from]})
        persona = None
        if condition.prompt:
            persona = interpolate(condition.prompt, values, markdown=False)
            if spec.profile:
                persona = f"{get_profile(spec.profile).persona()}\n\n{persona}"
        self.rt.db.event(
            "agent_setup",
            gid=group.gid,
            node=group.node("play"),
            condition=condition.id,
            profile=spec.profile,
            prompt=persona,
        )
        if persona is None:
            return agent_player(spec, section, game, seed, self.rt.engines)
        engine = self.rt.engines.get(spec.engine)
        return make_llm_player(engine, game, spec.sampling, seed, role="player", persona=persona)
