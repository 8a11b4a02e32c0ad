"""Several server processes over one database (serve --workers): matchmaking across workers
forms each group once, with no participant in two groups and none left waiting, on SQLite and
on PostgreSQL. Two workers run at once here, each on its own thread, event loop and database
connection, as two processes would."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.workers import Worker
from collabrl.study.store.db import open_database
from tests.study.helpers import SHORT, compiled

ARRIVALS = 11  # per worker: 22 in all, matched in pairs


def test_two_workers_group_22_arrivals_into_exactly_11_pairs(db_location) -> None:
    study = compiled("household_group_study", "pages.1.timeout_s=600", *SHORT)
    open_database(study.loaded, db_location).close()  # created and bound once, as serve does
    results: dict[int, tuple[list[str], dict[str, str]]] = {}
    errors: list[BaseException] = []

    async def serve(index: int) -> tuple[list[str], dict[str, str]]:
        db = open_database(study.loaded, db_location)
        rt = StudyRuntime(study, db)
        rt.worker = Worker(db, index, 2, f"http://worker{index}")
        await rt.recover()
        pids = [(await rt.join())[0] for _ in range(ARRIVALS)]
        consent = {"node": "consent", "agree": True}
        await asyncio.gather(*(rt.submit(pid, consent) for pid in pids))
        deadline = time.monotonic() + 30
        while not all(rt.people[p]["gid"] or p in rt.worker.gone for p in pids):
            assert time.monotonic() < deadline, "a participant was left waiting"
            await asyncio.sleep(0.05)
        rt.shutdown()
        gone = dict(rt.worker.gone)
        db.close()
        return pids, gone

    def thread(index: int) -> None:
        try:
            results[index] = asyncio.run(serve(index))
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    db = open_database(study.loaded, db_location, writing=False)
    groups = db.groups()
    members = [p for g in groups for p in g["members"].values() if p]
    joined = [p for pids, _ in results.values() for p in pids]
    assert len(groups) == 11 and sorted(members) == sorted(joined) and len(set(joined)) == 22
    assert sorted(g["unit"] for g in groups) == list(range(11))
    people, homes = {p["pid"]: p for p in db.participants()}, db.homes()
    for group in groups:  # both members served by the one worker that hosts the group
        (host,) = {homes[p] for p in group["members"].values() if p}
        assert all(people[p]["gid"] == group["gid"] for p in group["members"].values() if p)
    for index, (pids, gone) in results.items():  # who moved was told where to
        moved = {p for p in pids if homes[p] != index}
        assert set(gone) == moved and all(gone[p] == f"http://worker{1 - index}" for p in moved)
    assert len(db.events("group_formed")) == 11
    db.close()


def test_joins_are_spread_and_a_moved_participant_is_sent_to_their_worker(tmp_path) -> None:
    """At worker 0 of two: every second join is redirected to worker 1 (307: a POST stays
    one); a participant another worker now serves is redirected there (page) or told to go
    (socket, also one already open)."""
    from starlette.testclient import TestClient

    from collabrl.study.server.app import make_study_app
    from tests.study.helpers import ADMIN

    study = compiled("paper_user_study_cpu")
    db = open_database(study.loaded, tmp_path / "study.sqlite")
    db.register_worker(1, "http://worker1/study")
    rt = StudyRuntime(study, db)
    rt.worker = Worker(db, 0, 2, "http://testserver")
    app = make_study_app(rt, ADMIN)
    key = app.state.join_key
    with TestClient(app, follow_redirects=False) as client:
        me = client.post(f"/api/join?key={key}").json()  # worker 0's turn: taken here
        assert db.home(me["participant"]) == 0 and me["participant"] in rt.people
        spread = client.post(f"/api/join?key={key}&x=1")
        assert spread.status_code == 307
        assert spread.headers["location"] == f"http://worker1/study/api/join?key={key}&x=1"
        assert len(db.participants()) == 1  # nothing stored here for the redirected join
        with client.websocket_connect(me["socket"]) as ws:
            assert ws.receive_json()["type"] == "page"
            rt.worker.gone[me["participant"]] = "http://worker1/study"
            rt.notify(me["participant"])
            assert ws.receive_json() == {"type": "moved", "base": "http://worker1/study"}
        page = client.get(me["page"])
        assert page.status_code == 303
        assert page.headers["location"] == f"http://worker1/study/s?token={me['token']}"
        with client.websocket_connect(me["socket"]) as ws:
            assert ws.receive_json() == {"type": "moved", "base": "http://worker1/study"}
    db.close()


@pytest.mark.slow
def test_serve_workers_moves_a_waiting_participant_to_the_group_s_worker(tmp_path) -> None:
    """``collabrl study serve --workers 2`` as a lab runs it: two people join by the one link
    (spread over the two workers), the first waits, the second's worker forms the pair, and
    the first one's page is sent there and shows the round; Ctrl-C stops every worker."""
    import json
    import os
    import re
    import signal
    import subprocess
    import sys

    import httpx
    import websockets

    study = ("household_group_study", f"output_dir={tmp_path}", "game.max_ticks=6")
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "collabrl", "study", "serve", *study, "--workers", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "COLLABRL_ADMIN_TOKEN": "x" * 20},
            # Ctrl-C as at a terminal: a test run started in the background (`cmd &` in a script)
            # hands its children SIGINT ignored, and the server would never see it
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    link = re.compile(r"participant link: open (http://[^/\s]+)\S*/join\?key=(\S+)")
    try:
        deadline = time.monotonic() + 60
        while len(link.findall(log.read_text())) < 2:
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        text = log.read_text()
        base = re.search(r"admin page \(every worker's participants\): (http://[^/\s]+)", text)[1]
        (other,) = {url for url, _ in link.findall(text)} - {base}  # worker 0 spreads the joins
        key = link.findall(text)[0][1]
        for url in (base, other):  # each prints its link just before it listens
            while True:
                try:
                    httpx.get(f"{url}/join")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)

        async def person(delay: float) -> tuple[str, str, list[str]]:
            async with httpx.AsyncClient(follow_redirects=True) as http:
                joined = await http.post(f"{base}/api/join?key={key}")
            me, at = joined.json(), f"http://{joined.url.netloc.decode()}"
            seen: list[str] = []
            async with websockets.connect(at.replace("http", "ws") + me["socket"]) as ws:
                view = json.loads(await ws.recv())
                await asyncio.sleep(delay)
                await ws.send(json.dumps({"type": "submit", "node": view["node"], "agree": True}))
                while not seen or not seen[-1].startswith("rounds"):
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "moved":
                        seen.append(f"moved to {msg['base']}")
                        socket = msg["base"].replace("http", "ws") + me["socket"]
                        async with websockets.connect(socket) as there:
                            seen.append(json.loads(await there.recv())["node"])
                    else:
                        seen.append(msg["node"])
            return at, me["participant"], seen

        async def both():
            return await asyncio.wait_for(asyncio.gather(person(0.0), person(1.0)), 60)

        (first_at, first, first_saw), (second_at, second, second_saw) = asyncio.run(both())
    finally:
        server.send_signal(signal.SIGINT)
        try:  # graceful shutdown of two workers on a loaded 2-core CI machine can take a while
            server.wait(90)
        except subprocess.TimeoutExpired:
            server.kill()
            raise AssertionError(
                f"Ctrl-C did not stop the workers in 90 s:\n{log.read_text()}"
            ) from None
    assert first_at != second_at  # the joins went to the two workers
    assert first_saw == ["waiting", f"moved to {second_at}", "rounds.play1"], first_saw
    assert second_saw[-1] == "rounds.play1"
    db = open_database(compiled(*study).loaded, tmp_path / "study.sqlite", writing=False)
    (group,) = db.groups()
    assert set(group["members"].values()) == {first, second}
    assert db.homes()[first] == db.homes()[second]
    db.close()


