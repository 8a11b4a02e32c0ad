"""One session group's rounds: a web :class:`~collabrl.web.session.Session` per condition.

The group's human seats are decided through ``Session.decide`` whoever decides them: a person
in the browser, a simulated participant (pretests), or a stand-in (a seat nobody plays: a match
that timed out, a participant who went idle or was released). Every such decision is an event
with the tick it answered, so after a server restart the round is rebuilt by replaying them:
the game and the scripted agents are deterministic given the seed, and a replayed decision
that no longer fits (an LLM agent that sampled differently) restarts the round instead.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import sends_message
from collabrl.envs.registry import GameSection
from collabrl.factory import player_label
from collabrl.study.db import GroupRow, Phase
from collabrl.study.players import agent_player, simulated_player, task_profiles
from collabrl.study.schema import Condition
from collabrl.web.session import DecisionError, Session

if TYPE_CHECKING:
    from collabrl.study.runtime import StudyRuntime


class GroupRun:
    """The rounds of one group (a row of the ``groups`` table) and its current session."""

    def __init__(self, runtime: StudyRuntime, row: GroupRow) -> None:
        self.rt, self.row = runtime, row
        self.session: Session | None = None
        self.stand_ins: dict[str, Player] = {}
        self.busy: set[str] = set()  # stand-in decisions in flight
        self.logged = 0  # turns of the session whose messages are already events
        self.rated: dict[int, set[str]] = {}

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
        cid = self.row["conditions"][self.position if position is None else position]
        return self.rt.study.condition(cid)

    def section(self) -> GameSection:
        return self.rt.study.game.for_task(self.row["task"])

    def seed(self, position: int) -> int:
        return self.rt.study.seed + self.row["unit"] * self.rt.flow.rounds + position

    def active(self) -> list[str]:
        """Members still taking part (not released, not finished)."""
        return [pid for pid in self.members.values() if pid and self.rt.is_active(pid)]

    def stood_in(self, seat: str) -> bool:
        pid = self.members.get(seat)
        return pid is None or not self.rt.is_active(pid)

    def node(self, phase: Phase, position: int | None = None) -> str:
        k = (self.position if position is None else position) + 1
        return f"{self.rt.flow.conditions_page.id}.{phase}{k}"

    # --- rounds -----------------------------------------------------------------------------

    def _build(self, position: int) -> Session:
        """A fresh session of round ``position`` (not started)."""
        section, condition = self.section(), self.condition(position)
        game, seed = section.make_game(), self.seed(position)
        agents = {
            seat: agent_player(condition.agent, section, game, seed, self.rt.engines)
            for seat in self.rt.study.seats.agents
        }
        public = {seat: "participant" for seat in self.rt.study.seats.humans}
        public.update({seat: condition.name for seat in agents})
        self.stand_ins, self.busy, self.logged = {}, set(), 0
        return Session(
            sid=f"{self.gid}-{position + 1}-{self.row['attempt']}",
            game=game,
            players=agents,
            humans=list(self.rt.study.seats.humans),
            seed=seed,
            kinds=public,
            on_finish=self._finished,
        )

    async def start(self, position: int) -> None:
        """Start round ``position``: a new session; the members' pages move to it."""
        self.row["position"], self.row["phase"] = position, "play"
        self.rt.db.update_group(
            self.gid, position=position, phase="play", attempt=self.row["attempt"]
        )
        self.session = self._build(position)
        self.rt.db.event(
            "episode_start",
            gid=self.gid,
            node=self.node("play"),
            position=position,
            condition=self.condition().id,
            seed=self.seed(position),
            attempt=self.row["attempt"],
        )
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
            obs = self.session.seats[decision["seat"]].obs
            if obs is None or obs.tick != decision["tick"] or self.session.done:
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
            await self.session.decide(decision["seat"], decision["action"], decision["message"])
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

    def _finished(self, session: Session) -> None:
        """The session's end-of-episode callback: record it, move the members to the
        questionnaire."""
        if session is not self.session:
            return
        self._log_messages(session)
        record = self.trajectory(session)
        summary = record["summary"]
        metric = type(self.section()).efficiency_metric
        with self.rt.db.batch():  # the episode, its event and the move to the questionnaire
            self.rt.db.save_episode(self.gid, self.position, record)
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
            self.row["phase"] = "rate"
            self.rt.db.update_group(self.gid, phase="rate")
            self.rt.round_over(self)

    def trajectory(self, session: Session) -> dict[str, Any]:
        """The episode in the evaluation's trajectory schema, stamped with the study's facts."""
        record = session.record(None)
        condition = self.condition()
        labels = {seat: player_label(condition.agent) for seat in self.rt.study.seats.agents}
        for seat, pid in self.members.items():
            labels[seat] = f"participant:{pid}" if pid else "stand-in"
        record["players"] = labels
        if condition.agent.profile:  # the partner's profile, as collabrl serve records it
            from collabrl.profiles import get_profile

            partner = get_profile(condition.agent.profile)
            record.update(profile=partner.id, player_type=partner.player_type)
        record["stamp"].update(
            source="study",
            study=self.rt.study.name,
            study_sha256=self.rt.loaded.sha256,
            group=self.gid,
            unit=self.row["unit"],
            position=self.position + 1,
            condition=condition.id,
            policy=player_label(condition.agent),
            partners=", ".join(sorted(set(labels.values()))),
        )
        return record

    # --- decisions --------------------------------------------------------------------------

    async def decide(self, seat: str, action: str, message: str, by: str) -> None:
        """One human-seat decision (raises DecisionError when it cannot be taken), recorded."""
        session = self.session
        if session is None:
            raise DecisionError("the round has not started")
        obs = session.seats[seat].obs if seat in session.seats else None
        tick = obs.tick if obs is not None else None
        await session.decide(seat, action, message)
        self.rt.db.event(
            "decision",
            pid=self.members.get(seat),
            gid=self.gid,
            node=self.node("play"),
            seat=seat,
            tick=tick,
            action=action,
            message=message,
            by=by,
            position=self.position,
            attempt=self.row["attempt"],
        )
        if session is self.session:
            self.after_change()

    def after_change(self) -> None:
        """After any move: log new messages, wake the members' pages, arm idle timers for
        participants owed a decision and let stand-ins decide theirs."""
        session = self.session
        if session is None:
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
        if session is None or session.done or seat not in session.waiting_for():
            return
        pid = self.members[seat]
        assert pid is not None  # only a participant's seat has an idle timer
        self.rt.db.event(
            "idle_timeout",
            pid=pid,
            gid=self.gid,
            node=self.node("play"),
            seat=seat,
            idle_s=timers.idle_s,
            then=timers.on_idle,
        )
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
            index = self.row["unit"] * len(study.seats.humans) + study.seats.humans.index(seat)
            profiles = (
                []
                if spec.kind == "expert"
                else task_profiles(spec, study.game.name, self.row["task"])
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
