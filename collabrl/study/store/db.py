"""The study's state and events in one SQLite file (write-ahead log), or on a PostgreSQL server.

Why SQLite by default: one file a lab can copy and audit, transactions that survive a killed
server, and concurrent readers (``collabrl study export`` while the server runs). PostgreSQL
(``--db postgresql://...``, :mod:`collabrl.study.store.backends`) is for several server processes at
once; both hold the same tables, made by the same migrations (:mod:`collabrl.study.store.migrations`).
Every event is appended with a wall-clock timestamp and a sequence number; participant and
group rows hold where each one is, so a participant resumes by token after a reload or a server
restart. A state change and the event that records it commit together (:meth:`StudyDB.batch`);
what is acknowledged is on disk first (:meth:`StudyDB.synced`).

Tokens are stored only as SHA-256 hashes: a copy of the database cannot be used to impersonate
a participant. Nothing about a participant is stored beyond what the study file declares; a
recruitment platform's ids live in their own table (``identities``), apart from the research
data, as :mod:`collabrl.study.spec.recruitment` describes.

Faults: a write SQLite refuses (full disk, I/O error) rolls its transaction back and raises
:class:`StorageFault`, so a caller that writes before it changes anything has changed nothing;
the database remembers the fault for the admin page. A database that cannot be used at all
(not a database, damaged, locked by another program, read-only) is refused when it is opened,
in one line naming the file and what to do (:func:`database_problem`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

import yaml

from collabrl.errors import CollabrlError
from collabrl.study.store.backends import SQLITE, connect, is_url, one_line, redact, scrub
from collabrl.study.store.groupsync import GroupSync, postgres_sync, sqlite_sync
from collabrl.study.store.migrations import migrate

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from collabrl.study.spec.load import LoadedStudy

JSON_COLUMNS = {"fields", "conditions", "members", "data", "record", "ids"}


Status = Literal["active", "completed", "declined", "released", "screened_out"]
"""A participant's status: active, or the ``outcome`` of the end page they reached."""
RoundPhase = Literal["wait", "play", "rate"]
"""The steps of a round that participants and their group go through together."""
Phase = Literal["", RoundPhase]
"""Where a participant is inside a conditions page: not in a round, waiting for teammates,
playing a round, rating it."""
GroupPhase = Literal[RoundPhase, "done", "abandoned"]
"""A session group: between rounds, playing one, rating it, finished, or abandoned."""


class ParticipantRow(TypedDict):
    """One participant as the database keeps it (the ``participants`` table)."""

    pid: str
    token_hash: str
    kind: str  # human, or simulated (pretests)
    profile: str | None  # a simulated participant's profile
    page: str  # the page id they are on
    position: int  # the round of the conditions page
    phase: Phase
    gid: str | None  # their session group, once matched
    seat: str | None
    status: Status
    code: str | None  # completion code, at the end page
    fields: dict[str, str]  # URL fields the study's privacy section allows
    created: float
    updated: float


class GroupRow(TypedDict):
    """One session group as the database keeps it (the ``groups`` table)."""

    gid: str
    unit: int  # the counterbalancing unit: which order of conditions it plays
    task: str
    conditions: list[str]  # condition ids, in play order
    members: dict[str, str | None]  # human seat -> participant id (None: a stand-in throughout)
    position: int  # the round being played
    attempt: int  # restarts of the current round
    phase: GroupPhase
    created: float


class ParticipantChange(TypedDict, total=False):
    """The columns of a participant that change as they move (``updated`` is stamped too)."""

    profile: str | None
    page: str
    position: int
    phase: Phase
    gid: str | None
    seat: str | None
    status: Status
    code: str | None


class GroupChange(TypedDict, total=False):
    """The columns of a session group that change between and during its rounds."""

    position: int
    attempt: int
    phase: GroupPhase


MATCHING_LOCK = 7263  # PostgreSQL advisory lock id that group formation holds
OPEN_BUSY_MS = 1000  # at start, a lock held longer than this is another program's
RUN_BUSY_MS = 5000  # while serving, a busy moment (an export's read, a checkpoint) is waited out