def test_a_match_timeout_leaves_alone_whom_another_worker_grouped_first(
    tmp_path, monkeypatch
) -> None:
    """Worker 0's waiting participant times out just after worker 1 grouped them: the release
    and the grouping take the same lock, so they are sent to worker 1 (not released while in a
    group); a participant who is not on a match page is never grouped."""
    import pytest

    from collabrl.study.live.workers import Taken

    study = compiled(
        "household_group_study", "pages.1.on_timeout=release", "pages.1.release_to=done", *SHORT
    )
    path = tmp_path / "study.sqlite"
    consent = {"node": "consent", "agree": True}
    monkeypatch.setattr("collabrl.study.live.workers.WATCH_S", 3600.0)  # the race, not the watch

    async def run() -> None:
        here, there = await _two_workers(study, path)
        first = (await here.join())[0]
        await here.submit(first, consent)
        assert here.pool == [first]
        second = (await there.join())[0]
        await there.submit(second, consent)  # worker 1 forms the pair before worker 0 looks
        await here._match_timeout(first)
        assert here.pool == [] and here.worker.gone == {first: "http://worker1"}
        assert not here.db.events("released") and not here.db.events("match_timeout")
        (group,) = there.db.groups()
        assert sorted(p for p in group["members"].values() if p) == sorted([first, second])
        assert there.db.participant(first)["status"] == "active"

        third = (await there.join())[0]  # on the consent page, active and in no group
        with pytest.raises(Taken), there.db.batch():
            there.worker.claim(there, [third], "matched")
        _stop(here, there)

    asyncio.run(run())


