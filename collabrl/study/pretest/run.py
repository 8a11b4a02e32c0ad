"""In-silico pretests: the study file run with simulated participants in the human seats.

Each simulated participant is a client of the same :class:`StudyRuntime` a browser talks to
through the web app: it joins, reads its page, consents, fills the intake survey, waits in the
pool, plays its seat with a persona-scripted or LLM player of a profile drawn for its task, and
rates every round with the answer model. The database and the export are those of a live study,
so a pilot's data can be checked with the same analysis before anyone is recruited.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from tqdm import tqdm

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.persona.temperament import stable_seed
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.errors import CollabrlError
from collabrl.profiles import Profile
from collabrl.study.live.players import simulated_player, task_profiles
from collabrl.study.live.rounds import GroupRun
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.answers import AnswerModel, round_facts
from collabrl.study.pretest.rooms import act_in_room
from collabrl.study.results.checks_export import check_counts
from collabrl.study.results.design_export import cell_counts
from collabrl.study.spec.compile import CompiledStudy
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.schema import Study, SurveyPage
from collabrl.study.store.db import StudyDB, open_database
from collabrl.web.session import DecisionError, Session

MAX_REFUSALS = 3
"""Times in a row one page may refuse a simulated participant's answers before the pretest stops
(a page that refuses every answer traps live participants too)."""


SIMULATED_TEXT = "simulated answer"
"""A simulated participant's free text (cut to the question's ``max_chars``): never empty, so a
required text question lets it through as it lets a live participant who writes something."""


def retries(study: Study) -> int:
    """Every retry the study's pages allow (each may walk the pages once more)."""
    return sum(p.retry.at_most for p in study.pages if isinstance(p, SurveyPage) and p.retry)


class PretestStuck(CollabrlError):
    """A simulated participant that cannot get through the study (the pretest stops, naming it)."""


def survey_answer(
    question: dict[str, Any], rng: random.Random, components: dict[str, Any] | None = None
) -> Any:
    """A valid answer to an intake question (the pretest checks the flow, not the survey); a
    custom component's own class draws its answer."""
    if question["kind"] == "component":
        return (components or {})[question["component"]].sample(rng, question["config"])
    if question["kind"] == "likert":
        return rng.randint(1, question["points"])
    if question["kind"] == "choice":
        return rng.choice(question["options"])
    if question["kind"] == "number":
        low = question["min"] if question["min"] is not None else 0
        high = question["max"] if question["max"] is not None else low + 10
        return rng.randint(int(low), int(high))
    return SIMULATED_TEXT[: question["max_chars"]]


