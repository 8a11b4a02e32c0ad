"""``collabrl report table`` prints the reliability and robustness table (pass^k, worst partner
type, BR-Prox) for real evaluation folders, its cells checked against their episodes by hand."""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from tests.report.conftest import run_cli


@pytest.mark.slow
def test_report_table_prints_pass_k_and_the_worst_type(eval_dirs, tmp_path) -> None:
    d = eval_dirs
    out = tmp_path / "table"
    folders = [str(d["oracle"]), str(d["base"]), str(d["trained"])]
    labels = ["--label", "Oracle", "--label", "Idle", "--label", "Expert"]
    text = run_cli("report", "table", *folders, *labels, "--out", str(out))
    assert "### CWAH-MultiPlayer (household): reliability and robustness" in text
    with open(out / "reliability.csv", newline="", encoding="utf-8") as f:
        rows = {(r["game"], r["method"], r["seat"]): r for r in csv.DictReader(f)}
    with open(d["trained"] / "episodes.csv", newline="", encoding="utf-8") as f:
        episodes = [r for r in csv.DictReader(f) if r["game"] == "household"]
    # one seed: pass^1 is the success rate; the worst type the one with the most steps
    mine = rows["household", "Expert", "Agent 1"]
    seat = [r for r in episodes if r["seat"] == "Agent 1"]
    assert float(mine["pass^1"]) == sum(r["success"] == "True" for r in seat) / len(seat)
    steps = defaultdict(list)
    for r in seat:
        steps[r["player_type"]].append(float(r["efficiency"]))
    means = {t: sum(v) / len(v) for t, v in sorted(steps.items())}
    assert mine["worst_type"] == max(means, key=lambda t: means[t])
    overall = sum(float(r["efficiency"]) for r in seat) / len(seat)
    drop = (means[mine["worst_type"]] - overall) / overall
    assert float(mine["worst_type_drop"]) == pytest.approx(drop)
    # BR-Prox: the idle agent leaves the work to its partner, slower than the expert's team
    idle = rows["household", "Idle", "Agent 1"]
    assert 0 < float(idle["br_prox"]) < float(mine["br_prox"]) <= 1.0


def test_a_pass_k_beyond_the_seeds_is_one_error(eval_dirs) -> None:
    text = run_cli("report", "table", str(eval_dirs["base"]), "--pass-k", "3", code=2)
    assert (
        "error: pass^3 needs 3 trials (seeds) of a job; the household jobs have at most 1" in text
    )
