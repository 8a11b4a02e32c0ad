"""One session group's rounds: a web :class:`~collabrl.web.session.Session` per condition.

The group's human seats are decided through ``Session.decide`` whoever decides them: a person
in the browser, a simulated participant (pretests), or a stand-in (a seat nobody plays: a match
that timed out, a participant who went idle or was released). Every such decision is an event
with the tick it answered, so after a server restart the round is rebuilt by replaying them:
the game and the scripted agents are deterministic given the seed, and a replayed decision
that no longer fits (an LLM agent that sampled differently) restarts the round instead.

Write-ahead: a decision is checked, stored, and only then applied to the game, one at a time
per group; a decision the game still refuses is removed again. So every state a page is shown
follows from stored decisions, and a decision that cannot be stored is refused unapplied and
pauses the group (:meth:`GroupRun.pause`).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import sends_message
from collabrl.envs.registry import GameSection
from collabrl.factory import player_label
from collabrl.study.live.host import ReleaseReason, StudyHost
from collabrl.study.live.players import simulated_player, task_profiles
from collabrl.study.live.variables import StudyLogic
from collabrl.study.spec.schema import Condition
from collabrl.study.spec.tutorial import (
    PRACTICE,
    mark_practice,
    practice_condition,
    practice_names,
    practice_node,
    practice_section,
    practice_seed,
    practice_task,
    required_tutorial,
)
from collabrl.study.store.db import (
    NOT_SAVED,
    PAUSED,
    SAVED_THEN_PAUSED,
    GroupChange,
    GroupRow,
    Phase,
    StorageFault,
)
from collabrl.web.session import DecisionError, Session

if TYPE_CHECKING:
    from typing_extensions import Unpack


class RoundsHost(StudyHost, Protocol):
    """What a group's rounds need of the runtime: its state variables, and the calls that end a
    round or a participant's session."""

    @property
    def logic(self) -> StudyLogic: ...

    async def release(self, pid: str, reason: ReleaseReason, **waited: Any) -> None: ...

    def round_over(self, group: GroupRun) -> None: ...

    async def round_check(self, group: GroupRun) -> None: ...