class SimulatedParticipant:
    """One simulated participant, driving the runtime through its public calls."""

    def __init__(self, rt: StudyRuntime, answers: AnswerModel | None, index: int) -> None:
        self.rt, self.answers, self.index = rt, answers, index
        self.rng = random.Random(stable_seed(rt.study.seed, "participant", index))
        self.pid = ""
        self.profile: Profile | None = None
        self.player: Player | None = None
        self.sid = ""  # the session self.player plays
        self.rooms: dict[str, Any] = {}  # what it did in each chat room and document

    async def run(self) -> None:
        """Go through the study; raises PretestStuck where a live participant would be stuck:
        a page that refuses every answer, or more pages than a path has whose only loops are
        bounded retries."""
        self.pid, _ = await self.rt.join(kind="simulated")
        walked: list[str] = []
        most = (2 + retries(self.rt.study)) * len(self.rt.flow.nodes()) + 10
        refused = 0
        while True:
            seen = self.rt.notifier.version(self.pid)
            view = self.rt.view(self.pid)
            if view["status"] != "active":
                return
            node = view["node"]
            if not walked or walked[-1] != node:
                walked.append(node)
                refused = 0
            if len(walked) > most:
                raise PretestStuck(
                    f"pretest: simulated participant {self.index} went through {len(walked)} "
                    f"pages without reaching an end page (... {' -> '.join(walked[-6:])}): a "
                    "loop that live participants would be caught in too"
                )
            problem = await self.act(view)
            if problem is None:
                await self.rt.wait(self.pid, seen)
                continue
            if self.rt.node(self.pid) != node or not self.rt.is_active(self.pid):
                continue  # the page moved on meanwhile: the next view says what to do
            refused += 1
            if refused >= MAX_REFUSALS:
                raise PretestStuck(
                    f"pretest: simulated participant {self.index} is stuck at page {node}: it "
                    f"refused {refused} answers in a row ({problem}); live participants would "
                    "be stuck there too"
                )

    async def act(self, view: dict[str, Any]) -> str | None:
        """Do what the page asks; the reason when the page refused it (None: taken, or a
        decision that came too late)."""
        kind, node = view["kind"], view["node"]
        try:
            if kind == "text":
                await self.rt.submit(self.pid, {"node": node})
            elif kind == "consent":
                await self.rt.submit(self.pid, {"node": node, "agree": True})
            elif kind == "survey":
                components = self.rt.compiled.components
                answers = {
                    q["id"]: survey_answer(q, self.rng, components) for q in view["questions"]
                }
                await self.rt.submit(self.pid, {"node": node, "answers": answers})
            elif kind == "embed":  # a sandboxed component: the simulated participant goes on
                await self.rt.submit(self.pid, {"node": node, "op": "done"})
            elif view.get("room"):
                await act_in_room(self.rt, self.pid, view, self.index, self.rooms)
            elif kind == "conditions" and view["phase"] == "play":
                await self.play()
            elif kind == "conditions" and view["phase"] == "rate":
                await self.rt.submit(self.pid, {"node": node, **self.rate()})
        except FormError as exc:
            return str(exc)
        except DecisionError:
            pass  # the round moved on meanwhile: the next view says what to do
        return None

    def _round(self) -> tuple[GroupRun, Session, str]:
        """This participant's group, its session and their seat in it: called only while the
        page shows a round being played or rated, which has all three."""
        group, seat = self.rt.group_of(self.pid), self.rt.people[self.pid]["seat"]
        assert group is not None and group.session is not None and seat is not None
        return group, group.session, seat

    def _seat_player(self) -> Player:
        """This participant's player for the current round (a fresh one each round)."""
        group, session, seat = self._round()
        if self.player is None or self.sid != session.sid:
            spec, study = self.rt.study.pretest.participants, self.rt.study
            if self.profile is None and spec.kind != "expert":
                profiles = task_profiles(spec, study.played_game.name, group.row["task"])
                slot = group.row["unit"] * len(
                    study.game_seats.humans
                ) + study.game_seats.humans.index(seat)
                self.profile = profiles[slot % len(profiles)]
                self.rt.describe(self.pid, profile=self.profile.id)
            self.player = simulated_player(
                spec, self.profile, group.section(), session.game, session.seed, self.rt.engines
            )
            self.player.reset(seat, session.seed)
            self.sid = session.sid
        return self.player

    async def play(self) -> None:
        _, session, seat = self._round()
        if session.done or seat not in session.waiting_for():
            return
        obs = session.seats[seat].obs
        assert obs is not None  # the session waits for this seat
        player = self._seat_player()
        if isinstance(player, LLMPlayer):
            response = await asyncio.to_thread(player.act, obs)
        else:
            response = player.act(obs)
        parsed = parse_observed(response, obs)
        await self.rt.decide(self.pid, parsed.action or "", parsed.message)

    def rate(self) -> dict[str, Any]:
        study = self.rt.study
        group = self.rt.group_of(self.pid)
        assert group is not None and study.questionnaire is not None  # a round is being rated
        if self.rt.rooms.is_room_round(group, group.position):  # no episode: uniform ratings
            items = study.questionnaire.items
            return {
                "ratings": {i.id: self.rng.randint(1, i.points) for i in items},
                "free_text": "",
            }
        assert self.answers is not None  # built for every study with a questionnaire
        group, session, seat = self._round()
        record = self.rt.db.episode(group.gid, group.position)
        assert record is not None  # saved with the move to the questionnaire
        efficiency = group.section().efficiency(record["summary"])
        facts = round_facts(
            record, efficiency, seat, study.game_seats.agents, session.game.message_action
        )
        ratings = self.answers.answer(
            facts,
            self.profile,
            record,
            group.condition().name,
            session.game.message_action,
            f"{study.seed}:{self.index}:{group.position}",
        )
        return {"ratings": ratings, "free_text": ""}


async def _run(compiled: CompiledStudy, db: StudyDB, participants: int, progress: bool) -> dict:
    rt = StudyRuntime(compiled, db)
    await rt.recover()
    questionnaire = compiled.study.questionnaire
    answers = (
        AnswerModel(compiled.study.pretest.answers, questionnaire, rt.engines)
        if questionnaire is not None
        else None
    )
    clients = [SimulatedParticipant(rt, answers, i) for i in range(participants)]
    bar = tqdm(total=participants, desc="simulated participants", disable=not progress)

    async def one(client: SimulatedParticipant) -> None:
        await client.run()
        bar.update(1)

    try:
        await asyncio.gather(*(one(c) for c in clients))
    finally:
        bar.close()
        rt.shutdown()
    fallbacks = answers.fallbacks if answers is not None else 0
    return {
        "participants": participants,
        "answer_fallbacks": fallbacks,
        "assignments": cell_counts(rt.db),
        "checks": check_counts(rt.db),
    }


def run_pretest(compiled: CompiledStudy, db_path: Path, participants: int, progress: bool = True):
    """Run ``participants`` simulated participants through the study into ``db_path``."""
    db = open_database(compiled.loaded, db_path, durable=False)
    try:
        return run_coroutine(_run(compiled, db, participants, progress))
    finally:
        db.close()
