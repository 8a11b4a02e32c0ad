"""``collabrl eval compare`` / ``collabrl report table``: the paper's Table 1 layout from three
evaluation folders, with the Relative Improvements row checked by hand."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from collabrl.report.table import RELATIVE, headline, relative
from tests.report.conftest import evaluate, run_cli


def read_csv(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def overall(folder, game: str, seat: int) -> dict[str, str]:
    """The Overall row of one folder's own tables.csv (what `collabrl eval` wrote)."""
    rows = read_csv(folder / "tables.csv")
    return next(
        r
        for r in rows
        if r["game"] == game and r["task"] == "Overall" and r["seat"] == f"Agent {seat}"
    )


@pytest.mark.parametrize(
    ("base", "trained", "lower", "paper"),
    [
        (84.51, 71.64, True, 0.152),  # CWAH Agent 1 Step (Table 1: 15.2%)
        (90.03, 63.65, True, 0.293),  # CWAH Agent 2 Step (29.3%)
        (33.23, 25.16, True, 0.243),  # CWAH Agent 1 Std. (24.3%)
        (0.24, 0.23, True, 0.042),  # CWAH #Tokens (4.2%)
        (1.22, 1.43, False, 0.172),  # CWAH Agent 1 Helpfulness (17.2%)
        (86.93, 99.20, False, 0.141),  # Cook Agent 1 Score (14.1%)
        (33.30, 34.03, True, -0.022),  # Cook Agent 1 Std. (-2.2%)
        (1.92, 2.26, False, 0.177),  # Cook Agent 1 Trustfulness (17.7%)
    ],
)
def test_relative_improvement_reproduces_the_papers_row(base, trained, lower, paper) -> None:
    assert round(relative(base, trained, lower), 3) == paper


def test_relative_improvement_is_empty_without_a_base() -> None:
    assert relative(0.0, 0.1, True) is None
    assert relative(None, 1.0, False) is None


# Table 1's Relative Improvements row, per game: (Step/Score, Helpfulness, Trustfulness, Empathy)
# for Agent 1 and Agent 2, and the Std. and #Tokens cells the headline leaves out
PAPER_RELATIVE = {
    "household": {
        "efficiency": (0.152, 0.293),
        "helpfulness": (0.172, 0.394),
        "trustfulness": (0.174, 0.376),
        "empathy": (0.335, 0.315),
        "std": (0.243, 0.279),
        "tokens_k": (0.042, 0.042),
    },
    "kitchen": {
        "efficiency": (0.141, 0.193),
        "helpfulness": (0.627, 0.046),
        "trustfulness": (0.177, 0.065),
        "empathy": (0.140, 0.104),
        "std": (-0.022, -0.031),
        "tokens_k": (0.0, 0.043),
    },
}


def test_headline_is_the_abstracts_19_5_and_24_4_percent() -> None:
    """The abstract's figures are plain means of Table 1's Relative Improvements cells."""
    rows = [
        {"game": game, "task": "Overall", "group": RELATIVE}
        | {
            f"{key}_agent{seat}": cells[seat - 1]
            for key, cells in by_key.items()
            for seat in (1, 2)
        }
        for game, by_key in PAPER_RELATIVE.items()
    ]
    rows.append(
        {"game": "kitchen", "task": "cramped_room", "group": RELATIVE, "efficiency_agent1": 9.0}
    )
    figures = headline(rows)
    assert round(figures["efficiency"], 3) == 0.195
    assert round(figures["affective"], 3) == 0.244


