"""Can a PCA of DiscoveryBench's archaeology table reach the golds of its PCA queries?

Tasks 15-21 of the real archaeology subset state signs of time slices or of attributes on the
first two principal components of ``capital.csv`` (the forms of capital, one row per 100-year
slice). A principal component's sign is arbitrary, so this script runs the PCA (centred; with
``--scaled`` also each attribute at unit variance) and tests each gold's claims under all four
sign choices of PC1 and PC2. A gold no sign choice satisfies cannot be reached by analysis of this
table, whatever the analyst does; task 22 (attributes "between" two groups) is not a sign claim
and is left out.

    python benchmarks/discoverybench_pca.py --root PATH/discoverybench/real/test [--scaled]
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

Scores = dict[int, np.ndarray]  # a slice's year (BCE) -> its (PC1, PC2) scores
Loadings = dict[str, np.ndarray]  # an attribute -> its (PC1, PC2) loadings


def _years(first: int, last: int) -> range:
    return range(first, last - 1, -100)


def _mostly(values: list[float], positive: bool) -> bool:
    return sum((v > 0) == positive for v in values) > len(values) / 2


def _pc(scores: Scores, years: range, pc: int) -> list[float]:
    return [float(scores[y][pc]) for y in years]


CLAIMS: dict[int, tuple[str, Callable[[Scores, Loadings], bool]]] = {
    15: (
        "4000-3600 BCE mostly PC1 > 0; 3500 BCE PC1 < 0",
        lambda s, _: _mostly(_pc(s, _years(4000, 3600), 0), True) and s[3500][0] < 0,
    ),
    16: (
        "3400-2300 BCE mostly PC1 < 0",
        lambda s, _: _mostly(_pc(s, _years(3400, 2300), 0), False),
    ),
    17: (
        "2200-1700 BCE mostly PC2 > 0 and mostly PC1 < 0; 1700 BCE PC1 > 0 and PC2 < 0",
        lambda s, _: (
            _mostly(_pc(s, _years(2200, 1700), 1), True)
            and _mostly(_pc(s, _years(2200, 1700), 0), False)
            and s[1700][0] > 0
            and s[1700][1] < 0
        ),
    ),
    18: (
        "1600-1500 BCE PC1 > 0; 1400-1200 BCE PC1 < 0",
        lambda s, _: (
            all(v > 0 for v in _pc(s, _years(1600, 1500), 0))
            and all(v < 0 for v in _pc(s, _years(1400, 1200), 0))
        ),
    ),
    19: (
        "1100 BCE PC1 < 0; 1000-500 BCE mostly PC1 > 0",
        lambda s, _: s[1100][0] < 0 and _mostly(_pc(s, _years(1000, 500), 0), True),
    ),
    20: (
        "monuments, copper/gold, amber: loadings < 0 on PC1 and PC2",
        lambda _, w: all((w[a] < 0).all() for a in ("ZMonument", "ZCU_AU", "Zamber")),
    ),
    21: (
        "house size, daggers, hatchets/swords: loadings < 0 on PC1",
        lambda _, w: all(w[a][0] < 0 for a in ("Zhausgr", "ZDolch", "ZAxtSchwert")),
    ),
}


def pca(frame: pd.DataFrame, scaled: bool) -> tuple[Scores, Loadings]:
    """The first two components of the attribute columns (``Z...``), signs as the SVD gives."""
    attributes = [c for c in frame.columns if c.startswith("Z")]
    x = frame[attributes].to_numpy(dtype=float)
    x = x - x.mean(axis=0)
    if scaled:
        x = x / x.std(axis=0, ddof=1)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    scores = x @ vt[:2].T
    years = frame["BCE"].astype(int)
    return (
        {int(y): scores[i] for i, y in enumerate(years)},
        {a: vt[:2, j] for j, a in enumerate(attributes)},
    )


SIGNS = list(itertools.product((1, -1), repeat=2))


def holds_under_signs(scores: Scores, loadings: Loadings) -> dict[int, list[bool]]:
    """Per task, whether its claim holds under each sign choice of (PC1, PC2) in ``SIGNS``."""
    out = {}
    for task, (_, holds) in CLAIMS.items():
        marks = []
        for sign in SIGNS:
            flip = np.array(sign, dtype=float)
            flipped = {y: v * flip for y, v in scores.items()}
            marks.append(holds(flipped, {a: w * flip for a, w in loadings.items()}))
        out[task] = marks
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--scaled", action="store_true")
    args = parser.parse_args()
    frame = pd.read_csv(args.root / "archaeology" / "capital.csv", decimal=",")
    marks = holds_under_signs(*pca(frame, args.scaled))
    print(f"PCA of capital.csv ({'scaled' if args.scaled else 'centred'}): {len(frame)} slices")
    head = " | ".join(f"PC1 {a:+d}, PC2 {b:+d}" for a, b in SIGNS)
    print(f"| task | the gold's claim | {head} | reachable |")
    print("|---|---|" + "---|" * (len(SIGNS) + 1))
    for task, (claim, _) in CLAIMS.items():
        cells = " | ".join("yes" if m else "no" for m in marks[task])
        print(f"| {task} | {claim} | {cells} | {'yes' if any(marks[task]) else '**no**'} |")
    best = max(sum(m[i] for m in marks.values()) for i in range(len(SIGNS)))
    print(f"one sign choice for the table satisfies at most {best} of {len(CLAIMS)} golds")


if __name__ == "__main__":
    main()
