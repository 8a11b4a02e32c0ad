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


def test_persona_collaborators_borrow_the_shipped_tasks_profile_teams() -> None:
    """The k-th real task is played by the k-th shipped test task's profile teams; ``DR`` alone
    leaves the single agent and the four D+R variants."""
    real = team_structures.discoverybench_tasks(ROOT / "tests" / "fixtures" / "discoverybench")
    spec = team_structures.load_recipe(
        "analysis_teams",
        ["eval.partner.kind=persona", "eval.max_profiles=2", "eval.seeds=[0]",
         "eval.teams.compositions=[[], [D, R]]"],
    ).evaluation()  # fmt: skip
    jobs = team_structures.borrowed_jobs(spec, real)
    assert {j.task for j in jobs} == set(real)
    teams = {j.task: {p.task for p in j.team if p is not None} for j in jobs if j.team}
    assert teams == {"archaeology-0-0": {"arch-test-01"}, "archaeology-0-1": {"arch-test-02"},
                     "archaeology-1-0": {"arch-test-03"}}  # fmt: skip
    assert len(jobs) == len(real) * (1 + 4 * 2)  # single agent; 4 structures x 2 profile teams