class StorageFault(CollabrlError):
    """A write the database refused (disk full, I/O error): its transaction was rolled back,
    so nothing of it is stored."""


# what a participant is told when something of theirs meets a StorageFault ({what}: decision,
# answer): never the file or SQLite's words, which are for the admin page
NOT_SAVED = (
    "your {what} was not saved, so it was not applied: the study is paused by a storage fault; "
    "please wait, or tell the researcher"
)
SAVED_THEN_PAUSED = (
    "your {what} was saved, but the study is now paused by a storage fault; please wait, or tell "
    "the researcher"
)
PAUSED = "this session is paused by a storage fault; please wait, or tell the researcher"


def database_problem(path: Path | str, exc: Exception) -> CollabrlError:
    """The one-line error for a database SQLite (or PostgreSQL) cannot use, naming the file
    (the server, without its password) and what to do.

    Why here and not in the CLI: every command that opens a study database (serve, export,
    report, pretest) gets the same words for the same fault."""
    text = one_line(exc)  # one line, whatever SQLite's report looks like
    if is_url(path):
        return CollabrlError(
            f"study database {redact(str(path))} cannot be used ({scrub(text, str(path))}): "
            "check the server, and that the user may create tables there"
        )
    if "not a database" in text:
        what = (
            "is not a study database (file is not a database): pass the study's database with "
            "--db, or move this file away to start a new one"
        )
    elif "malformed" in text or "damaged" in text or "corrupt" in text:
        what = (
            f"is damaged ({text}): restore it from a backup (`sqlite3 {path} .recover` may save "
            "most of it into a new file)"
        )
    elif "readonly" in text or "read-only" in text:
        what = (
            f"is read-only ({text}): make it and its folder writable (chmod u+w), or copy it "
            "somewhere writable and pass the copy with --db"
        )
    elif "locked" in text or "busy" in text:
        what = (
            f"is locked by another program ({text}): stop the other collabrl study serve (or "
            "whatever holds it), or wait and try again"
        )
    elif "unable to open" in text:
        what = f"cannot be opened ({text}): check the path and that its folder is writable"
    else:
        what = f"cannot be used ({text}): check the disk, or restore the file from a backup"
    return CollabrlError(f"study database {path} {what}")


