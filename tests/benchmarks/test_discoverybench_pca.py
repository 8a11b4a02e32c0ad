"""The PCA-gold check on constructed tables (the real table is not shipped)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import discoverybench_pca  # noqa: E402

YEARS = list(range(4300, 400, -100))


def test_a_slice_pattern_that_changes_sign_is_reachable_under_exactly_its_sign() -> None:
    pc1 = {y: 1.0 if y in (1600, 1500) else -1.0 if y in (1400, 1300, 1200) else 0.1 for y in YEARS}
    scores = {y: np.array([v, 0.0]) for y, v in pc1.items()}
    social, symbolic = ("ZMonument", "ZCU_AU", "Zamber"), ("Zhausgr", "ZDolch", "ZAxtSchwert")
    loadings = {a: np.array([1.0, 1.0]) for a in social + symbolic}
    marks = discoverybench_pca.holds_under_signs(scores, loadings)
    assert marks[18] == [True, True, False, False]  # PC1 as given, either PC2
    assert marks[20] == [False, False, False, True]  # both components flipped
    assert marks[21] == [False, False, True, True]  # PC1 flipped
    assert not any(marks[19])  # 1100 and 1000-500 share a sign: no flip separates them


def test_the_pca_scores_follow_the_one_direction_the_table_varies_in() -> None:
    t = np.linspace(-1.0, 1.0, len(YEARS))
    frame = pd.DataFrame({"BCE": YEARS, "ZA": 2 * t, "ZB": -t, "ZC": 0.01 * np.cos(9 * t)})
    scores, loadings = discoverybench_pca.pca(frame, scaled=False)
    first = np.array([scores[y][0] for y in YEARS])
    assert abs(np.corrcoef(first, t)[0, 1]) > 0.999
    assert abs(loadings["ZA"][0] / loadings["ZB"][0] + 2) < 1e-6