class GroupRun:
    """The rounds of one group (a row of the ``groups`` table) and its current session."""

    def __init__(self, runtime: RoundsHost, row: GroupRow) -> None:
        self.rt, self.row = runtime, row
        self.session: Session | None = None
        self.stand_ins: dict[str, Player] = {}
        self.busy: set[str] = set()  # stand-in decisions in flight
        self.logged = 0  # turns of the session whose messages are already events
        self.rated: dict[int, set[str]] = {}
        self.deciding = asyncio.Lock()  # one decision at a time: checked, stored, applied
        self.paused: str | None = None  # the storage fault that stopped this group

    # --- what the group is ------------------------------------------------------------------

    @property
    def gid(self) -> str:
        return self.row["gid"]

    @property
    def position(self) -> int:
        return self.row["position"]

    @property
    def members(self) -> dict[str, str | None]:
        """Human seat -> participant id (None: a stand-in from the start)."""
        return self.row["members"]

    def condition(self, position: int | None = None) -> Condition:
        position = self.position if position is None else position
        if position == PRACTICE:
            return practice_condition(self.rt.study)
        return self.rt.study.condition(self.row["conditions"][position])

    def section(self, position: int | None = None) -> GameSection:
        """The game section of round ``position`` (default: the current one): the group's
        task, with the round's condition's game options."""
        if (self.position if position is None else position) == PRACTICE:
            return practice_section(self.rt.study)
        return self.rt.study.section(self.condition(position).id, self.row["task"])

    def seed(self, position: int) -> int:
        if position == PRACTICE:
            return practice_seed(self.rt.study, self.row["unit"])
        return self.rt.study.seed + self.row["unit"] * self.rt.flow.rounds + position

    def agent_names(self, position: int | None = None) -> dict[str, str]:
        """The names participants see for the agent seats in round ``position``."""
        if (self.position if position is None else position) == PRACTICE:
            return practice_names(self.rt.study)
        return self.rt.study.agent_names(self.condition(position).id)

    def active(self) -> list[str]:
        """Members still taking part (not released, not finished)."""
        return [pid for pid in self.members.values() if pid and self.rt.is_active(pid)]

    def stood_in(self, seat: str) -> bool:
        pid = self.members.get(seat)
        return pid is None or not self.rt.is_active(pid)

    def store(self, **fields: Unpack[GroupChange]) -> None:
        """Change the group's row in the database, and in memory once that is committed."""
        self.rt.db.update_group(self.gid, **fields)
        self.rt.db.after_commit(partial(self.row.update, fields))  # type: ignore[arg-type]

    def pause(self, fault: StorageFault) -> None:
        """Stop the group where the database has it: no decision, stand-in or idle timer
        changes it until the server restarts (and resumes from the database)."""
        if self.paused is None:
            self.paused = str(fault)
        for seat in self.members:
            self.rt.deadlines.cancel(("idle", self.gid, seat))

    def node(self, phase: Phase, position: int | None = None) -> str:
        k = (self.position if position is None else position) + 1
        if k == PRACTICE + 1:
            return practice_node(self.rt.flow.conditions_page.id)
        return f"{self.rt.flow.conditions_page.id}.{phase}{k}"

    # --- rounds -----------------------------------------------------------------------------

    def _build(self, position: int) -> Session:
        """A fresh session of round ``position`` (not started)."""
        section, condition = self.section(position), self.condition(position)
        game, seed = section.make_game(), self.seed(position)
        agents = {
            seat: self.rt.logic.agent(self, condition, section, game, seed)
            for seat in self.rt.study.game_seats.agents
        }
        public = {seat: "participant" for seat in self.rt.study.game_seats.humans}
        public.update({seat: condition.name for seat in agents})
        self.stand_ins, self.busy, self.logged = {}, set(), 0
        return Session(
            sid=f"{self.gid}-{position + 1}-{self.row['attempt']}",
            game=game,
            players=agents,
            humans=list(self.rt.study.game_seats.humans),
            seed=seed,
            kinds=public,
            on_finish=self._finished,
            names={**self.rt.study.game_seats.names, **self.agent_names(position)},
        )

    async def start(self, position: int) -> None:
        """Start round ``position``: a new session; the members' pages move to it."""
        self.store(position=position, phase="play", attempt=self.row["attempt"])
        self.session = self._build(position)
        name, fields = self._start_event()
        self.rt.db.event(name, **fields)
        await self.session.start()  # before any page can reach the session
        for pid in self.active():
            self.rt.move(pid, page=self.rt.flow.conditions_page.id, position=position, phase="play")
        self.after_change()

    async def resume(self) -> None:
        """Rebuild the running round after a restart by replaying its recorded decisions."""
        position, attempt = self.position, self.row["attempt"]
        decisions = [
            e["data"]
            for e in self.rt.db.events("decision", self.gid)
            if e["data"]["position"] == position and e["data"]["attempt"] == attempt
        ]
        self.session = self._build(position)
        await self.session.start()
        for decision in decisions:
            if not await self._replay(decision):
                self.rt.db.event(
                    "episode_restarted",
                    gid=self.gid,
                    node=self.node("play"),
                    position=position,
                    reason=f"replayed decision of {decision['seat']} at tick {decision['tick']} "
                    "no longer fits (an agent decided differently)",
                )
                self.row["attempt"] += 1
                await self.start(position)
                return
        self.logged = len(self.session.turns)
        self.rt.db.event(
            "episode_replayed",
            gid=self.gid,
            node=self.node("play"),
            position=position,
            decisions=len(decisions),
            tick=self.session.game.tick,
        )
        self.after_change()

    async def _replay(self, decision: dict[str, Any]) -> bool:
        """Apply one recorded decision again; False when it no longer fits the game (or the
        game refuses it: a decision whose removal after a refusal could not be stored)."""
        session = self.session
        assert session is not None  # resume builds it first
        obs = session.seats[decision["seat"]].obs
        if obs is None or obs.tick != decision["tick"] or session.done:
            return False
        try:
            await session.decide(decision["seat"], decision["action"], decision["message"])
        except DecisionError:
            return False
        return True

    def _start_event(self) -> tuple[str, dict[str, Any]]:
        """The event that starts the group's current round: ``practice_start`` for the practice."""
        study = self.rt.study
        fields: dict[str, Any] = {
            "gid": self.gid,
            "node": self.node("play"),
            "seed": self.seed(self.position),
            "attempt": self.row["attempt"],
        }
        if self.position != PRACTICE:
            return "episode_start", {
                **fields,
                "position": self.position,
                "condition": self.condition().id,
            }
        partner = practice_condition(study)
        return "practice_start", {
            **fields,
            "task": practice_task(study),
            "condition": required_tutorial(study).condition,
            "agent": player_label(partner.agent),
        }

    def _finished(self, session: Session) -> None:
        """The session's end-of-episode callback: record it, move the members to the
        questionnaire."""
        if session is not self.session:
            return
        self._log_messages(session)
        record = self.trajectory(session)
        if self.position == PRACTICE:
            self._practice_over(session, record)
            return
        summary = record["summary"]
        metric = type(self.section()).efficiency_metric
        with self.rt.db.batch():  # the episode, its event and the move to the questionnaire
            self.rt.db.save_episode(self.gid, self.position, record)
            self.rt.logic.round_done(self, record)
            self.rt.db.event(
                "episode_end",
                gid=self.gid,
                node=self.node("play"),
                position=self.position,
                condition=self.condition().id,
                success=summary.get("success"),
                **{metric: summary.get(metric)},
                ticks=session.game.tick,
            )
            self.store(phase="rate")
            self.rt.round_over(self)

    def _practice_over(self, session: Session, record: dict[str, Any]) -> None:
        """The practice episode ended: store it apart (at position :data:`PRACTICE`, with
        ``practice_end``), then the group starts its first real round (no questionnaire)."""
        rt = self.rt
        metric = type(practice_section(rt.study)).efficiency_metric
        summary = record["summary"]
        with rt.db.batch():
            rt.db.save_episode(self.gid, PRACTICE, record)
            rt.db.event(
                "practice_end",
                gid=self.gid,
                node=self.node("play"),
                success=summary.get("success"),
                **{metric: summary.get(metric)},
                ticks=session.game.tick,
            )
            self.store(phase="wait")
            for pid in self.active():
                rt.move(pid, phase="wait")
        rt.db.after_commit(lambda: rt.spawn(rt.round_check(self)))  # round 1 starts

    def trajectory(self, session: Session) -> dict[str, Any]:
        """The episode in the evaluation's trajectory schema, stamped with the study's facts."""
        record = session.record(None)
        condition = self.condition()
        labels = {seat: player_label(condition.player) for seat in self.rt.study.game_seats.agents}
        for seat, pid in self.members.items():
            labels[seat] = f"participant:{pid}" if pid else "stand-in"
        record["players"] = labels
        if condition.player.profile:  # the partner's profile, as collabrl serve records it
            from collabrl.profiles import get_profile

            partner = get_profile(condition.player.profile)
            record.update(profile=partner.id, player_type=partner.player_type)
        record["stamp"].update(
            source="study",
            study=self.rt.study.name,
            study_sha256=self.rt.loaded.sha256,
            group=self.gid,
            unit=self.row["unit"],
            position=self.position + 1,
            condition=condition.id,
            policy=player_label(condition.player),
            partners=", ".join(sorted(set(labels.values()))),
        )
        return mark_practice(record, self.rt.study) if self.position == PRACTICE else record

    # --- decisions --------------------------------------------------------------------------

    async def decide(
        self, seat: str, action: str, message: str, by: str, tick: object = None
    ) -> None:
        """One human-seat decision (on the observation of ``tick``, when given), written ahead:
        stored before the game takes it. Raises DecisionError when it cannot be taken, and when
        it cannot be stored (then it is not applied, and the group is paused)."""
        async with self.deciding:
            session = self._owed(seat, tick)
            seq = self._write_ahead(session, seat, action, message, by)
            try:
                await self.rt.db.synced()  # on disk before it is applied (and shown)
            except StorageFault as exc:
                self._retract(seq)
                raise self._paused_by(exc, NOT_SAVED) from exc
            try:
                await session.decide(seat, action, message, tick)
            except DecisionError:
                self._retract(seq)
                raise
            except StorageFault as exc:  # a later write of this move: the episode's end
                raise self._paused_by(exc, SAVED_THEN_PAUSED) from exc
            if session is self.session:
                try:
                    self.after_change()
                except StorageFault as exc:  # its messages: stored already, in the decision
                    raise self._paused_by(exc, SAVED_THEN_PAUSED) from exc

    def _owed(self, seat: str, tick: object) -> Session:
        """The session, if ``seat`` is owed the decision (on ``tick``'s observation): the
        checks that need no write come before the decision is stored."""
        session = self.session
        if self.paused is not None:
            raise DecisionError(PAUSED)
        if session is None:
            raise DecisionError("the round has not started")
        if seat in session.seats:
            session.check_tick(seat, tick)
        if seat not in session.waiting_for():
            raise DecisionError("it is not your turn" if not session.done else "episode is over")
        return session

    def _write_ahead(self, session: Session, seat: str, action: str, message: str, by: str) -> int:
        """Store the decision before it is applied; its event's sequence number."""
        obs = session.seats[seat].obs
        try:
            return self.rt.db.event(
                "decision",
                pid=self.members.get(seat),
                gid=self.gid,
                node=self.node("play"),
                seat=seat,
                tick=obs.tick if obs is not None else None,
                action=action,
                message=message,
                by=by,
                position=self.position,
                attempt=self.row["attempt"],
            )
        except StorageFault as exc:
            raise self._paused_by(exc, NOT_SAVED) from exc

    def _retract(self, seq: int) -> None:
        """Remove a stored decision the game refused; if even that cannot be stored, pause (a
        restart's replay then finds it does not fit and restarts the round)."""
        try:
            self.rt.db.retract(seq)
        except StorageFault as exc:
            self.pause(exc)

    def _paused_by(self, fault: StorageFault, words: str) -> DecisionError:
        """Pause the group for ``fault``; the refusal its participant is sent."""
        self.pause(fault)
        return DecisionError(words.format(what="decision"))

    def after_change(self) -> None:
        """After any move: log new messages, wake the members' pages, arm idle timers for
        participants owed a decision and let stand-ins decide theirs."""
        session = self.session
        if session is None or self.paused is not None:
            return
        self._log_messages(session)
        for pid in self.members.values():
            if pid:
                self.rt.notify(pid)
        owed = [] if session.done else session.waiting_for()
        for seat in self.members:
            key = ("idle", self.gid, seat)
            if seat not in owed:
                self.rt.deadlines.cancel(key)
            elif self.stood_in(seat):
                self.rt.deadlines.cancel(key)
                self._stand_in_soon(seat, "stand-in")
            elif self.rt.study.timers.idle_s and not self.rt.deadlines.armed(key):
                self.rt.deadlines.arm(key, self.rt.study.timers.idle_s, partial(self._idle, seat))

    def _log_messages(self, session: Session) -> None:
        """The messages of ``session`` (the group's current one) not yet recorded, as events."""
        for turn in session.turns[self.logged :]:
            if sends_message(turn["action"], turn["message"], session.game.message_action):
                self.rt.db.event(
                    "message",
                    pid=self.members.get(turn["seat"]),
                    gid=self.gid,
                    node=self.node("play"),
                    seat=turn["seat"],
                    tick=turn["tick"],
                    text=turn["message"],
                    by=turn["player"],
                )
        self.logged = len(session.turns)

    def _idle(self, seat: str) -> None:
        """A participant did not decide within ``timers.idle_s``."""
        session, timers = self.session, self.rt.study.timers
        if session is None or session.done or seat not in session.waiting_for() or self.paused:
            return
        pid = self.members[seat]
        assert pid is not None  # only a participant's seat has an idle timer
        try:
            self.rt.db.event(
                "idle_timeout",
                pid=pid,
                gid=self.gid,
                node=self.node("play"),
                seat=seat,
                idle_s=timers.idle_s,
                then=timers.on_idle,
            )
        except StorageFault as exc:
            self.pause(exc)
            return
        if timers.on_idle == "release":
            self.rt.spawn(self.rt.release(pid, "idle"))  # a stand-in takes the seat, if needed
        else:
            self._stand_in_soon(seat, "idle-substitute")

    def _stand_in_soon(self, seat: str, by: str) -> None:
        if seat not in self.busy:
            self.busy.add(seat)
            asyncio.get_running_loop().create_task(self._stand_in(seat, by))

    def stand_in(self, seat: str, session: Session) -> Player:
        """The stand-in of ``seat`` this round, playing ``session`` (a profile drawn for the task
        and group)."""
        if seat not in self.stand_ins:
            spec, study = self.rt.study.simulated, self.rt.study
            index = self.row["unit"] * len(study.game_seats.humans) + study.game_seats.humans.index(
                seat
            )
            profiles = (
                []
                if spec.kind == "expert"
                else task_profiles(spec, study.played_game.name, self.row["task"])
            )
            profile = profiles[index % len(profiles)] if profiles else None
            seed = self.seed(self.position)
            player = simulated_player(
                spec, profile, self.section(), session.game, seed, self.rt.engines
            )
            player.reset(seat, seed)
            self.stand_ins[seat] = player
        return self.stand_ins[seat]

    async def _stand_in(self, seat: str, by: str) -> None:
        """Decide ``seat`` with its stand-in while it is owed and nobody else plays it (one
        decision only for an idle substitute: the participant is still there)."""
        session = self.session
        try:
            while session is not None and session is self.session and not session.done:
                obs = session.seats[seat].obs
                if obs is None:
                    return
                player = self.stand_in(seat, session)
                if isinstance(player, LLMPlayer):
                    response = await asyncio.to_thread(player.act, obs)
                else:
                    response = player.act(obs)
                if session.seats[seat].obs is not obs:
                    return  # decided meanwhile (its participant came back)
                parsed = parse_observed(response, obs)
                await self.decide(seat, parsed.action or "", parsed.message, by)
                if by == "idle-substitute" or not self.stood_in(seat):
                    return
        except DecisionError:
            pass  # the round ended or the seat was decided meanwhile
        finally:
            self.busy.discard(seat)