def token_hash(token: str) -> str:
    """What the database keeps of a participant's token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: json.loads(row[k]) if k in JSON_COLUMNS else row[k] for k in row.keys()}  # noqa: SIM118


class StudyDB:
    """One study's database; every method is safe to call from any thread."""

    def __init__(self, path: Path | str, durable: bool = True) -> None:
        """``path``: an SQLite file (created if new) or a ``postgresql://`` address."""
        if not is_url(path):
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
        self.location = path  # what to connect to (a server's address with its password)
        self.path: Path | str = redact(path) if isinstance(path, str) else path  # what is shown
        self.fault: str | None = None  # the last write that failed, for the admin page
        self.failed_writes = 0
        try:
            self.backend, self._conn = connect(path)
        except sqlite3.Error as exc:
            raise database_problem(path, exc) from exc
        self.errors = self.backend.errors
        self._sync: GroupSync | None = None
        self._lock = threading.RLock()
        self._depth = 0
        self._after: list[Callable[[], None]] = []  # steps waiting for the open batch's commit
        if self.backend is not SQLITE:
            try:
                migrate(self._conn, self.backend)
                # commits do not wait for the disk; what is acknowledged waits for synced()
                self._conn.execute("SET synchronous_commit = off")
                self._sync = postgres_sync(str(path)) if durable else None
            except Exception as exc:
                if not isinstance(exc, (*self.errors, ValueError)):
                    raise
                self._conn.close()
                raise database_problem(path, exc) from exc
            return
        try:
            self._conn.execute(f"PRAGMA busy_timeout={OPEN_BUSY_MS}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            # commits reach the log without a sync (a killed server loses nothing); durable:
            # every change is synced before it is acknowledged, in groups (synced()); else
            # only a power cut may lose the last commits (slow disks)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._sync = sqlite_sync(Path(path)) if durable else None
            if self._sync is not None:  # checkpoints come from the sync's thread instead
                self._conn.execute("PRAGMA wal_autocheckpoint=0")
            self._check_pages()
            migrate(self._conn, self.backend)
            self._conn.execute(f"PRAGMA busy_timeout={RUN_BUSY_MS}")
        except (sqlite3.Error, ValueError) as exc:
            self._conn.close()
            raise database_problem(path, exc) from exc

    def _check_pages(self) -> None:
        """Refuse a damaged file at start, not in the middle of a study (``quick_check`` reads
        every page once: milliseconds for a study's database)."""
        problems = [r[0] for r in self._conn.execute("PRAGMA quick_check(1)").fetchall()]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"database disk image is malformed: {problems[0]}")

    def check_writable(self) -> None:
        """Refuse a database this server cannot write (read-only, or held by another writer)
        before anyone joins: a write transaction is begun and rolled back, nothing stored."""
        sqlite = self.backend is SQLITE
        with self._lock:
            try:
                if sqlite:
                    self._conn.execute(f"PRAGMA busy_timeout={OPEN_BUSY_MS}")
                self._conn.execute(self.backend.begin_write)
                try:
                    self._conn.execute(
                        "INSERT INTO meta VALUES ('write_check', '') "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                    )
                finally:
                    self._conn.execute("ROLLBACK")
                if sqlite:
                    self._conn.execute(f"PRAGMA busy_timeout={RUN_BUSY_MS}")
            except self.errors as exc:
                raise database_problem(self.path, exc) from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            if self._sync is not None:
                self._sync.close()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Everything inside commits together (nested batches join the outer one). A write
        SQLite refuses rolls the whole batch back and raises :class:`StorageFault`."""
        with self._lock:
            if self._depth == 0:
                try:
                    self._conn.execute(self.backend.begin_write)
                except self.errors as exc:
                    raise self._failed(exc) from exc
            self._depth += 1
            try:
                yield
            except BaseException as exc:
                self._depth -= 1
                if self._depth == 0:
                    self._rollback()
                    if isinstance(exc, self.errors):
                        raise self._failed(exc) from exc
                raise
            self._depth -= 1
            if self._depth == 0:
                try:
                    self._conn.execute("COMMIT")
                except self.errors as exc:
                    self._rollback()
                    raise self._failed(exc) from exc
                if self._sync is not None:
                    self._sync.committed()
                steps, self._after = self._after, []
                for step in steps:
                    step()

    async def synced(self) -> None:
        """Return once everything committed so far is on disk: await it before telling anyone
        of a change (:mod:`collabrl.study.store.groupsync`). A sync the disk refuses raises
        :class:`StorageFault`."""
        if self._sync is None:
            return
        try:
            await self._sync.synced()
        except Exception as exc:
            if not isinstance(exc, (OSError, *self.errors)):
                raise
            raise self._failed(exc) from exc

    def after_commit(self, step: Callable[[], None]) -> None:
        """Run ``step`` once what is written so far is committed: now outside a batch, after
        the outermost commit inside one, never when it rolls back. Why: the runtime's memory
        (what pages are shown) must never run ahead of the database."""
        with self._lock:
            if self._depth == 0:
                step()
            else:
                self._after.append(step)

    def _rollback(self) -> None:
        """Undo the open transaction; a rollback that fails too leaves SQLite to undo it (a
        transaction that never committed is not in the file)."""
        self._after.clear()
        if self._conn.in_transaction:
            with suppress(*self.errors):
                self._conn.execute("ROLLBACK")

    def _failed(self, exc: Exception) -> StorageFault:
        """Remember a refused write for the admin page; the error the caller raises."""
        self.failed_writes += 1
        self.fault = (
            f"{time.strftime('%H:%M:%S')}: a write to {self.path} failed "
            f"({scrub(one_line(exc), str(self.location))}); nothing of it "
            "was stored. Free the disk (or fix the file), then restart collabrl study serve: "
            "participants resume from what the database holds"
        )
        return StorageFault(self.fault)

    def _write(self, sql: str, args: tuple = ()) -> Any:
        """One write: inside a batch, part of it; alone, a transaction of its own (one round
        trip to a server instead of three: no BEGIN and COMMIT around it)."""
        with self._lock:
            if self._depth:
                return self._conn.execute(sql, args)
            try:
                result = self._conn.execute(sql, args)
            except self.errors as exc:
                self._rollback()
                raise self._failed(exc) from exc
            if self._sync is not None:
                self._sync.committed()
            return result

    def _read(self, sql: str, args: tuple = ()) -> list[dict[str, Any]]:
        with self._lock:
            return [_row(r) for r in self._conn.execute(sql, args).fetchall()]

    # --- the study this database belongs to -------------------------------------------------

    def bind(self, sha256: str, meta: dict[str, str], writing: bool = True) -> None:
        """Tie the database to one resolved study; another study's database is refused.

        A newer collabrl reading the same files with the same overrides may resolve options it
        added (at their defaults): that is the same protocol, and the study goes on, the
        upgrade recorded in ``meta`` (``upgrades``); rounds name the hash they ran under."""
        known = self.meta()
        bound = known.get("study_sha256")
        if bound is None:
            with self.batch():
                for key, value in {**meta, "study_sha256": sha256}.items():
                    self._conn.execute("INSERT INTO meta VALUES (?, ?)", (key, value))
        elif bound != sha256:
            added = self._upgrade(known, sha256, meta)
            if writing:
                self._record_upgrade(known, sha256, meta, added)

    def _upgrade(self, known: dict[str, str], sha256: str, meta: dict[str, str]) -> list[str]:
        """The options a newer collabrl (``meta["collabrl"]``) adds, at their defaults, to this
        database's study; a study whose files, overrides or values differ from the bound one's is
        refused in one line."""
        from collabrl.study.spec.load import protocol_differences

        refused = (
            f"{self.path} holds study {known.get('study_name')} "
            f"(sha256 {known['study_sha256'][:12]}), not this one ({sha256[:12]}): "
        )
        if (known.get("sources"), known.get("overrides")) != (meta["sources"], meta["overrides"]):
            raise CollabrlError(
                refused + "the study file or its overrides changed; use another database (--db) "
                "or the same study"
            )
        added, changed = protocol_differences(
            yaml.safe_load(known.get("study_yaml", "{}")), yaml.safe_load(meta["study_yaml"])
        )
        if changed:
            shown = ", ".join(changed[:5]) + (
                f" and {len(changed) - 5} more" if changed[5:] else ""
            )
            raise CollabrlError(
                refused + f"collabrl {meta['collabrl']} (the database was made by "
                f"{known.get('collabrl')}) resolves the same file differently ({shown}); finish "
                "the study with that version or use another database (--db)"
            )
        return added

    def _record_upgrade(
        self, known: dict[str, str], sha256: str, meta: dict[str, str], added: list[str]
    ) -> None:
        """Append the upgrade to ``meta["upgrades"]`` once (the export's manifest shows it)."""
        upgrades = json.loads(known.get("upgrades", "[]"))
        if sha256 in [u["study_sha256"] for u in upgrades]:
            return
        upgrades.append(
            {
                "study_sha256": sha256,
                "collabrl": meta["collabrl"],
                "from": meta["created"],
                "added": added,
            }
        )
        self._write(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            ("upgrades", json.dumps(upgrades)),
        )

    def meta(self) -> dict[str, str]:
        return {r["key"]: r["value"] for r in self._read("SELECT key, value FROM meta")}

    # --- events -----------------------------------------------------------------------------

    def event(
        self,
        name: str,
        /,
        pid: str | None = None,
        gid: str | None = None,
        node: str | None = None,
        **data: Any,
    ) -> int:
        """Append one event of kind ``name``; its sequence number."""
        cursor = self._write(
            "INSERT INTO events (t, kind, pid, gid, node, data) VALUES (?, ?, ?, ?, ?, ?)",
            (time.time(), name, pid, gid, node, json.dumps(data, ensure_ascii=True)),
        )
        seq = cursor.lastrowid
        assert seq is not None  # set by every INSERT
        return seq

    def retract(self, seq: int) -> None:
        """Remove event ``seq``: a decision written ahead of being applied that the game then
        refused (it was never acknowledged, so it must not be replayed)."""
        self._write("DELETE FROM events WHERE seq = ?", (seq,))

    def events(
        self, kind: str | None = None, gid: str | None = None, pid: str | None = None
    ) -> list[dict[str, Any]]:
        """Events in order, optionally of one kind, one group and one participant."""
        sql = "SELECT * FROM events WHERE 1=1"
        args: list[str] = []
        for column, value in (("kind", kind), ("gid", gid), ("pid", pid)):
            if value is not None:
                sql, args = f"{sql} AND {column} = ?", [*args, value]
        return self._read(sql + " ORDER BY seq", tuple(args))

    def event_count(self) -> int:
        return self._read("SELECT COUNT(*) AS n FROM events")[0]["n"]

    # --- participants -----------------------------------------------------------------------

    def add_participant(self, row: ParticipantRow) -> None:
        columns = {**row, "fields": json.dumps(row["fields"])}
        keys = ", ".join(columns)
        self._write(
            f"INSERT INTO participants ({keys}) VALUES ({', '.join('?' * len(columns))})",
            tuple(columns.values()),
        )

    def update_participant(self, pid: str, **fields: Unpack[ParticipantChange]) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._write(
            f"UPDATE participants SET {sets}, updated = ? WHERE pid = ?",
            (*fields.values(), time.time(), pid),
        )

    def replace_token(self, pid: str, new_hash: str) -> None:
        """A returning participant's new token (the old link stops working)."""
        self._write("UPDATE participants SET token_hash = ? WHERE pid = ?", (new_hash, pid))

    def add_identity(self, pid: str, id_hash: str, ids: dict[str, str]) -> None:
        """A participant's platform ids (raw, as the privacy section allows) and the keyed hash
        of the participant id."""
        self._write("INSERT INTO identities VALUES (?, ?, ?)", (pid, id_hash, json.dumps(ids)))

    def participant_by_identity(self, id_hash: str) -> str | None:
        """The first participant who joined with this platform id (None: a new one)."""
        rows = self._read(
            "SELECT i.pid FROM identities i JOIN participants p ON p.pid = i.pid "
            "WHERE i.id_hash = ? ORDER BY p.created LIMIT 1",
            (id_hash,),
        )
        return rows[0]["pid"] if rows else None

    def identities(self, pid: str | None = None) -> dict[str, dict[str, str]]:
        """Participant -> the raw platform ids stored for them (of ``pid`` only, if given)."""
        where, args = ("WHERE pid = ?", (pid,)) if pid is not None else ("", ())
        return {
            r["pid"]: r["ids"] for r in self._read(f"SELECT pid, ids FROM identities {where}", args)
        }

    def participant_by_token(self, token: str) -> ParticipantRow | None:
        rows = self._read("SELECT * FROM participants WHERE token_hash = ?", (token_hash(token),))
        return cast(ParticipantRow, rows[0]) if rows else None

    def participants(self) -> list[ParticipantRow]:
        return cast(
            list[ParticipantRow], self._read("SELECT * FROM participants ORDER BY created, pid")
        )

    # --- groups and episodes ----------------------------------------------------------------

    def next_unit(self) -> int:
        return self._read("SELECT COALESCE(MAX(unit) + 1, 0) AS n FROM groups")[0]["n"]

    def add_group(self, row: GroupRow) -> None:
        columns = {
            **row,
            "conditions": json.dumps(row["conditions"]),
            "members": json.dumps(row["members"]),
        }
        keys = ", ".join(columns)
        self._write(
            f"INSERT INTO groups ({keys}) VALUES ({', '.join('?' * len(columns))})",
            tuple(columns.values()),
        )

    def update_group(self, gid: str, **fields: Unpack[GroupChange]) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._write(f"UPDATE groups SET {sets} WHERE gid = ?", (*fields.values(), gid))

    def groups(self) -> list[GroupRow]:
        return cast(list[GroupRow], self._read("SELECT * FROM groups ORDER BY unit"))

    def save_episode(self, gid: str, position: int, record: dict[str, Any]) -> None:
        self._write(
            "INSERT INTO episodes VALUES (?, ?, ?) "
            "ON CONFLICT (gid, position) DO UPDATE SET record = excluded.record",
            (gid, position, json.dumps(record, ensure_ascii=True, default=str)),
        )

    def episode(self, gid: str, position: int) -> dict[str, Any] | None:
        rows = self._read(
            "SELECT record FROM episodes WHERE gid = ? AND position = ?", (gid, position)
        )
        return rows[0]["record"] if rows else None

    def episodes(self) -> list[dict[str, Any]]:
        return self._read("SELECT * FROM episodes ORDER BY gid, position")

    # --- several server processes (serve --workers) ------------------------------------------

    def lock_matching(self) -> None:
        """Inside a batch: hold the one lock that group formation takes, until the batch ends
        (SQLite: the write transaction already excludes every other writer)."""
        if self.backend is not SQLITE:
            self._conn.execute("SELECT pg_advisory_xact_lock(?)", (MATCHING_LOCK,))

    def register_worker(self, worker: int, url: str) -> None:
        """Where server process ``worker`` answers (its participants are sent there)."""
        self._write(
            "INSERT INTO workers VALUES (?, ?, ?) "
            "ON CONFLICT (worker) DO UPDATE SET url = excluded.url, started = excluded.started",
            (worker, url, time.time()),
        )

    def worker_urls(self) -> dict[int, str]:
        return {r["worker"]: r["url"] for r in self._read("SELECT worker, url FROM workers")}

    def set_home(self, pid: str, worker: int) -> None:
        """The server process that serves ``pid`` from now on."""
        self._write(
            "INSERT INTO homes VALUES (?, ?) "
            "ON CONFLICT (pid) DO UPDATE SET worker = excluded.worker",
            (pid, worker),
        )

    def homes(self, pids: list[str] | None = None) -> dict[str, int]:
        """Participant (of ``pids``, if given) -> the server process that serves them (none:
        a single server)."""
        where = f"WHERE pid IN ({', '.join('?' * len(pids))})" if pids else ""
        rows = self._read(f"SELECT pid, worker FROM homes {where}", tuple(pids or ()))
        return {r["pid"]: r["worker"] for r in rows}

    def home(self, pid: str) -> int | None:
        rows = self._read("SELECT worker FROM homes WHERE pid = ?", (pid,))
        return rows[0]["worker"] if rows else None

    def waiting(self, pages: list[str]) -> list[ParticipantRow]:
        """Active participants on one of the match ``pages`` without a group, longest waiting
        first: the pool every server process forms groups from."""
        marks = ", ".join("?" * len(pages))
        return cast(
            list[ParticipantRow],
            self._read(
                f"SELECT * FROM participants WHERE page IN ({marks}) AND gid IS NULL "
                "AND status = 'active' ORDER BY updated, pid",
                tuple(pages),
            ),
        )

    def participant(self, pid: str) -> ParticipantRow | None:
        rows = self._read("SELECT * FROM participants WHERE pid = ?", (pid,))
        return cast(ParticipantRow, rows[0]) if rows else None


def open_database(
    loaded: LoadedStudy, path: Path | str, durable: bool = True, writing: bool = True
) -> StudyDB:
    """The study's database at ``path``, created and bound to the resolved study if new; a
    database of another protocol is refused, and so (one line each) is a file that is not a
    database, a damaged one and, when ``writing`` (serve, pretest), one this process cannot
    write (read-only, or held by another writer). An export only reads: it runs beside a
    serving study."""
    import secrets

    from collabrl import __version__

    db = StudyDB(path, durable)
    try:
        if writing:
            db.check_writable()
        db.bind(
            loaded.sha256,
            {
                "study_name": loaded.study.name,
                "study_yaml": loaded.resolved_yaml,
                "sources": json.dumps(
                    [{"where": s.where, "sha256": s.sha256} for s in loaded.sources]
                ),
                "overrides": json.dumps(loaded.overrides),
                "collabrl": __version__,
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "join_key": secrets.token_urlsafe(12),
                "id_salt": secrets.token_hex(16),
            },
            writing,
        )
    except CollabrlError:
        db.close()
        raise
    except db.errors as exc:
        db.close()
        raise database_problem(path, exc) from exc
    return db
