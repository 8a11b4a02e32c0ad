"""The smaller frictions of issue 33, each fixed: a wrong branch key's own message, the study how-to's
branch syntax, a game-neutral questionnaire template, export and report after a pretest, a
profile listing, `collabrl lint` on a study file, a report without "nan" or intervals off the
scale, the condition on exported trajectories, the completion code on the admin page."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import yaml

from collabrl.cli import main
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.report import condition_table, method_note, summarize
from collabrl.study.spec.questionnaires import TEMPLATES
from collabrl.study.spec.schema import SurveyPage
from tests.study.helpers import ADMIN, compiled, study_app
from tests.study.test_traps import study_file

STUDIES = Path(__file__).resolve().parents[2] / "docs" / "studies.md"


def cli_error(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


# --- branch syntax ------------------------------------------------------------------------------


def test_a_wrong_branch_key_has_its_own_message(tmp_path, capsys) -> None:
    """A guessed ``value:`` instead of ``equals:`` names the branch's keys, not the study's,
    and nothing hides behind "and N more problem(s)"."""
    path = study_file(tmp_path, branches=('      - {question: cooks, value: "no", to: tips}',))
    err = cli_error(capsys, "study", "lint", path)
    allowed = "allowed: question, equals, when, to"
    assert f"pages.1 (survey page).branches.0: unknown key 'value'; {allowed}" in err
    assert "more problem" not in err and "allowed: name, title" not in err


def test_every_problem_of_a_study_file_is_shown(tmp_path, capsys) -> None:
    path = study_file(tmp_path)
    wrong = [f"pages.{i}.colour=red" for i in range(6)]
    err = cli_error(capsys, "study", "lint", path, *wrong)
    assert all(f"pages.{i} (" in err for i in range(6)) and "more problem" not in err


def test_the_study_how_to_shows_the_branch_syntax_and_it_validates() -> None:
    section = STUDIES.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    docs = [yaml.safe_load(b) for b in blocks]
    pages = [p for d in docs if isinstance(d, list) for p in d if p.get("kind") == "survey"]
    assert pages and any(p.get("branches") for p in pages)
    for page in pages:
        SurveyPage.model_validate(page)


def test_the_study_how_to_recruitment_and_payment_block_validates() -> None:
    from collabrl.study.spec.payment import check_bonus
    from collabrl.study.spec.schema import Payment, Recruitment

    section = STUDIES.read_text(encoding="utf-8")
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    (block,) = [b for b in blocks if isinstance(b, dict) and "payment" in b]
    Recruitment.model_validate(block["recruitment"])
    pay = Payment.model_validate(block["payment"])
    check_bonus(pay.bonus, pay.max_bonus, [{"intake.cooks": "yes"}, {"intake.cooks": "no"}])


# --- the questionnaire template -----------------------------------------------------------------


GAME_WORDS = ("room", "kitchen", "onion", "pot", "dish", "soup", "apartment", "table", "notebook")


def test_the_template_speaks_of_no_game() -> None:
    game_words = {*GAME_WORDS, *(w + "s" for w in GAME_WORDS), "dishes"}
    for items in TEMPLATES.values():
        for item in items:
            words = set(re.findall(r"[a-z]+", item["text"].lower()))
            assert not words & game_words, item["text"]


# --- export and report after a pretest ---------------------------------------------------------


def test_export_and_report_find_the_pretest_database(tmp_path, capsys) -> None:
    path = study_file(tmp_path)
    runs = tmp_path / "runs"
    err = cli_error(capsys, "study", "export", path)
    assert f"no study database at {runs / 'study.sqlite'}" in err
    assert f"collabrl study pretest writes {runs / 'pretest' / 'study.sqlite'}" in err
    assert "(read with --pretest); --db PATH reads one written elsewhere" in err
    main(["study", "pretest", path, "--participants", "2"])
    out = capsys.readouterr().out
    assert f"database {runs / 'pretest' / 'study.sqlite'}" in out
    assert f"report in {runs / 'pretest' / 'report'}" in out
    assert (runs / "pretest" / "report" / "report.md").is_file()  # where report --pretest writes
    err = cli_error(capsys, "study", "report", path)
    assert f"pretest writes {runs / 'pretest' / 'study.sqlite'} (it exists: pass --pretest)" in err
    assert err.count("--pretest") == 1
    main(["study", "export", path, "--pretest"])
    assert f"to {runs / 'pretest' / 'export'}" in capsys.readouterr().out
    main(["study", "report", path, "--pretest"])
    assert (runs / "pretest" / "report" / "report.md").is_file()
    trajectories = (runs / "pretest" / "export" / "trajectories.jsonl").read_text().splitlines()
    first = json.loads(trajectories[0])
    assert first["condition"] == first["stamp"]["condition"] in ("expert", "quiet")
    assert first["condition_name"] in ("Agent A", "Agent B")
    with open(runs / "pretest" / "export" / "responses.csv", encoding="utf-8") as f:
        played = {(r["group"], r["position"], r["condition"]) for r in csv.DictReader(f)}
    stamped = {
        (r["stamp"]["group"], str(r["stamp"]["position"]), r["condition"])
        for r in map(json.loads, trajectories)
    }
    assert stamped == played


def test_pretest_out_holds_its_database_and_export(tmp_path, capsys) -> None:
    path, folder = study_file(tmp_path), tmp_path / "pilot"
    main(["study", "pretest", path, "--participants", "2", "--out", str(folder)])
    assert (folder / "study.sqlite").is_file() and (folder / "export" / "responses.csv").is_file()
    capsys.readouterr()
    main(["study", "report", path, "--db", str(folder / "study.sqlite"), "--out", str(folder)])
    assert "expert" in capsys.readouterr().out
    err = cli_error(capsys, "study", "pretest", path, "--participants", "2", "--out", str(folder))
    assert "holds an earlier pretest: pass --overwrite" in err


# --- profiles to choose a partner from ---------------------------------------------------------


def test_profiles_list_shows_a_games_profiles(capsys) -> None:
    main(["profiles", "list", "--game", "kitchen", "--split", "test", "--task", "cramped_room"])
    out = capsys.readouterr().out
    assert "cook-cramped_room-test-13" in out and "independent_loner" in out
    assert "15 profile(s)" in out and "train" not in out.split("\n\n")[0].replace("-", "")
    main(
        [
            "profiles",
            "list",
            "--game",
            "kitchen",
            "--task",
            "cramped_room",
            "--type",
            "proactive_leader",
        ]
    )
    out = capsys.readouterr().out
    assert "proactive_leader" in out and "independent_loner" not in out
    err = cli_error(capsys, "profiles", "list", "--game", "kitchen", "--type", "grumpy")
    assert "no profiles of type 'grumpy' here; types: anxious_doubter" in err


# --- collabrl lint on a study file -------------------------------------------------------------


def test_recipe_lint_on_a_study_points_to_study_lint(tmp_path, capsys) -> None:
    path = study_file(tmp_path)
    err = cli_error(capsys, "lint", path)
    assert (
        err
        == f"error: {path} is a study file, not a recipe: check it with collabrl study lint {path}\n"
    )
    err = cli_error(capsys, "lint", "paper_user_study_cpu", "seed=1")
    assert "collabrl study lint paper_user_study_cpu seed=1" in err
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("bogus: 1\n")
    assert "study lint" not in cli_error(capsys, "lint", str(recipe))


# --- the report -------------------------------------------------------------------------------


def rows(scores, ratings, success=None):
    """Response rows of two conditions: participant i scores scores[c][i] and rates ratings[c][i]."""
    out = []
    for c in ("expert", "quiet"):
        for i, (score, rating) in enumerate(zip(scores[c], ratings[c], strict=True)):
            row = {"participant": f"p{i}", "condition": c, "score": score, "success": success}
            row.update(helpfulness=rating, trustfulness=rating, empathy=rating)
            out.append(row)
    return out


def test_the_report_never_shows_nan_nor_intervals_off_the_scale(tmp_path) -> None:
    study = compiled(study_file(tmp_path)).study
    summary = summarize(
        study,
        rows(
            {"expert": [10, 20, 0], "quiet": [5, 5, 6]}, {"expert": [5, 5, 4], "quiet": [1, 1, 2]}
        ),
    )
    table = condition_table(study, summary)
    assert "nan" not in table and "success" not in table  # the kitchen records no success
    for c in ("expert", "quiet"):
        for dim in ("helpfulness", "trustfulness", "empathy"):
            interval = summary["intervals"][c][dim]
            assert 1 <= interval.low <= interval.mean <= interval.high <= 5
    assert summary["intervals"]["expert"]["empathy"].high == 5
    assert summary["intervals"]["quiet"]["empathy"].low == 1
    assert summary["intervals"]["expert"]["score"].low < 0  # efficiency has no scale to clip to
    assert "ratings' intervals clipped to their scale (helpfulness 1-5" in method_note(summary)
    assert json.dumps(summary["success"]) == '{"expert": null, "quiet": null}'


def test_the_report_says_n_a_for_a_condition_without_success(tmp_path) -> None:
    study = compiled(study_file(tmp_path)).study
    played = rows({"expert": [1, 2], "quiet": [3, 4]}, {"expert": [3, 4], "quiet": [3, 4]})
    for row in played:
        row["success"] = True if row["condition"] == "expert" else None
    table = condition_table(study, summarize(study, played))
    assert "| success" in table and "1.00" in table and "n/a" in table and "nan" not in table


def test_a_pretest_report_of_the_kitchen_says_how_intervals_are_made(tmp_path, capsys) -> None:
    main(["study", "pretest", study_file(tmp_path), "--participants", "2"])
    out = capsys.readouterr().out
    assert "nan" not in out and "| success" not in out
    assert "Intervals: Student-t 95%; ratings' intervals clipped to their scale" in out


# --- the admin page's completion codes ---------------------------------------------------------


def test_the_admin_page_shows_completion_codes(tmp_path) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    path = study_file(tmp_path)
    run_pretest(compiled(path), tmp_path / "db.sqlite", 2, progress=False)
    app = study_app(tmp_path, path, db=tmp_path / "db.sqlite")
    with TestClient(app) as client:
        state = client.get(f"/admin/api/state?token={ADMIN}").json()
        page = client.get(f"/admin?token={ADMIN}").text
        script = client.get("/study-static/admin.js").text
    assert [p["code"] for p in state["participants"]] == ["KITCHEN-1", "KITCHEN-1"]
    assert "<th>completion code</th>" in page and "p.code" in script
