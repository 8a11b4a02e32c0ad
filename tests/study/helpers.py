"""Building study apps and runtimes for tests: a compiled shipped study, a database under
tmp_path, and the rule-based pieces that make episodes short."""

from __future__ import annotations

from pathlib import Path

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.spec.compile import CompiledStudy, compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database

ADMIN = "admin-token"
SHORT = ("game.max_ticks=6",)  # rounds of a few decisions: tests check the protocol, not play


def compiled(name: str, *overrides: str) -> CompiledStudy:
    return compile_study(load_study(name, list(overrides)))


def runtime(
    tmp_path: Path, name: str, *overrides: str, db: Path | str | None = None
) -> StudyRuntime:
    """A runtime of a shipped study over database ``db`` (an SQLite file or a PostgreSQL
    address; default: a fresh file in ``tmp_path``)."""
    study = compiled(name, *overrides)
    return StudyRuntime(study, open_database(study.loaded, db or tmp_path / "study.sqlite"))


def study_app(
    tmp_path: Path, name: str, *overrides: str, db: Path | None = None, base_path: str = ""
):
    """The study app of a shipped study (database ``db`` or ``tmp_path/study.sqlite``), under
    ``base_path`` if given."""
    from collabrl.study.server.app import make_study_app

    study = compiled(name, *overrides)
    database = open_database(study.loaded, db or tmp_path / "study.sqlite")
    return make_study_app(StudyRuntime(study, database), ADMIN, base_path=base_path)
