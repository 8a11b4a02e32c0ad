"""A throwaway PostgreSQL server in a folder: started for a test or a benchmark, stopped after.

Why: the study's PostgreSQL backend is tested and measured against a real server, not a mock,
and no lab machine should need one already running. The server is the distribution's own
(Debian's ``postgresql`` package: ``/usr/lib/postgresql/<version>/bin``); it listens on
127.0.0.1 at a free port with a password (so the tests see a real ``postgresql://user:pw@...``
address), and everything it writes stays in the folder. PostgreSQL refuses to run as root: as
root, the folder is handed to the ``postgres`` system user and the server runs as that user.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
from pathlib import Path

from collabrl.errors import CollabrlError

USER = "collabrl"


def server_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), the newest installed."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayCluster:
    """A PostgreSQL server of its own in ``folder`` (``with ThrowawayCluster(tmp) as pg:``);
    :meth:`new_database` gives a fresh database's address. ``fsync=False`` for tests (faster,
    nothing to survive); a benchmark keeps PostgreSQL's durable default."""

    def __init__(self, folder: Path, fsync: bool = True) -> None:
        binaries = server_bin()
        if binaries is None:
            raise CollabrlError(
                "PostgreSQL is not installed (no pg_ctl): apt-get install postgresql"
            )
        self.bin, self.folder, self.fsync = binaries, Path(folder), fsync
        self.data = self.folder / "data"
        self.port = _free_port()
        self.password = secrets.token_hex(8)
        self._as_postgres = os.geteuid() == 0

    def _run(self, *cmd: str) -> None:
        argv = [str(self.bin / cmd[0]), *cmd[1:]]
        if self._as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CollabrlError(f"{cmd[0]} failed: {' '.join(done.stderr.split())[-300:]}")

    def start(self) -> ThrowawayCluster:
        self.folder.mkdir(parents=True, exist_ok=True)
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password + "\n")
        if self._as_postgres:
            shutil.chown(self.folder, "postgres")
            shutil.chown(pwfile, "postgres")
            self.folder.chmod(0o700)
        self._run(
            "initdb", "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}",
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        pwfile.unlink()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} "
            f"-c max_connections=200 -c fsync={'on' if self.fsync else 'off'}"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"),
                  "-w", "start")  # fmt: skip
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def new_database(self, name: str | None = None) -> str:
        """A new, empty database on this server; its address."""
        import psycopg

        name = name or f"study_{secrets.token_hex(4)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def __enter__(self) -> ThrowawayCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
