"""The study's database under faults: a write that fails (full disk, I/O error) never loses an
acknowledged event, and a damaged, locked or read-only database is one line at start.

Write failures come two ways: a connection wrapper whose writes raise once armed (the exact
moment is chosen) and a real file-size limit (``RLIMIT_FSIZE``) in a subprocess, where SQLite
itself fails to grow its write-ahead log, as on a full disk."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.server.admin import admin_state
from collabrl.study.spec.forms import FormError
from tests.study.helpers import ADMIN, runtime, study_app

ROOT = Path(__file__).resolve().parents[2]
STEPS = (
    {"node": "consent", "agree": True},
    {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 3}},
    {"node": "instructions"},
)
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT")


class FailingWrites:
    """A StudyDB connection whose writes raise ``disk I/O error`` once ``armed`` (reads work)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.armed, self.refused = conn, False, 0

    def execute(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        if self.armed and sql.lstrip().split()[0].upper() in WRITES:
            self.refused += 1
            raise sqlite3.OperationalError("disk I/O error")
        return self.conn.execute(sql, args)

    def __getattr__(self, name: str):
        return getattr(self.conn, name)


def failing(rt: StudyRuntime) -> FailingWrites:
    wrapper = FailingWrites(rt.db._conn)
    rt.db._conn = wrapper  # type: ignore[assignment]
    return wrapper


def decisions(rt: StudyRuntime) -> list[tuple[int, str, str]]:
    return [
        (e["data"]["tick"], e["data"]["action"], e["data"]["message"])
        for e in rt.db.events("decision")
    ]


def test_a_decision_that_cannot_be_saved_is_refused_and_pauses_the_round(tmp_path) -> None:
    """Over the sockets: every decision the page saw taken is in the database; the one whose
    write failed gets an error frame, is not applied (the tick and the chat stay), and the round
    is paused (a later decision is refused too); the admin state shows the fault."""
    from starlette.testclient import TestClient

    app = study_app(tmp_path, "paper_user_study_cpu", "game.max_ticks=60")
    rt = app.state.runtime
    acked: list[tuple[int, str, str]] = []
    with TestClient(app) as client:
        me = client.post(f"/api/join?key={app.state.join_key}").json()
        pid = me["participant"]
        with client.websocket_connect(me["socket"]):
            for step in STEPS:
                run_coroutine_in(client, rt.submit(pid, step))
            session = rt.group_of(pid).session
            with client.websocket_connect(f"/ws/{session.sid}/Alice?token={me['token']}") as ws:
                state, sent = ws.receive_json(), None
                while True:  # a decision is acknowledged by the next observation after it
                    if state["your_turn"]:
                        obs = state["observation"]
                        if sent is not None and obs["tick"] > sent[0]:
                            acked.append(sent)
                            sent = None
                        if len(acked) == 4:
                            break
                        if sent is None:
                            sent = (obs["tick"], obs["actions"][-1]["action"], f"at {obs['tick']}")
                            ws.send_json({"type": "decide", "action": sent[1], "message": sent[2]})
                    state = ws.receive_json()
                writes = failing(rt)
                writes.armed = True
                obs = state["observation"]
                assert state["your_turn"]
                tick, chat = obs["tick"], session.view("Alice")["chat"]
                lost = (tick, obs["actions"][-1]["action"], "never stored")
                ws.send_json({"type": "decide", "action": lost[1], "message": lost[2]})
                refused = ws.receive_json()
                assert refused["type"] == "error" and refused["code"] == "refused"
                assert "not saved" in refused["message"] and "paused" in refused["message"]
                writes.armed = False  # the disk has room again: the round stays paused
                ws.send_json({"type": "decide", "action": lost[1], "message": lost[2]})
                again = ws.receive_json()
                assert again["type"] == "error" and "paused" in again["message"]
                assert session.game.tick == tick and session.seats["Alice"].obs.tick == tick
                assert [m["text"] for m in session.view("Alice", 0)["chat"]] == [
                    m["text"] for m in chat
                ]
                admin = client.get(f"/admin/api/state?token={ADMIN}").json()
    stored = decisions(rt)
    assert stored == acked and lost not in stored
    assert "never stored" not in {e["data"]["text"] for e in rt.db.events("message")}
    storage = admin["storage"]
    assert "disk I/O error" in storage["fault"] and storage["failed_writes"] >= 1
    assert storage["paused_groups"] == [rt.people[pid]["gid"]]
    assert [g["paused"] for g in admin["groups"]] == [True]


def run_coroutine_in(client, coro):
    """Run ``coro`` on the test client's event loop (the app's), as a page submission would."""
    return client.portal.call(lambda: coro)


def test_a_page_answer_that_cannot_be_saved_is_refused_and_pauses_the_participant(
    tmp_path,
) -> None:
    async def scenario():
        rt = runtime(tmp_path, "paper_user_study_cpu")
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, STEPS[0])
        writes = failing(rt)
        writes.armed = True
        with pytest.raises(FormError, match="not saved") as refused:
            await rt.submit(pid, STEPS[1])
        writes.armed = False
        with pytest.raises(FormError, match="paused"):
            await rt.submit(pid, STEPS[1])
        state = admin_state(rt)
        rt.shutdown()
        return rt, pid, refused.value, state

    rt, pid, refused, state = run_coroutine(scenario())
    assert getattr(refused, "code", None) == "storage"
    assert rt.node(pid) == "intake" and rt.db.events("answers") == []
    assert state["storage"]["paused_participants"] == [pid]


