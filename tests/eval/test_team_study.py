"""The team-structures study's composition grid on the analysis game: every row of the study's
Table 1 declared in a recipe and evaluated, lint refusing a composition the game cannot field,
and Tables 2 and 3 written as task-level means (SE across tasks)."""

from __future__ import annotations

import json

import pytest

from collabrl.config import load_recipe
from collabrl.errors import CollabrlError
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.runner import select_jobs
from collabrl.eval.team_study import headline, variant_label

TASKS = "eval.tasks=[arch-test-01,arch-test-02,arch-test-03]"


def spec(tmp_path, *overrides: str):
    return load_recipe(
        "analysis_teams",
        [TASKS, "eval.seeds=[0]", "eval.max_profiles=1", f"eval.output_dir={tmp_path}", *overrides],
    ).evaluation()


def test_every_row_of_the_study_design_is_a_job(tmp_path) -> None:
    jobs = select_jobs(spec(tmp_path))
    variants = {variant_label(j.structure, j.composition) for j in jobs}
    assert variants == {
        "Single-agent",
        *(
            f"{s}-{c}"
            for s in ("Default", "Memory", "Gates", "Scaffolded")
            for c in ("D", "R", "DR")
        ),
    }
    assert {j.seat for j in jobs} == {1} and len(jobs) == 13 * 3
    assert all(j.size == 1 + len(j.composition) for j in jobs)


@pytest.mark.parametrize(
    "compositions, message",
    [
        ("[[D,D]]", "each profile at most once"),
        ("[[X]]", "should be 'D' or 'R'"),
        ("[[D,R,D]]", "each profile"),
    ],
)
def test_lint_refuses_a_composition_the_game_cannot_field(tmp_path, compositions, message) -> None:
    with pytest.raises((CollabrlError, ValueError), match=message):
        spec(tmp_path, f"eval.teams.compositions={compositions}")


def test_compositions_need_a_game_with_collaborator_profiles(tmp_path) -> None:
    with pytest.raises((CollabrlError, ValueError), match="collaborator profiles"):
        load_recipe(
            "teams", ["eval.games=[household]", "eval.teams.compositions=[[D]]"]
        ).evaluation()


def test_the_grid_writes_tables_2_and_3(tmp_path) -> None:
    result = run_evaluation(spec(tmp_path), progress=False)
    study = (tmp_path / "study.md").read_text()
    assert "Table 2 shape" in study and "Table 3 shape" in study and "Scaffolded-DR" in study
    assert result.teams  # the team table too
    study_rows = json.loads((tmp_path / "results.json").read_text())["study"]
    rows = {r["variant"]: r for r in study_rows}
    assert [r["variant"] for r in headline(list(rows.values()))] == [
        "Single-agent",
        *(f"{s}-{c}" for s in ("Default", "Scaffolded") for c in ("D", "R", "DR")),
    ]
    single, full = rows["Single-agent"], rows["Scaffolded-DR"]
    assert single["tasks"] == 3 and single["score"] == 1.0  # the reference analyst knows it all
    assert single["profile_alignment"] is None and full["profile_alignment"] is not None
    assert single["work_teammates"] == 0 and full["messages_total"] >= 0
    assert full["score_se"] == 0.0  # every task solved: no spread across tasks
    assert rows["Gates-DR"]["work_total"] > single["work_total"] - 1
    assert (tmp_path / "study.csv").read_text().startswith("game,variant,structure,composition,")
    teams = (tmp_path / "teams.md").read_text()
    assert "Collaborators" in teams and "| DR" in teams
