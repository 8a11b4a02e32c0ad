"""The study tests' database fixture: each storage and runtime test that takes ``db_location``
runs twice, on an SQLite file and on a PostgreSQL database of a throwaway server that this
test session starts (in a temporary folder) and stops at its end."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from collabrl.study.store.pgcluster import ThrowawayCluster, server_bin
from tests import needs


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[ThrowawayCluster]:
    """A PostgreSQL server for the session (skipped where PostgreSQL or psycopg is missing,
    except under CI, which installs both: there it fails)."""
    missing = "PostgreSQL (pg_ctl)" if server_bin() is None else None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing = "psycopg (pip install 'collabrl[postgres]')"
    if missing:
        needs.missing(f"{missing} is not installed")
    # not pytest's tmp_path: PostgreSQL runs as its own user, who must reach the folder
    folder = Path(tempfile.mkdtemp(prefix="collabrl-pg-"))
    try:
        with ThrowawayCluster(folder, fsync=False) as cluster:
            yield cluster
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_location(request, tmp_path) -> Path | str:
    """A fresh study database: an SQLite file, or a new database on the session's server."""
    if request.param == "sqlite":
        return tmp_path / "study.sqlite"
    return request.getfixturevalue("pg_cluster").new_database()