CHILD = r"""
import asyncio, json, resource, signal, sys
from pathlib import Path
from collabrl.web.session import DecisionError
from tests.study.helpers import runtime
from tests.study.test_storage import STEPS

async def main(folder, mode):
    rt = runtime(folder, "paper_user_study_cpu", "game.max_ticks=200")
    await rt.recover()
    pid, _ = await rt.join()
    for step in STEPS:
        await rt.submit(pid, step)
    session = rt.group_of(pid).session
    rt.db._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log starts empty: it must grow
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    wal = Path(str(rt.db.path) + "-wal")
    if mode == "fixed":  # the disk fills at some write, whichever it is
        resource.setrlimit(resource.RLIMIT_FSIZE, (48 * 1024, resource.RLIM_INFINITY))
    acked, refused = [], None
    while refused is None and not session.done:
        if mode == "tight" and len(acked) == 3:  # full just before this decision is written
            resource.setrlimit(resource.RLIMIT_FSIZE, (wal.stat().st_size, resource.RLIM_INFINITY))
        obs = session.seats["Alice"].obs
        decision = [obs.tick, obs.actions[0], ""]  # a move, no message: one write each
        try:
            await rt.decide(pid, decision[1], decision[2])
        except DecisionError as exc:
            refused = {"decision": decision, "message": str(exc), "tick": session.game.tick}
        else:
            acked.append(decision)
    turns = [[t["tick"], t["action"]] for t in session.turns if t["seat"] == "Alice"]
    print(json.dumps({"acked": acked, "refused": refused, "turns": turns}))
    rt.shutdown()

asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["tight", "fixed"])
def test_a_full_disk_loses_no_acknowledged_decision(tmp_path, mode: str) -> None:
    """A real file-size limit: SQLite cannot grow its log, as on a full disk. ``tight``: the
    disk is full when the fourth decision is written (it is refused unapplied); ``fixed``: it
    fills at whatever write reaches 48 KiB of log."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    refused = seen["refused"]
    assert seen["acked"] and refused is not None, "the limit was never reached"
    rt = runtime(tmp_path, "paper_user_study_cpu", "game.max_ticks=200")
    stored = [[tick, action, message] for tick, action, message in decisions(rt)]
    assert [[t, a] for t, a, _ in stored] == seen["turns"]  # applied = stored, nothing else
    if mode == "tight":
        assert "not saved" in refused["message"], refused
    if "not saved" in refused["message"]:  # its own write failed: refused unapplied
        assert stored == seen["acked"] and refused["tick"] == refused["decision"][0]
    else:  # a later write of its move failed (an agent's message): it was stored first
        assert "was saved" in refused["message"], refused
        assert stored == [*seen["acked"], refused["decision"]]


# --- a damaged, locked or read-only database at start ------------------------------------------


