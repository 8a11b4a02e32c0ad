"""``collabrl report correlate``: Pearson's r of two evaluations' scores over their shared jobs
(Figure 3b), checked against numpy on episodes.csv."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from collabrl.report.correlate import pearson
from tests.report.conftest import run_cli

PNG = b"\x89PNG\r\n\x1a\n"


def read_csv(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_pearson_with_fisher_interval() -> None:
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0]
    r, low, high, p = pearson(x, y)
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1]) == pytest.approx(0.8)
    assert low == pytest.approx(np.tanh(np.arctanh(0.8) - 1.959964 / np.sqrt(2)), abs=1e-5)
    assert high == pytest.approx(np.tanh(np.arctanh(0.8) + 1.959964 / np.sqrt(2)), abs=1e-5)
    assert 0 < p < 0.2
    assert all(np.isnan(v) for v in pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


@pytest.mark.slow
def test_correlation_of_two_evaluations(eval_dirs, tmp_path) -> None:
    a, b = eval_dirs["trained"], eval_dirs["silent"]
    text = run_cli("report", "correlate", str(a), str(b), "--out", str(tmp_path))
    assert "Figure 3b" in text and "CWAH-MultiPlayer (household)" in text
    rows = {r["game"]: r for r in read_csv(tmp_path / "correlation.csv")}
    ea, eb = read_csv(a / "episodes.csv"), read_csv(b / "episodes.csv")
    for game in ("household", "kitchen"):
        key = ("task", "profile", "seat", "seed")
        xa = {tuple(e[k] for k in key): float(e["efficiency"]) for e in ea if e["game"] == game}
        xb = {tuple(e[k] for k in key): float(e["efficiency"]) for e in eb if e["game"] == game}
        jobs = sorted(xa)
        assert sorted(xb) == jobs and len(jobs) == 6
        r = np.corrcoef([xa[j] for j in jobs], [xb[j] for j in jobs])[0, 1]
        assert int(rows[game]["points"]) == 6
        assert float(rows[game]["pearson_r"]) == pytest.approx(r)
        assert (tmp_path / f"correlation_{game}_efficiency.png").read_bytes()[:8] == PNG
    points = read_csv(tmp_path / "correlation_points.csv")
    assert len(points) == 12 and set(points[0]) == {"game", "unit", "expert", "silent"}


def test_correlation_needs_the_same_jobs(eval_dirs, tmp_path) -> None:
    from tests.report.conftest import evaluate

    other = evaluate(tmp_path / "one_seat", "policy.kind=expert", "seats=[1]")
    text = run_cli("report", "correlate", str(eval_dirs["trained"]), str(other), code=2)
    assert "different settings (seats: 2 vs 1" in text
