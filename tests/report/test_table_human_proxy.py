"""``collabrl report table`` with an evaluation beside the human proxy: its own row group, the
held-out human-like partner, joined with folders evaluated beside persona partners."""

from __future__ import annotations

import csv
from pathlib import Path
from statistics import mean

import pytest

from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.report.table import HELD_OUT, HELD_OUT_NOTE
from tests.report.conftest import evaluate, run_cli

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def beside_proxy(tmp_path_factory) -> Path:
    """The expert evaluated on cramped_room beside a tiny human proxy (the kitchen only)."""
    root = tmp_path_factory.mktemp("beside_proxy")
    trials = trials_of(read_frame("test", FIXTURE), "test")
    mine = [t for t in trials if t.layout == "cramped_room"]
    save_proxy(train_proxy("cramped_room", mine, epochs=5, hidden=8), root / "proxies")
    return evaluate(
        root / "eval",
        "policy.kind=expert",
        "games=[kitchen]",
        "tasks=[cramped_room]",
        "partner.kind=human_proxy",
        f"partner.proxies={root / 'proxies'}",
    )


@pytest.mark.slow
def test_the_human_proxy_evaluation_is_a_row_of_its_own(eval_dirs, beside_proxy, tmp_path):
    d = eval_dirs
    text = run_cli(
        "report",
        "table",
        str(d["base"]),
        str(beside_proxy),
        str(d["trained"]),
        "--label",
        "Idle",
        "--label",
        "Expert",
        "--label",
        "Expert",
        "--out",
        str(tmp_path),
    )
    assert HELD_OUT_NOTE in text
    rows = read_csv(tmp_path / "table.csv")
    overall = [(r["game"], r["group"], r["method"]) for r in rows if r["task"] == "Overall"]
    assert overall == [
        ("household", "Base", "Idle"),
        ("household", "Trained", "Expert"),
        ("household", "Relative Improvements", "Expert vs Idle"),
        ("kitchen", "Base", "Idle"),
        ("kitchen", "Trained", "Expert"),
        ("kitchen", HELD_OUT, "Expert"),
        ("kitchen", "Relative Improvements", "Expert vs Idle"),
    ]
    held_out = next(r for r in rows if r["task"] == "Overall" and r["group"] == HELD_OUT)
    episodes = read_csv(beside_proxy / "episodes.csv")
    for seat in (1, 2):
        scores = [float(e["efficiency"]) for e in episodes if e["seat"] == f"Agent {seat}"]
        assert scores  # the policy in either seat, beside the proxy in the other
        assert float(held_out[f"efficiency_agent{seat}"]) == pytest.approx(mean(scores))
    legend = next(line for line in text.splitlines() if str(beside_proxy) in line)
    assert "beside the held-out human proxy" in legend
    # the reliability table compares only the folders beside the table's own partners
    methods = {r["method"] for r in read_csv(tmp_path / "reliability.csv")}
    assert methods == {"Idle", "Expert"}


@pytest.mark.slow
def test_the_human_proxy_evaluation_is_never_the_relative_rows_trained(
    eval_dirs, beside_proxy
) -> None:
    text = run_cli(
        "report",
        "table",
        str(eval_dirs["base"]),
        str(beside_proxy),
        "--trained",
        str(beside_proxy),
        code=2,
    )
    assert "is beside the human proxy" in text and len(text.strip().splitlines()) == 1
