"""The study as it runs: participants moving through the compiled pages, the waiting pool,
session groups and their rounds, timers. Transport-free: the web app, the pretest's simulated
participants and the load benchmark's clients all drive it through the same five calls
(:meth:`StudyRuntime.join`, :meth:`view`, :meth:`submit`, :meth:`decide`, :meth:`wait`), so a
pretest runs exactly the protocol a live session runs.

The database is the truth: every change is written (with its event) before anyone is told,
and :meth:`recover` rebuilds everything else after a restart. A write the database refuses
(:class:`~collabrl.study.store.db.StorageFault`: a full disk) rejects what caused it with an error to
that participant and pauses them and their group: nothing more is applied to either until the
researcher frees the disk and restarts the server, which resumes from what the database holds.
The admin page shows the fault and what is paused.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import Coroutine, Mapping
from contextlib import suppress
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from collabrl.errors import CollabrlError
from collabrl.factory import EngineCache
from collabrl.study.live.embeds import embed_submit, record_page_event
from collabrl.study.live.host import ReleaseReason
from collabrl.study.live.randomiser import Randomiser
from collabrl.study.live.rooms import ROOM_PAGES, RoomHub
from collabrl.study.live.rounds import GroupRun
from collabrl.study.live.signals import Deadlines, Notifier
from collabrl.study.live.variables import StudyLogic
from collabrl.study.live.views import page_view
from collabrl.study.live.workers import Taken, Worker
from collabrl.study.spec.compile import CompiledStudy
from collabrl.study.spec.forms import FormError, ratings, survey_answers
from collabrl.study.spec.payment import bonus_names, evaluate_bonus
from collabrl.study.spec.recruitment import PLATFORMS, exported_ids, id_hash, id_salt, link_ids
from collabrl.study.spec.schema import (
    ConditionsPage,
    ConsentPage,
    EmbedPage,
    EndPage,
    MatchPage,
    SurveyPage,
    TextPage,
)
from collabrl.study.spec.tutorial import PRACTICE, opening_position, practice_node
from collabrl.study.store.db import (
    NOT_SAVED,
    PAUSED,
    GroupRow,
    ParticipantChange,
    ParticipantRow,
    StorageFault,
    StudyDB,
    token_hash,
)
from collabrl.web.session import DecisionError, Session

if TYPE_CHECKING:
    from typing_extensions import Unpack

TIMED_PAGES = (TextPage, ConsentPage, SurveyPage)  # pages.page_s applies to these and ratings


class JoinRefused(CollabrlError):
    """A link the study does not take (no platform id, a participant who took part already):
    ``message`` is for the person who opened it, ``status`` the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class StoragePaused(FormError):
    """A page submission refused because the database could not store it (or the session is
    paused by such a fault); ``code`` tells programs it is not the participant's mistake."""

    code = "storage"