async def _two_workers(study, path) -> tuple[StudyRuntime, StudyRuntime]:
    """Workers 0 and 1 of two over the database at ``path``, in this event loop."""
    workers = []
    for index in range(2):
        rt = StudyRuntime(study, open_database(study.loaded, path))
        rt.worker = Worker(rt.db, index, 2, f"http://worker{index}")
        await rt.recover()
        workers.append(rt)
    await asyncio.sleep(0)  # their watches start
    return workers[0], workers[1]


def _stop(*workers: StudyRuntime) -> None:
    for rt in workers:
        rt.shutdown()
        rt.db.close()


def test_each_worker_s_admin_page_shows_every_worker_s_participants(tmp_path) -> None:
    """The admin page of either worker lists the participants, pool and groups of both, with
    the worker that serves each; who is online is known to their own worker only."""
    from collabrl.study.server.admin import admin_state

    study = compiled("household_group_study", "pages.1.timeout_s=600", *SHORT)
    consent = {"node": "consent", "agree": True}

    async def run() -> None:
        here, there = await _two_workers(study, tmp_path / "study.sqlite")
        first = (await here.join())[0]
        await here.submit(first, consent)
        reader = (await there.join())[0]  # still on the consent page, at worker 1
        for rt in (here, there):
            state = admin_state(rt)
            people = {p["participant"]: p for p in state["participants"]}
            assert {p: (row["worker"], row["where"]) for p, row in people.items()} == {
                first: (0, "waiting"),
                reader: (1, "consent"),
            }
            mine, theirs = (first, reader) if rt is here else (reader, first)
            assert people[mine]["connected"] is False and people[theirs]["connected"] is None
            assert [(p["participant"], p["worker"]) for p in state["pool"]] == [(first, 0)]
            assert state["counts"]["joined"] == 2 and state["counts"]["active"] == 2
        second = (await there.join())[0]
        await there.submit(second, consent)  # worker 1 forms the pair
        for rt in (here, there):
            (group,) = admin_state(rt)["groups"]
            assert group["worker"] == 1 and group["round"] == 1
            assert admin_state(rt)["pool"] == []
        _stop(here, there)

    asyncio.run(run())


def test_a_study_without_a_match_page_forms_solo_groups_under_workers(tmp_path) -> None:
    """One person with an agent (no match page), served by worker 1 of two: arriving at the
    rounds forms their group alone and the first round starts (a claim that asked for a match
    page had left them in no group)."""
    study = compiled("paper_user_study_cpu", *SHORT)
    pages = [
        {"node": "consent", "agree": True},
        {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 4}},
        {"node": "instructions"},
    ]

    async def run() -> None:
        here, there = await _two_workers(study, tmp_path / "study.sqlite")
        pid = (await there.join())[0]
        for page in pages:
            await there.submit(pid, page)
        assert there.node(pid) == "rounds.play1"
        (group,) = there.db.groups()
        assert group["members"] == {"Alice": pid} and there.db.home(pid) == 1
        _stop(here, there)

    asyncio.run(run())
