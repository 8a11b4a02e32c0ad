"""The study database's schema, as ordered migrations that both backends run.

Why migrations: a study runs for weeks, and a database written by an older collabrl must open
in a newer one without losing a row. ``schema_version`` holds the number of migrations applied;
opening a database applies the rest, each in its own transaction with its version, so a
database is never half-upgraded. A database from before ``schema_version`` existed (an SQLite
study database of an earlier release) already holds the tables of migration 1, which only adds
what is missing (``IF NOT EXISTS``): it is upgraded in place.

Migrations are append-only: never edit one that has shipped, add the next. ``{serial}`` and
``{real}`` are the column types each backend fills in (:attr:`Backend.types`).
"""

from __future__ import annotations

from typing import Any

from collabrl.study.store.backends import Backend

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: the tables of the first release
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE IF NOT EXISTS participants (
  pid TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL, kind TEXT NOT NULL, profile TEXT,
  page TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0, phase TEXT NOT NULL DEFAULT '',
  gid TEXT, seat TEXT, status TEXT NOT NULL, code TEXT, fields TEXT NOT NULL DEFAULT '{{}}',
  created {real} NOT NULL, updated {real} NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS groups (
  gid TEXT PRIMARY KEY, unit INTEGER UNIQUE NOT NULL, task TEXT NOT NULL, conditions TEXT NOT NULL,
  members TEXT NOT NULL, position INTEGER NOT NULL DEFAULT 0, attempt INTEGER NOT NULL DEFAULT 0,
  phase TEXT NOT NULL, created {real} NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS events (
  seq {serial}, t {real} NOT NULL, kind TEXT NOT NULL, pid TEXT, gid TEXT,
  node TEXT, data TEXT NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS episodes (
  gid TEXT NOT NULL, position INTEGER NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (gid, position))""",
        "CREATE INDEX IF NOT EXISTS events_by_group ON events (gid, kind)",
        """CREATE TABLE IF NOT EXISTS identities (
  pid TEXT PRIMARY KEY, id_hash TEXT NOT NULL, ids TEXT NOT NULL DEFAULT '{{}}')""",
        "CREATE INDEX IF NOT EXISTS identities_by_hash ON identities (id_hash)",
    ),
    (  # 2: several server processes (serve --workers): where each participant is served
        "CREATE TABLE workers (worker INTEGER PRIMARY KEY, url TEXT NOT NULL, started {real})",
        "CREATE TABLE homes (pid TEXT PRIMARY KEY, worker INTEGER NOT NULL)",
        "CREATE INDEX events_by_participant ON events (pid, kind)",
        # PostgreSQL's group commit (collabrl.study.store.groupsync): a row per server process
        "CREATE TABLE sync_marks (mark INTEGER PRIMARY KEY, n BIGINT NOT NULL)",
    ),
)
LATEST = len(MIGRATIONS)


def schema_version(conn: Any, backend: Backend) -> int:
    """How many migrations ``conn``'s database has (0: new, or from before migrations); a read
    only, so a reader beside a writing server is not held up."""
    try:
        rows = conn.execute("SELECT MAX(version) AS v FROM schema_version").fetchall()
    except backend.errors:
        return 0
    return rows[0]["v"] or 0


def migrate(conn: Any, backend: Backend) -> int:
    """Apply the migrations ``conn``'s database lacks, each with its version in one
    transaction (two servers starting at once: the second waits, then finds them applied);
    the version it is at now. A database of a newer collabrl is refused."""
    found = schema_version(conn, backend)
    if found > LATEST:
        raise ValueError(
            f"it was written by a newer collabrl (schema {found}, this one knows {LATEST}): "
            "upgrade collabrl"
        )
    if found == LATEST:
        return LATEST
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    for version, statements in enumerate(MIGRATIONS, start=1):
        conn.execute(backend.begin_write)
        try:
            if backend.name == "postgresql":  # two servers migrating at once: one at a time
                conn.execute("LOCK TABLE schema_version IN EXCLUSIVE MODE")
            done = conn.execute("SELECT MAX(version) AS v FROM schema_version").fetchall()
            if (done[0]["v"] or 0) < version:
                for sql in statements:
                    conn.execute(backend.ddl(sql))
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return LATEST
