"""benchmarks/team_structures.py --tasks discoverybench: the grid's tasks are the folder's (the
hand-made one here), registered for the run; without a folder it stops in one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, load_tasks

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import team_structures  # noqa: E402


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(DISCOVERYBENCH_ENV, "")  # restored after the test: the script sets it
    load_tasks.cache_clear()
    yield
    load_tasks.cache_clear()


def test_the_grid_runs_on_the_folders_tasks() -> None:
    names = team_structures.discoverybench_tasks(ROOT / "tests" / "fixtures" / "discoverybench")
    assert names == ["archaeology-0-0", "archaeology-0-1", "archaeology-1-0"]


def test_without_a_folder_it_stops_in_one_line() -> None:
    with pytest.raises(SystemExit, match="needs --root or \\$COLLABRL_DISCOVERYBENCH"):
        team_structures.discoverybench_tasks(None)