class StudyRuntime:
    """One study's live state over its database."""

    def __init__(self, compiled: CompiledStudy, db: StudyDB) -> None:
        self.compiled, self.loaded, self.study = compiled, compiled.loaded, compiled.study
        self.flow, self.db = compiled.flow, db
        self.engines = EngineCache(serialized=True)
        self.notifier, self.deadlines = Notifier(), Deadlines()
        self.people: dict[str, ParticipantRow] = {}
        self.groups: dict[str, GroupRun] = {}
        self.pool: list[str] = []  # waiting participants, oldest first
        self.waiting_since: dict[str, float] = {}
        self.connected: Counter[str] = Counter()
        self.lock = asyncio.Lock()  # pool and group formation
        self.tasks: set[asyncio.Task[None]] = set()
        self.paused: dict[str, str] = {}  # participant -> the storage fault that paused them
        self.platform = PLATFORMS[self.study.recruitment.platform]
        self.salt = id_salt(db.meta().get("id_salt", ""))
        self.payments: dict[str, dict[str, Any]] = {}  # participant -> their payment event
        self.rooms = RoomHub(self)  # chat rooms and shared documents
        self.logic = StudyLogic(self)  # state variables, when-branches, texts filled in
        self.randomiser = Randomiser(self)  # randomised designs without rounds
        self.worker: Worker | None = None  # one of several server processes (serve --workers)

    # --- start and stop ---------------------------------------------------------------------

    async def recover(self) -> None:
        """Load participants and groups, rebuild running rounds by replay, re-arm timers."""
        self.people = {row["pid"]: row for row in self.db.participants()}
        if self.worker is not None:  # the participants this process serves, and their groups
            homes, here = self.db.homes(), self.worker.index
            self.people = {p: r for p, r in self.people.items() if homes.get(p, 0) == here}
        self.payments = {e["pid"]: e["data"] for e in self.db.events("payment")}
        self.logic.recover()
        for group_row in self.db.groups():
            if self.worker is not None and not any(
                p in self.people for p in group_row["members"].values()
            ):
                continue  # another worker's group
            group = GroupRun(self, group_row)
            self.groups[group.gid] = group
            for event in self.db.events("questionnaire", group.gid):
                group.rated.setdefault(event["data"]["position"], set()).add(event["pid"])
        await self.rooms.recover()
        for pid, row in self.people.items():
            page = self.study.page(row["page"])
            if row["status"] != "active":
                continue
            if isinstance(page, MatchPage) and row["gid"] is None:
                self._wait_in_pool(pid)
            elif isinstance(page, TIMED_PAGES) or row["phase"] == "rate":
                self._arm_page_timer(pid)
        resumed = [
            g
            for g in self.groups.values()
            if g.row["phase"] == "play" and not self.rooms.is_room_round(g, g.position)
        ]
        for group in resumed:
            await group.resume()
        for group in self.groups.values():
            if group.row["phase"] in ("wait", "rate"):  # stopped between two steps of a round
                await self.round_check(group)
        self.db.event("server_start", resumed_rounds=len(resumed), participants=len(self.people))
        async with self.lock:
            await self._match()
        if self.worker is not None:
            self.spawn(self.worker.watch(self))

    def shutdown(self) -> None:
        self.deadlines.cancel_all()
        for task in self.tasks:
            task.cancel()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background (timer callbacks are synchronous)."""
        task = asyncio.get_running_loop().create_task(_unless_storage_fails(coro))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- storage faults ---------------------------------------------------------------------

    def pause(self, pid: str, fault: StorageFault) -> None:
        """Stop applying anything to ``pid`` and their group: a write of theirs failed, so the
        database (the truth a restart resumes from) may hold less than memory does."""
        self.paused.setdefault(pid, str(fault))
        self.deadlines.cancel(("page", pid))
        group = self.group_of(pid)
        if group is not None:
            group.pause(fault)

    def is_paused(self, pid: str) -> bool:
        group = self.group_of(pid)
        return pid in self.paused or (group is not None and group.paused is not None)

    def note(self, name: str, /, **fields: Any) -> None:
        """An event about a connection (connect, disconnect, page shown), not a state change:
        when it cannot be stored the fault is on the admin page, and the socket carries on."""
        with suppress(StorageFault):
            self.db.event(name, **fields)

    # --- the five calls ---------------------------------------------------------------------

    async def join(
        self, kind: str = "human", fields: dict[str, str] | None = None
    ) -> tuple[str, str]:
        """A participant from a link with query parameters ``fields``: a new one at the first page, or a returning
        platform id as ``recruitment.returning`` says: (participant id, token). Raises
        JoinRefused (what to tell them)."""
        query = fields or {}
        ids = link_ids(self.platform, query) if kind == "human" else {}
        recruitment = self.study.recruitment
        if (
            kind == "human"
            and self.platform.ids
            and recruitment.require_ids
            and not ids.get("participant")
        ):
            raise JoinRefused(
                f"this link lacks your {self.platform.label} id "
                f"({self.platform.ids['participant']}): please open the study from "
                f"{self.platform.label}"
            )
        token = secrets.token_urlsafe(18)
        hashed = id_hash(ids["participant"], self.salt) if ids.get("participant") else None
        earlier = self.db.participant_by_identity(hashed) if hashed else None
        if earlier is not None and recruitment.returning != "new":
            return self._returned(earlier, token)
        pid = f"p{secrets.token_hex(6)}"
        allowed = {k: str(v)[:200] for k, v in query.items() if k in self.study.privacy.url_fields}
        first, now = self.flow.first, time.time()
        row = ParticipantRow(
            pid=pid,
            token_hash=token_hash(token),
            kind=kind,
            profile=None,
            page=first,
            position=0,
            phase="",
            gid=None,
            seat=None,
            status="active",
            code=None,
            fields=allowed,
            created=now,
            updated=now,
        )
        kept = self.study.privacy.platform_ids
        with self.db.batch():
            self.db.add_participant(row)
            if hashed:
                self.db.add_identity(pid, hashed, {} if kept == "drop" else ids)
            if self.worker is not None:
                self.db.set_home(pid, self.worker.index)
            self.db.event(
                "join",
                pid=pid,
                node=first,
                kind=kind,
                fields=allowed,
                platform=exported_ids(ids if kept != "drop" else {}, kept, self.salt),
                returning_of=earlier,
            )
        self.people[pid] = row
        await self.enter(pid, first)
        return pid, token

    def _returned(self, pid: str, token: str) -> tuple[str, str]:
        """A platform id that joined before: resumed with a new token, or refused."""
        policy = self.study.recruitment.returning
        self.db.event("return", pid=pid, node=self.node(pid), policy=policy)
        if policy == "refuse":
            raise JoinRefused(
                "you have already taken part in this study (each person takes part once); "
                f"please return to {self.platform.label}",
                409,
            )
        with self.db.batch():
            self.db.replace_token(pid, token_hash(token))
        self.people[pid]["token_hash"] = token_hash(token)
        return pid, token

    def participant(self, token: str) -> str | None:
        """The participant id of ``token`` (None: no such participant)."""
        row = self.db.participant_by_token(token)
        return row["pid"] if row else None

    def view(self, pid: str) -> dict[str, Any]:
        """What the participant's page shows now."""
        return page_view(self, pid)

    async def wait(self, pid: str, seen: int) -> int:
        """Wait until the participant's page changes; the new version."""
        return await self.notifier.wait(pid, seen)

    async def submit(self, pid: str, payload: dict[str, Any]) -> None:
        """What a page sends: continue, consent, survey answers, ratings. Raises FormError
        (:class:`StoragePaused` when the database cannot store it: then nothing is shown as
        taken, and the participant is paused)."""
        row = self.people[pid]
        if row["status"] != "active":
            raise FormError("this session has ended")
        if self.is_paused(pid):
            raise StoragePaused(PAUSED)
        try:
            await self._submit(pid, row, payload)
        except StorageFault as exc:
            self.pause(pid, exc)
            raise StoragePaused(NOT_SAVED.format(what="answer")) from exc

    async def _submit(self, pid: str, row: ParticipantRow, payload: dict[str, Any]) -> None:
        """:meth:`submit` for an active participant: each answer is stored before the page
        moves on."""
        if payload.get("node") != self.node(pid):
            raise FormError("this page is out of date; it has been reloaded")
        page = self.study.page(row["page"])
        if isinstance(page, TextPage):
            await self.enter(pid, self.flow.successor(page.id))
        elif isinstance(page, ConsentPage):
            agree = payload.get("agree") is True
            self.db.event("consent", pid=pid, node=page.id, agree=agree)
            await self.enter(pid, self.flow.successor(page.id) if agree else page.decline_to)
        elif isinstance(page, SurveyPage):
            answers = survey_answers(
                page.questions, payload.get("answers"), self.compiled.components
            )
            self.db.event("answers", pid=pid, node=page.id, form=page.id, answers=answers)
            await self.enter(pid, self.logic.survey_done(pid, page, answers))
        elif isinstance(page, EmbedPage):
            await embed_submit(self, pid, page, payload)
        elif isinstance(page, ConditionsPage) and row["phase"] == "rate":
            await self._rate(pid, payload)
        elif self.rooms.current(pid) is not None:
            await self.rooms.submit(pid, payload)
        else:
            raise FormError("nothing to submit on this page")

    def record_page_event(self, pid: str, payload: dict[str, Any]) -> None:
        """A recorded-only event of the participant's page (a component's emit, a media
        event); raises FormError."""
        if self.people[pid]["status"] != "active":
            raise FormError("this session has ended")
        if payload.get("node") != self.node(pid):
            raise FormError("this page is out of date; it has been reloaded")
        record_page_event(self, pid, payload)

    async def decide(
        self, pid: str, action: str, message: str, sid: str | None = None, tick: object = None
    ) -> None:
        """A participant's game decision (``sid``: in that session only; ``tick``: on that
        observation only). Raises DecisionError, also when it cannot be stored (then it is not
        applied, and the round is paused)."""
        row = self.people[pid]
        group = self.groups.get(row["gid"] or "")
        if group is None or row["phase"] != "play" or row["status"] != "active":
            raise DecisionError("you are not in a game now")
        if sid is not None and (group.session is None or group.session.sid != sid):
            raise DecisionError("this round is over")
        assert row["seat"] is not None  # a group's member has a seat in it
        if pid in self.paused:
            raise DecisionError(PAUSED)
        await group.decide(row["seat"], action, message, "participant", tick)

    # --- where participants are -------------------------------------------------------------

    def node(self, pid: str) -> str:
        """The graph node the participant is at (``rounds.play2``, ``consent``, ...)."""
        return self.node_at(self.people[pid])

    def node_at(self, row: Mapping[str, Any]) -> str:
        """The graph node of a participant row (also one not yet committed)."""
        page = self.study.page(row["page"])
        if isinstance(page, ConditionsPage) and row["position"] == PRACTICE:
            return practice_node(page.id)
        if isinstance(page, ConditionsPage):
            phase = row["phase"] or "wait"
            return f"{page.id}.{phase}{row['position'] + 1}"
        return page.id

    def _store(self, pid: str, **fields: Unpack[ParticipantChange]) -> None:
        """Change the participant's row in the database, and in memory once that is committed
        (inside a batch: after its commit, so a refused write leaves memory as it was)."""
        self.db.update_participant(pid, **fields)
        self.db.after_commit(partial(self._remember, pid, dict(fields)))

    def _remember(self, pid: str, fields: dict[str, Any]) -> None:
        row = self.people[pid]
        row.update(fields)  # type: ignore[typeddict-item]
        row["updated"] = time.time()

    def describe(self, pid: str, **fields: Unpack[ParticipantChange]) -> None:
        """Facts about a participant that are not a move (a simulated participant's profile)."""
        self._store(pid, **fields)

    def is_active(self, pid: str) -> bool:
        return self.people[pid]["status"] == "active"

    def notify(self, pid: str) -> None:
        self.notifier.bump(pid)

    def move(self, pid: str, **fields: Unpack[ParticipantChange]) -> None:
        """Change the participant's row and log where they are now, together; their page is
        told once both are committed."""
        after: dict[str, Any] = {**self.people[pid], **fields}
        with self.db.batch():
            self._store(pid, **fields)
            self.db.event("page_enter", pid=pid, gid=after["gid"], node=self.node_at(after))
        self.db.after_commit(partial(self._moved, pid))

    def _moved(self, pid: str) -> None:
        if self.people[pid]["phase"] == "rate":
            self._arm_page_timer(pid)
        self.notify(pid)

    async def enter(self, pid: str, page_id: str) -> None:
        """Move the participant to page ``page_id`` and do what that page does on arrival."""
        self.put_on(pid, page_id)
        if self.people[pid]["status"] == "active":
            self.randomiser.arrive(pid, page_id)
        await self._arrive_on(pid, page_id)

    def put_on(self, pid: str, page_id: str) -> None:
        """The participant's row says they are on ``page_id`` (an end page: finished)."""
        page = self.study.page(page_id)
        self.deadlines.cancel(("page", pid))
        if isinstance(page, EndPage):
            self._finish(pid, page)
        else:
            self.move(pid, page=page_id, position=0, phase="")

    async def _arrive_on(self, pid: str, page_id: str) -> None:
        """What page ``page_id`` does when the participant arrives (after :meth:`put_on`)."""
        page = self.study.page(page_id)
        if isinstance(page, TIMED_PAGES):
            self._arm_page_timer(pid)
        elif isinstance(page, MatchPage):
            async with self.lock:
                self._wait_in_pool(pid)
                await self._match()
        elif isinstance(page, ConditionsPage):
            await self._arrive(pid)
        elif isinstance(page, ROOM_PAGES):
            await self.rooms.arrive(pid, page)

    def _finish(self, pid: str, page: EndPage) -> None:
        code, payment = None, None
        if page.outcome == "completed":
            completion = self.study.completion
            code = secrets.token_hex(4).upper() if completion.unique else completion.code
            payment = self._payment(pid)
        elif page.outcome == "screened_out":
            code = self.study.recruitment.screen_out_code
        with self.db.batch():
            self._store(pid, page=page.id, phase="", status=page.outcome, code=code)
            self.db.event("finished", pid=pid, node=page.id, outcome=page.outcome, code=code)
            if payment is not None:
                self.db.event("payment", pid=pid, node=page.id, **payment)
        if payment is not None:
            self.db.after_commit(partial(self.payments.__setitem__, pid, payment))
        self.db.after_commit(partial(self.notify, pid))

    def _payment(self, pid: str) -> dict[str, Any] | None:
        """What a completing participant is paid: the base fee and the bonus of their rounds
        and answers (an expression that fails for them gives 0, with the error recorded)."""
        pay = self.study.payment
        if pay is None:
            return None
        bonus, error = 0.0, None
        if pay.bonus:
            values = self.logic.values(pid)
            names = bonus_names(
                self._rounds_played(pid), self.logic.answers(pid), self.compiled.question_ids
            )
            names.update(state=values["state"], group=values["group"])
            try:
                bonus = evaluate_bonus(pay.bonus, names, pay.max_bonus)
            except ValueError as exc:
                error = str(exc)
        return {"base": pay.base, "bonus": bonus, "currency": pay.currency, "error": error}

    @cached_property
    def message_action(self) -> str:
        """The game's message action (a game is built once, when a bonus first needs it)."""
        return self.study.played_game.make_game().message_action

    def _rounds_played(self, pid: str) -> list[dict[str, Any]]:
        """The participant's finished rounds, in play order, as the bonus expression sees them."""
        from collabrl.study.results.export import round_facts

        group = self.group_of(pid)
        seat = self.people[pid]["seat"]
        if group is None or seat is None:
            return []
        rounds: list[dict[str, Any]] = []
        for position, cid in enumerate(group.row["conditions"]):
            if self.rooms.is_room_round(group, position):
                facts = self.rooms.round_facts(group, position, pid)
                if facts is not None:
                    rounds.append({**facts, "condition": cid})
                continue
            record = self.db.episode(group.gid, position)
            if record is not None:
                metric = type(self.study.played_game).efficiency_metric
                facts = round_facts(record, seat, metric, self.message_action)
                rounds.append({**facts, "condition": cid})
        return rounds

    async def release(self, pid: str, reason: ReleaseReason, **waited: Any) -> None:
        """End a participant's session (idle, page or match timeout): to ``release_to``.
        ``waited``: a match timeout's facts, recorded with the release."""
        if not self.is_active(pid) or self.is_paused(pid):
            return
        try:
            await self._release(pid, reason, waited)
        except StorageFault as exc:
            self.pause(pid, exc)

    async def _release(self, pid: str, reason: ReleaseReason, waited: dict[str, Any]) -> None:
        target = (
            self._waiting_room(pid).release_to
            if reason == "match"
            else self.study.timers.release_to
        )
        assert target is not None  # the schema requires release_to wherever a release can happen
        with self.db.batch():  # one transaction: another worker cannot group them meanwhile
            home = self.worker.grouped_by(pid) if self.worker and reason == "match" else None
            if home is None:
                if reason == "match":
                    self.db.event("match_timeout", pid=pid, node=self.node(pid), **waited)
                self.db.event(
                    "released",
                    pid=pid,
                    gid=self.people[pid]["gid"],
                    node=self.node(pid),
                    reason=reason,
                )
                self.put_on(pid, target)
        if self.worker and home is not None:
            self.worker.send_away(self, pid, home)  # they play there now
            return
        await self.released(pid, target)

    async def released(self, pid: str, target: str) -> None:
        """What follows a release once ``pid`` is recorded on end page ``target``: out of the
        pool, the end page's arrival, and a stand-in in their seat if a round is on."""
        if pid in self.pool:
            self.pool.remove(pid)
        await self._arrive_on(pid, target)
        group = self.groups.get(self.people[pid]["gid"] or "")
        if group is not None:
            await self.round_check(group)
            if group.session is not None:
                group.after_change()  # a stand-in takes the seat

    def _arm_page_timer(self, pid: str) -> None:
        seconds = self.study.timers.page_s
        if seconds:
            self.deadlines.arm(("page", pid), seconds, lambda: self._page_timeout(pid))

    def _page_timeout(self, pid: str) -> None:
        if self.is_paused(pid):
            return
        try:
            self.db.event(
                "page_timeout", pid=pid, node=self.node(pid), page_s=self.study.timers.page_s
            )
        except StorageFault as exc:
            self.pause(pid, exc)
            return
        self.spawn(self.release(pid, "page"))

    # --- matchmaking ------------------------------------------------------------------------

    def _waiting_room(self, pid: str) -> MatchPage:
        """The page of a participant in the pool (only a match page puts them there)."""
        page = self.study.page(self.people[pid]["page"])
        assert isinstance(page, MatchPage), f"{pid} waits in the pool on page {page.id}"
        return page

    def _wait_in_pool(self, pid: str) -> None:
        if pid not in self.pool:
            self.pool.append(pid)
            self.waiting_since[pid] = time.monotonic()
            self.db.event("match_join", pid=pid, node=self.node(pid), waiting=len(self.pool))

    async def _match(self) -> None:
        """Form groups while enough participants wait (call with ``self.lock``)."""
        humans = len(self.study.human_seats)
        if self.worker is not None:  # the pool of every server process
            await self.worker.match(self, humans)
        while self.worker is None and len(self.pool) >= humans:
            await self.form([self.pool.pop(0) for _ in range(humans)], "matched")
        self.arm_match_timer()

    def arm_match_timer(self) -> None:
        if not self.pool:
            self.deadlines.cancel(("match",))
            return
        oldest = self.pool[0]
        page = self._waiting_room(oldest)
        left = page.timeout_s - (time.monotonic() - self.waiting_since[oldest])
        self.deadlines.arm(
            ("match",), max(0.0, left), lambda: self.spawn(self._match_timeout(oldest))
        )

    async def _match_timeout(self, pid: str) -> None:
        async with self.lock:
            if not self.pool or self.pool[0] != pid:
                self.arm_match_timer()
                return
            page = self._waiting_room(pid)
            waited: dict[str, Any] = {
                "waited_s": round(time.monotonic() - self.waiting_since[pid], 3),
                "then": page.on_timeout,
            }
            if page.on_timeout == "simulate":
                self.db.event("match_timeout", pid=pid, node=page.id, **waited)
                humans = len(self.study.human_seats)
                members = [self.pool.pop(0) for _ in range(min(humans, len(self.pool)))]
                await self.form(members, "timeout")
                self.arm_match_timer()
                return
        await self.release(pid, "match", **waited)
        async with self.lock:
            self.arm_match_timer()

    async def form(self, pids: list[str], how: str) -> bool:
        """A new session group of ``pids`` (stand-ins in the seats left over), assigned the next
        unit's order and task; its members go on from the waiting room. False: not formed, as
        another server process grouped one of them first (serve --workers)."""
        try:
            with self.db.batch():
                if self.worker is not None:
                    pids = self.worker.claim(self, pids, how)
                row = self._group_row(pids, how)
        except Taken:
            return False
        self.groups[row["gid"]] = GroupRun(self, row)
        for pid in pids:
            page = self.study.page(self.people[pid]["page"])
            if isinstance(page, MatchPage):
                await self.enter(pid, self.flow.successor(page.id))
        return True

    def _group_row(self, pids: list[str], how: str) -> GroupRow:
        """Store a new group of ``pids`` and its members' seats (inside a batch)."""
        unit = self.db.next_unit()
        assignment = self.compiled.assigner(unit)
        seats = self.study.human_seats
        members = {seat: (pids[i] if i < len(pids) else None) for i, seat in enumerate(seats)}
        gid = f"g{unit:04d}"
        row = GroupRow(
            gid=gid,
            unit=unit,
            task=assignment.task,
            conditions=list(assignment.order),
            members=members,
            position=0,
            attempt=0,
            phase="wait",
            created=time.time(),
        )
        with self.db.batch():
            self.db.add_group(row)
            for seat, pid in members.items():
                if pid:
                    self._store(pid, gid=gid, seat=seat)
            self.db.event(
                "group_formed",
                gid=gid,
                how=how,
                unit=unit,
                order=assignment.order,
                task=assignment.task,
                members=members,
                waited_s={
                    p: round(time.monotonic() - self.waiting_since.pop(p, time.monotonic()), 3)
                    for p in pids
                },
            )
        return row

    # --- rounds -----------------------------------------------------------------------------

    async def _arrive(self, pid: str) -> None:
        """At the conditions page: a participant without a group forms one alone (one-person
        studies); the first round starts once every active member has arrived."""
        if self.people[pid]["gid"] is None:
            async with self.lock:
                await self.form([pid], "solo")
        await self.round_check(self._member_group(pid))

    async def round_check(self, group: GroupRun) -> None:
        """Start the next round, or send the group on, once every active member is ready."""
        conditions = self.flow.conditions_page.id
        active = group.active()
        phase = group.row["phase"]
        if not active:
            if phase not in ("done", "abandoned"):
                group.store(phase="abandoned")
                group.session = None
                self.db.event("group_abandoned", gid=group.gid, position=group.position)
            return
        ready = all(
            self.people[p]["page"] == conditions and self.people[p]["phase"] in ("", "wait")
            for p in active
        )
        if phase == "wait" and ready:
            await self._start_round(group, opening_position(self.study, group.position))
        elif phase == "rate" and set(active) <= group.rated.get(group.position, set()):
            if group.position + 1 < self.flow.rounds:
                await self._start_round(group, group.position + 1)
            else:
                group.store(phase="done")
                for p in active:
                    await self.enter(p, self.flow.successor(conditions))

    async def _start_round(self, group: GroupRun, position: int) -> None:
        """Round ``position`` of ``group``: a game episode, or a chat or document room."""
        if self.rooms.is_room_round(group, position):
            await self.rooms.start_round(group, position)
        else:
            await group.start(position)

    def round_over(self, group: GroupRun) -> None:
        """The round's episode ended: its active members rate it."""
        for pid in group.active():
            self.move(pid, phase="rate")

    async def _rate(self, pid: str, payload: dict[str, Any]) -> None:
        group = self._member_group(pid)
        assert self.study.questionnaire is not None  # compile: a conditions page needs one
        answers = ratings(
            self.study.questionnaire,
            payload.get("ratings"),
            payload.get("free_text"),
            group.condition().name,
        )
        position = group.position
        self.deadlines.cancel(("page", pid))
        self.db.event(
            "questionnaire",
            pid=pid,
            gid=group.gid,
            node=self.node(pid),
            position=position,
            condition=group.condition().id,
            **answers,
        )
        group.rated.setdefault(position, set()).add(pid)
        self.move(pid, phase="wait")
        await self.round_check(group)

    # --- lookups for the web app ------------------------------------------------------------

    def seat_session(self, pid: str, sid: str, seat: str) -> Session | None:
        """The session ``sid`` if the participant plays ``seat`` in it now (else None)."""
        row = self.people.get(pid)
        group = self.group_of(pid) if row is not None and row["seat"] == seat else None
        session = group.session if group is not None else None
        return session if session is not None and session.sid == sid else None

    def group_of(self, pid: str) -> GroupRun | None:
        return self.groups.get(self.people[pid]["gid"] or "")

    def _member_group(self, pid: str) -> GroupRun:
        """The group of a participant who has one (at the conditions page, after forming)."""
        group = self.group_of(pid)
        assert group is not None, f"{pid} is in no group"
        return group


async def _unless_storage_fails(coro: Coroutine[Any, Any, None]) -> None:
    """Run a background step (a timeout's consequences); a write it cannot make leaves the state
    as the database has it (the fault is on the admin page) instead of an unretrieved error."""
    with suppress(StorageFault):
        await coro
