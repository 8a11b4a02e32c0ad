"""The runtime without a web server: resume by replay after a restart, matchmaking timeouts,
idle participants, each on SQLite and on PostgreSQL (``db_location``). Timeouts are set to a
few milliseconds and the tests wait on the participant's page changing, never on a clock."""

from __future__ import annotations

import asyncio

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.store.db import open_database
from tests.study.helpers import SHORT, compiled, runtime

STEPS = (
    {"node": "consent", "agree": True},
    {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 3}},
    {"node": "instructions"},
)


async def until(rt: StudyRuntime, pid: str, done, timeout: float = 10.0) -> None:
    """Wait (on the participant's page changing) until ``done()`` holds."""

    async def loop() -> None:
        while not done():
            await rt.wait(pid, rt.notifier.version(pid))

    await asyncio.wait_for(loop(), timeout)


async def to_first_round(rt: StudyRuntime) -> str:
    await rt.recover()
    pid, _ = await rt.join()
    for step in STEPS:
        await rt.submit(pid, step)
    assert rt.node(pid) == "rounds.play1"
    return pid


def test_a_restart_replays_the_round_and_loses_no_event(tmp_path, db_location) -> None:
    async def before() -> tuple[str, int, list, int]:
        rt = runtime(tmp_path, "paper_user_study_cpu", db=db_location)
        pid = await to_first_round(rt)
        session = rt.group_of(pid).session
        for _ in range(4):
            obs = session.seats["Alice"].obs
            await rt.decide(pid, obs.actions[-1], "on my way")
        state = (
            pid,
            session.game.tick,
            [t["response"] for t in session.turns],
            rt.db.event_count(),
        )
        rt.shutdown()
        rt.db.close()
        return state

    async def after(pid: str) -> tuple[int, list, StudyRuntime]:
        study = compiled("paper_user_study_cpu")
        rt = StudyRuntime(study, open_database(study.loaded, db_location))
        await rt.recover()
        session = rt.group_of(pid).session
        return session.game.tick, [t["response"] for t in session.turns], rt

    pid, tick, turns, events = run_coroutine(before())
    tick2, turns2, rt = run_coroutine(after(pid))
    assert (tick2, turns2) == (tick, turns) and rt.node(pid) == "rounds.play1"
    kinds = [e["kind"] for e in rt.db.events()]
    assert len(kinds) == events + 2 and kinds[-2:] == ["episode_replayed", "server_start"]
    assert kinds.count("decision") == 4


def test_a_lonely_participant_gets_a_simulated_teammate(tmp_path, db_location) -> None:
    async def scenario() -> StudyRuntime:
        rt = runtime(
            tmp_path, "household_group_study", "pages.1.timeout_s=0.01", *SHORT, db=db_location
        )
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "consent", "agree": True})
        await until(rt, pid, lambda: rt.node(pid) == "rounds.play1")
        group = rt.group_of(pid)
        while not group.session.done:
            obs = group.session.seats["Alice"].obs
            if obs is not None:
                await rt.decide(pid, obs.actions[0], "")
            else:
                await rt.wait(pid, rt.notifier.version(pid))
        rt.shutdown()
        return rt

    rt = run_coroutine(scenario())
    (group,) = rt.db.groups()
    assert group["members"]["Bob"] is None and list(group["members"]) == ["Alice", "Bob"]
    assert [e["data"]["then"] for e in rt.db.events("match_timeout")] == ["simulate"]
    stand_in = [e for e in rt.db.events("decision") if e["data"]["by"] == "stand-in"]
    assert stand_in and {e["data"]["seat"] for e in stand_in} == {"Bob"}


def test_a_lonely_participant_is_released_when_the_study_says_so(tmp_path, db_location) -> None:
    async def scenario() -> tuple[StudyRuntime, str]:
        rt = runtime(
            tmp_path,
            "household_group_study",
            "pages.1.timeout_s=0.01",
            "pages.1.on_timeout=release",
            "pages.1.release_to=declined",
            db=db_location,
        )
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "consent", "agree": True})
        await until(rt, pid, lambda: not rt.is_active(pid))
        rt.shutdown()
        return rt, pid

    rt, pid = run_coroutine(scenario())
    assert rt.node(pid) == "declined" and rt.pool == [] and rt.db.groups() == []
    assert [e["data"]["reason"] for e in rt.db.events("released")] == ["match"]


def test_an_idle_decision_is_made_by_the_stand_in(tmp_path, db_location) -> None:
    async def scenario() -> tuple[StudyRuntime, str]:
        rt = runtime(tmp_path, "paper_user_study_cpu", "timers.idle_s=0.01", db=db_location)
        pid = await to_first_round(rt)
        await until(rt, pid, lambda: bool(rt.db.events("decision")))
        rt.shutdown()
        return rt, pid

    rt, pid = run_coroutine(scenario())
    (idle, *_) = rt.db.events("idle_timeout")
    assert idle["data"]["then"] == "substitute" and rt.is_active(pid)
    decisions = rt.db.events("decision")
    assert decisions[0]["data"]["by"] == "idle-substitute" and decisions[0]["pid"] == pid
