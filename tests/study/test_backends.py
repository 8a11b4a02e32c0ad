"""The study database on both backends: the same tables through the same migrations, an old
SQLite study database upgraded in place, a PostgreSQL address whose password never shows, and
the storage calls the runtime makes, each on SQLite and on PostgreSQL (``db_location``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.errors import CollabrlError
from collabrl.study.store.backends import redact
from collabrl.study.store.db import StudyDB, open_database
from collabrl.study.store.migrations import LATEST
from tests.study.helpers import compiled

# the tables of the release before migrations: what an old study database holds
OLD_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE participants (
  pid TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL, kind TEXT NOT NULL, profile TEXT,
  page TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0, phase TEXT NOT NULL DEFAULT '',
  gid TEXT, seat TEXT, status TEXT NOT NULL, code TEXT, fields TEXT NOT NULL DEFAULT '{}',
  created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE groups (
  gid TEXT PRIMARY KEY, unit INTEGER UNIQUE NOT NULL, task TEXT NOT NULL, conditions TEXT NOT NULL,
  members TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0, attempt INTEGER NOT NULL DEFAULT 0,
  phase TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, kind TEXT NOT NULL, pid TEXT, gid TEXT,
  node TEXT, data TEXT NOT NULL);
CREATE TABLE episodes (
  gid TEXT NOT NULL, position INTEGER NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (gid, position));
"""


def versions(db: StudyDB) -> list[int]:
    return [r["version"] for r in db._read("SELECT version FROM schema_version ORDER BY version")]


def test_both_backends_hold_the_same_tables_through_the_same_migrations(db_location) -> None:
    db = StudyDB(db_location)
    assert versions(db) == list(range(1, LATEST + 1))
    db.close()
    again = StudyDB(db_location)  # opening again applies nothing twice
    assert versions(again) == list(range(1, LATEST + 1))
    again.close()


def test_the_storage_calls_work_alike_on_both(db_location) -> None:
    db = open_database(compiled("paper_user_study_cpu").loaded, db_location)
    first = db.event("note", pid="p1", text="é and ✓", t=0.5)
    with db.batch():
        second = db.event("note", pid="p1", gid="g1", text="two")
        db.event("other", gid="g1")
    assert second == first + 1 and db.event_count() == 3
    assert [e["data"]["text"] for e in db.events("note", pid="p1")] == ["é and ✓", "two"]
    with pytest.raises(RuntimeError), db.batch():  # a batch that fails leaves nothing
        db.event("note", pid="p2")
        raise RuntimeError("refused")
    assert db.events(pid="p2") == [] and db.event_count() == 3
    db.retract(second)
    assert [e["seq"] for e in db.events("note")] == [first]
    db.save_episode("g1", 0, {"reward": 1.0})
    db.save_episode("g1", 0, {"reward": 2.0})  # replaced, not doubled
    assert db.episode("g1", 0) == {"reward": 2.0} and len(db.episodes()) == 1
    db.set_home("p1", 1)
    db.set_home("p1", 0)
    assert db.homes() == {"p1": 0} and db.home("p1") == 0 and db.home("p9") is None
    assert db.meta()["study_name"] == "paper_user_study_cpu"
    db.close()


def test_an_old_sqlite_study_database_is_upgraded_in_place(tmp_path) -> None:
    path = tmp_path / "study.sqlite"
    old = sqlite3.connect(path)
    old.executescript(OLD_SCHEMA)
    old.execute("INSERT INTO meta VALUES ('study_name', 'old')")
    old.execute("INSERT INTO events (t, kind, data) VALUES (1.0, 'join', '{}')")
    old.commit()
    old.close()
    db = StudyDB(path)
    assert versions(db) == list(range(1, LATEST + 1))
    assert db.meta() == {"study_name": "old"} and [e["kind"] for e in db.events()] == ["join"]
    assert db.identities() == {} and db.homes() == {}  # the tables it lacked are there now
    db.close()


def test_a_database_of_a_newer_collabrl_is_refused(tmp_path) -> None:
    path = tmp_path / "study.sqlite"
    StudyDB(path).close()
    newer = sqlite3.connect(path)
    newer.execute("INSERT INTO schema_version VALUES (?)", (LATEST + 1,))
    newer.commit()
    newer.close()
    with pytest.raises(CollabrlError, match="newer collabrl"):
        StudyDB(path)


def test_a_postgresql_password_never_shows(pg_cluster, tmp_path, capsys, monkeypatch) -> None:
    url = pg_cluster.new_database()
    password = pg_cluster.password
    assert password in url and password not in redact(url) and ":***@" in redact(url)
    db = StudyDB(url)
    assert password not in str(db.path) and db.location == url
    db.close()
    wrong = url.replace(password, "not-" + password)
    with pytest.raises(CollabrlError) as refused:
        StudyDB(wrong)
    assert password not in str(refused.value) and "cannot be reached" in str(refused.value)
    # the CLI, given the address in the environment: an export prints no password either
    study = ("paper_user_study_cpu", f"output_dir={tmp_path}")
    open_database(compiled(*study).loaded, url).close()
    monkeypatch.setenv("COLLABRL_STUDY_DB", url)
    main(["study", "export", *study, "--out", str(tmp_path / "export")])
    out = capsys.readouterr()
    assert "exported 0 participants" in out.out and password not in out.out + out.err
    assert (tmp_path / "export" / "events.jsonl").is_file()
    monkeypatch.setenv("COLLABRL_STUDY_DB", wrong)
    with pytest.raises(SystemExit):
        main(["study", "export", *study, "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert (
        err.startswith("error: study database postgresql://collabrl:***@") and password not in err
    )


def test_a_path_is_a_file_and_an_address_a_server() -> None:
    from collabrl.study.store.backends import database_location

    assert database_location("study.sqlite") == Path("study.sqlite")
    assert database_location("postgresql://u:p@h/db") == "postgresql://u:p@h/db"


def test_pretest_exports_ignore_the_live_study_s_database(tmp_path, capsys, monkeypatch) -> None:
    """COLLABRL_STUDY_DB names the live study's database; ``--pretest`` still reads the
    pretest's (only an explicit --db names another)."""
    study = ("paper_user_study_cpu", f"output_dir={tmp_path}")
    open_database(compiled(*study).loaded, tmp_path / "pretest" / "study.sqlite").close()
    monkeypatch.setenv("COLLABRL_STUDY_DB", "postgresql://u:secret@127.0.0.1:1/none")
    main(["study", "export", *study, "--pretest", "--out", str(tmp_path / "x")])
    assert "exported 0 participants" in capsys.readouterr().out