@pytest.mark.slow
def test_three_folders_make_table_1(eval_dirs, tmp_path) -> None:
    d = eval_dirs
    out = tmp_path / "table1"
    text = run_cli(
        "eval",
        "compare",
        str(d["oracle"]),
        str(d["random"]),
        str(d["trained"]),
        "--label",
        "Expert (Oracle)",
        "--label",
        "Random",
        "--label",
        "Expert",
        "--out",
        str(out),
    )
    assert text.startswith("> **PROXY") and f"wrote {out}/table.md" in text
    md = (out / "table.md").read_text(encoding="utf-8")
    assert "### CWAH-MultiPlayer (household): Table 1 layout" in md
    assert "### Cook-MultiPlayer (kitchen): per task (Table 7 layout)" in md
    header = next(line for line in md.splitlines() if line.startswith("| Method"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[:2] == ["Method", "LLMs"]
    metrics = [
        "Step ↓",
        "Std. ↓",
        "#Tokens(k, policy tokenizer) ↓",
        "Helpfulness ↑",
        "Trustfulness ↑",
        "Empathy ↑",
        "Affective ↑",
    ]
    assert cells[2:] == [f"{m} Agent {s}" for m in metrics for s in (1, 2)]
    rows = read_csv(out / "table.csv")
    table1 = [r for r in rows if r["task"] == "Overall"]
    assert [(r["game"], r["group"], r["method"]) for r in table1] == [
        (game, group, method)
        for game in ("household", "kitchen")
        for group, method in (
            ("Oracle", "Expert (Oracle)"),
            ("Base", "Random"),
            ("Trained", "Expert"),
            ("Relative Improvements", "Expert vs Random"),
        )
    ]
    # every method row holds its folder's own Overall numbers
    for r in table1[:3]:
        folder = {"Oracle": d["oracle"], "Base": d["random"], "Trained": d["trained"]}[r["group"]]
        mine = overall(folder, "household", 1)
        assert float(r["efficiency_agent1"]) == pytest.approx(float(mine["efficiency"]))
    # the relative row, by hand from the two folders' tables.csv
    for game, lower in (("household", True), ("kitchen", False)):
        rel = next(r for r in table1 if r["game"] == game and r["group"] == "Relative Improvements")
        for seat in (1, 2):
            b, t = overall(d["random"], game, seat), overall(d["trained"], game, seat)
            step_b, step_t = float(b["efficiency"]), float(t["efficiency"])
            if step_b == 0:  # no relative change from a zero base (a kitchen seat that served none)
                assert rel[f"efficiency_agent{seat}"] in ("", "None")
            else:
                by_hand = (step_b - step_t) / step_b if lower else (step_t - step_b) / step_b
                assert float(rel[f"efficiency_agent{seat}"]) == pytest.approx(by_hand)
            if float(b["std"]) > 0:
                by_hand = (float(b["std"]) - float(t["std"])) / float(b["std"])  # lower is better
                assert float(rel[f"std_agent{seat}"]) == pytest.approx(by_hand)
            for dim in ("helpfulness", "trustfulness", "empathy", "affective"):
                if float(b[dim]) > 0:
                    by_hand = (float(t[dim]) - float(b[dim])) / float(b[dim])  # higher is better
                    assert float(rel[f"{dim}_agent{seat}"]) == pytest.approx(by_hand)
            assert rel[f"tokens_k_agent{seat}"] == ""  # scripted policies: no tokens, no base
    # the expert beats random play on the household (fewer steps): a positive Step improvement
    hh = next(
        r for r in table1 if r["game"] == "household" and r["group"] == "Relative Improvements"
    )
    assert float(hh["efficiency_agent1"]) > 0
    shown = f"{float(hh['efficiency_agent1']):.1%}"
    assert any(
        line.startswith("| Relative Improvements") and shown in line for line in md.splitlines()
    )
    # the headline under the tables: the mean of the relative Step/Score cells present
    rel = [r for r in table1 if r["group"] == "Relative Improvements"]
    steps = [float(v) for r in rel for s in (1, 2) if (v := r[f"efficiency_agent{s}"])]
    line = next(line for line in md.splitlines() if line.startswith("**Headline"))
    assert f"efficiency {sum(steps) / len(steps):.1%}" in line and line in text


@pytest.mark.slow
def test_report_table_is_the_same_command_and_keeps_eval_compare_of_two(eval_dirs) -> None:
    d = eval_dirs
    a = run_cli("report", "table", str(d["base"]), str(d["trained"]), "--overall-only")
    b = run_cli("eval", "compare", str(d["base"]), str(d["trained"]), "--overall-only")
    assert a == b and "per task" not in a and "| Trained " in a
    paired = run_cli("eval", "--compare", str(d["base"]), str(d["trained"]))
    assert "paired jobs" in paired


@pytest.mark.slow
def test_base_and_trained_can_be_named(eval_dirs, tmp_path) -> None:
    d = eval_dirs
    run_cli(
        "report",
        "table",
        str(d["trained"]),
        str(d["silent"]),
        str(d["base"]),
        "--base",
        str(d["base"]),
        "--trained",
        str(d["trained"]),
        "--overall-only",
        "--out",
        str(tmp_path),
    )
    rows = [r for r in read_csv(tmp_path / "table.csv") if r["game"] == "household"]
    assert [(r["group"], r["method"]) for r in rows] == [
        ("Base", "silent"),
        ("Base", "idle"),
        ("Trained", "expert"),
        ("Relative Improvements", "expert vs idle"),
    ]
    assert "--trained" in run_cli("report", "table", str(d["base"]), "--trained", "nowhere", code=2)


@pytest.mark.slow
def test_different_settings_are_refused_unless_forced(eval_dirs, tmp_path) -> None:
    other = evaluate(tmp_path / "two_profiles", "policy.kind=expert", "max_profiles=2")
    text = run_cli("report", "table", str(eval_dirs["base"]), str(other), code=2)
    assert "evaluated under different settings (profiles: 6 vs 4" in text
    assert "--force" in text and len(text.strip().splitlines()) == 1
    forced = run_cli("report", "table", str(eval_dirs["base"]), str(other), "--force")
    assert "warning:" in forced and "| Relative Improvements" in forced


def test_a_different_judge_is_refused(eval_dirs, tmp_path) -> None:
    copy = tmp_path / "other_judge"
    shutil.copytree(eval_dirs["trained"], copy)
    results = json.loads((copy / "results.json").read_text())
    results["stamp"]["judge"] = "deepseek-v3.1"
    (copy / "results.json").write_text(json.dumps(results))
    text = run_cli("report", "table", str(eval_dirs["base"]), str(copy), code=2)
    assert "judge: heuristic-proxy vs deepseek-v3.1" in text


def test_a_folder_that_is_no_evaluation_is_one_error(tmp_path) -> None:
    text = run_cli("report", "table", str(tmp_path), code=2)
    assert "no results.json and episodes.csv" in text
