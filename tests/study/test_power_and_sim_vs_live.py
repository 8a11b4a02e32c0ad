"""A power analysis from the pretest and the pretest's participants against the live ones for one
protocol (issue 49, item 7)."""

from __future__ import annotations

import math
import re

import pytest

from collabrl.cli import main
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import response_rows
from collabrl.study.results.power import needed, power_rows, t_test_power
from collabrl.study.results.sim_vs_live import compare, welch_difference
from collabrl.study.store.db import open_database
from tests.study.helpers import compiled

STUDY = "chat_rounds_study"


def test_participants_needed_match_the_textbook_figures() -> None:
    """d = 0.5 at alpha .05 and power .8: 34 for a paired t-test, 64 per group for two groups
    (Cohen's tables, G*Power); the power at that n reaches the target, one fewer does not."""
    assert needed(0.5, paired=True, alpha=0.05, power=0.8) == 34
    assert needed(0.5, paired=False, alpha=0.05, power=0.8) == 64
    assert t_test_power(0.5, 33, True, 0.05) < 0.8 <= t_test_power(0.5, 34, True, 0.05)
    assert needed(1e-4, paired=True, alpha=0.05, power=0.8) is None  # beyond any study


def test_welch_difference_matches_a_hand_computed_interval() -> None:
    diff = welch_difference([1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.5])
    assert diff.mean == pytest.approx(1.125)
    assert (diff.low, diff.high) == pytest.approx((-1.302097, 3.552097), abs=1e-6)
    assert math.isnan(welch_difference([1.0], [2.0, 3.0]).mean)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A pretest of 8 and, standing for the live study, 4 more simulated participants in the
    live database of the same protocol."""
    out = tmp_path_factory.mktemp("sim")
    study = compiled(STUDY, f"output_dir={out}")
    run_pretest(study, out / "pretest" / "study.sqlite", 8, progress=False)
    run_pretest(study, out / "study.sqlite", 4, progress=False)
    rows = {}
    for name, path in (("sim", out / "pretest" / "study.sqlite"), ("live", out / "study.sqlite")):
        db = open_database(study.loaded, path, writing=False)
        rows[name] = response_rows(study.loaded, db)
        db.close()
    return out, study, rows


def test_power_rows_use_the_pretests_spread(runs) -> None:
    _, study, rows = runs
    found = {r.measure: r for r in power_rows(study.study, rows["sim"], 0.5, 0.05, 0.8)}
    assert set(found) == {"turns", "helpfulness", "empathy", "trustfulness"}
    helpful = found["helpfulness"]
    assert (helpful.a, helpful.b, helpful.design) == ("warm", "terse", "within")
    assert helpful.d == pytest.approx(0.5 / helpful.sd)
    assert helpful.total == needed(helpful.d, True, 0.05, 0.8)


def test_sim_vs_live_compares_every_condition_and_measure(runs) -> None:
    _, study, rows = runs
    found = compare(study.study, rows["sim"], rows["live"])
    assert [(c.condition, c.measure) for c in found][:2] == [
        ("warm", "turns"),
        ("warm", "helpfulness"),
    ]
    assert len(found) == 8
    assert all(c.simulated.n == 8 and c.live.n == 4 for c in found)
    for c in found:
        if not math.isnan(c.difference.low):
            assert c.difference.low <= c.live.mean - c.simulated.mean <= c.difference.high


def test_the_commands_print_the_tables_and_refuse_another_protocol(runs, capsys) -> None:
    out, _, _ = runs
    main(["study", "power", STUDY, f"output_dir={out}", "--effect", "0.5"])
    text = capsys.readouterr().out
    assert "difference of 0.5 (two-sided t-test, alpha 0.05, power 0.8)" in text
    assert re.search(r"\| helpfulness +\| warm vs terse +\| [\d.]+ +\| [\d.]+ +\| \d+ ", text)
    main(["study", "sim-vs-live", STUDY, f"output_dir={out}"])
    text = capsys.readouterr().out
    assert "simulated against live" in text and re.search(r"\| warm +\| helpfulness +\| ", text)
    with pytest.raises(SystemExit):
        main(["study", "sim-vs-live", STUDY, f"output_dir={out}", "title=Another"])
    assert "not this one" in capsys.readouterr().err