def study_db(tmp_path: Path) -> Path:
    """A study database with a little in it (closed), of the protocol :func:`cli` names."""
    rt = runtime(tmp_path, "paper_user_study_cpu", f"output_dir={tmp_path}")
    for i in range(300):
        rt.db.event("note", text="x" * 200, i=i)
    rt.db.close()
    return tmp_path / "study.sqlite"


@pytest.fixture
def never_serves(monkeypatch):
    """A serve that got past its checks fails the test instead of serving forever."""
    pytest.importorskip("starlette")
    import collabrl.web.server

    def serving(*args, **kwargs):
        raise AssertionError("the server started on a database it should have refused")

    monkeypatch.setattr(collabrl.web.server, "run_foreground", serving)


def cli(capsys, *args: str) -> str:
    """Run ``collabrl study ...``: it must fail with one ``error:`` line (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        main(["study", *args])
    err = capsys.readouterr().err.strip()
    assert exited.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and "Traceback" not in err
    return err


def serve_and_export(capsys, path: Path, output: Path) -> list[str]:
    study = ("paper_user_study_cpu", f"output_dir={output}")
    return [
        cli(capsys, "serve", *study, "--db", str(path), "--port", "1"),
        cli(capsys, "export", *study, "--db", str(path), "--out", str(output / "x")),
    ]


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        ("random", "is not a study database"),
        ("truncated", "is damaged"),
        ("corrupted", "is damaged"),
    ],
)
def test_a_damaged_database_is_one_line(
    tmp_path, capsys, never_serves, damage: str, says: str
) -> None:
    path = study_db(tmp_path)
    data = path.read_bytes()
    if damage == "random":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:  # one page in the middle overwritten
        middle = len(data) // 4096 // 2 * 4096
        path.write_bytes(data[:middle] + os.urandom(4096) + data[middle + 4096 :])
    for line in serve_and_export(capsys, path, tmp_path):
        assert str(path) in line and says in line, line


@pytest.mark.slow  # waits out the database busy timeout twice
def test_a_locked_database_is_one_line(tmp_path, capsys, never_serves) -> None:
    path = study_db(tmp_path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO meta VALUES ('held', 'by another program')")
    try:
        for line in serve_and_export(capsys, path, tmp_path):
            assert str(path) in line and "is locked" in line, line
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.mark.slow  # waits out the database busy timeout
def test_serve_refuses_a_database_another_program_is_writing(
    tmp_path, capsys, never_serves
) -> None:
    """A writer holding the database (another server): serve says so; an export, which only
    reads, still works beside it (the write-ahead log lets readers in)."""
    path = study_db(tmp_path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        study = ("paper_user_study_cpu", f"output_dir={tmp_path}")
        line = cli(capsys, "serve", *study, "--db", str(path), "--port", "1")
        assert str(path) in line and "is locked" in line, line
        main(["study", "export", *study, "--db", str(path), "--out", str(tmp_path / "x")])
        assert "exported 0 participants" in capsys.readouterr().out
        assert (tmp_path / "x" / "events.jsonl").is_file()
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root writes to a read-only file anyway (chmod does not stop it)",
)
def test_a_read_only_database_is_one_line(tmp_path, capsys, never_serves) -> None:
    path = study_db(tmp_path)
    path.chmod(0o444)
    study = ("paper_user_study_cpu", f"output_dir={tmp_path}")
    line = cli(capsys, "serve", *study, "--db", str(path), "--port", "1")
    assert str(path) in line and "read-only" in line, line


def test_each_sqlite_problem_has_its_own_advice(tmp_path) -> None:
    """The words for each failure SQLite reports (read-only too, which root cannot produce)."""
    from collabrl.study.store.db import database_problem

    path = tmp_path / "study.sqlite"
    cases = {
        "file is not a database": "is not a study database",
        "database disk image is malformed": "is damaged",
        "attempt to write a readonly database": "is read-only",
        "database is locked": "is locked",
        "unable to open database file": "cannot be opened",
    }
    for message, says in cases.items():
        problem = str(database_problem(path, sqlite3.OperationalError(message)))
        assert str(path) in problem and says in problem and "\n" not in problem, problem
