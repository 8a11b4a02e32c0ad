"""``collabrl report spread``: Spread and Cluster_xi (Table 9, Figure 3a) of the shipped profile
library and of an evaluation's partner segments."""

from __future__ import annotations

import csv
import importlib.util
import json

import numpy as np
import pytest

from collabrl.pipeline.embed import HashingEmbedder
from collabrl.report.spread import measures, profile_texts, rows_for
from tests.report.conftest import run_cli

PNG = b"\x89PNG\r\n\x1a\n"


def test_measures_follow_the_papers_definitions() -> None:
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.01]])
    m = measures(x, ["a", "a", "b"], xi=0.1)
    centroid = x.mean(axis=0)
    by_hand = np.mean([1 - v @ centroid / np.linalg.norm(v) / np.linalg.norm(centroid) for v in x])
    assert m["spread"] == pytest.approx(by_hand)
    pairs = [(0, 1), (0, 2), (1, 2)]
    cos = [x[i] @ x[j] / np.linalg.norm(x[i]) / np.linalg.norm(x[j]) for i, j in pairs]
    assert m["pairwise"] == pytest.approx(np.mean([1 - c for c in cos]))
    assert m["cluster_xi"] == 2  # rows 0 and 2 are within 0.1 of each other
    assert m["cluster_xi_task_mean"] == 1.5 and m["tasks"] == 2
    assert m["spread_task_mean"] == pytest.approx(1 - np.cos(np.pi / 4))  # task "a" alone


# Pinned for the bundled hashing embedder on the shipped library; re-pin when the library's
# household or kitchen profiles change (collabrl/data/profiles/*.jsonl).
PINNED = {
    "household/test": {"items": 150, "spread": 0.2476, "pairwise": 0.4367, "cluster_xi": 150},
    "kitchen/test": {"items": 75, "spread": 0.2420, "pairwise": 0.4312, "cluster_xi": 75},
}


def test_profile_library_spread_is_pinned_for_the_bundled_embedder() -> None:
    items = profile_texts(["household", "kitchen"], ["test"])
    rows, vectors = rows_for(items, HashingEmbedder())
    got = {r["group"]: r for r in rows}
    assert set(got) == set(PINNED) and vectors.shape == (225, 512)
    for group, pinned in PINNED.items():
        for key, value in pinned.items():
            assert got[group][key] == pytest.approx(value, abs=5e-5), (group, key)


@pytest.mark.slow
def test_spread_command_on_the_library(tmp_path) -> None:
    text = run_cli(
        "report",
        "spread",
        "--embedder",
        "hashing",
        "--game",
        "kitchen",
        "--text",
        "behavior",
        "--out",
        str(tmp_path),
        "--scatter",
        str(tmp_path / "scatter.png"),
    )
    assert "### Profile-library spread (behavior texts)" in text
    assert "kitchen/test" in text and "household" not in text
    with open(tmp_path / "spread.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["group"] for r in rows] == ["kitchen/test", "kitchen/train"]
    assert all(r["embedder"] == "hashing-512" and r["items"] == "75" for r in rows)
    assert (tmp_path / "scatter.png").read_bytes()[:8] == PNG


def test_partner_segments_of_evaluations(eval_dirs, tmp_path) -> None:
    folders = [eval_dirs["trained"], eval_dirs["random"]]
    run_cli(
        "report",
        "spread",
        *map(str, folders),
        "--label",
        "expert",
        "--label",
        "random",
        "--embedder",
        "hashing",
        "--out",
        str(tmp_path),
        "--scatter",
        str(tmp_path / "segments.png"),
    )
    with open(tmp_path / "spread.csv", newline="") as f:
        rows = {r["group"]: r for r in csv.DictReader(f)}
    assert set(rows) == {f"{f}/{g}" for f in ("expert", "random") for g in ("household", "kitchen")}
    for label, folder in zip(("expert", "random"), folders, strict=True):
        records = [json.loads(line) for line in (folder / "trajectories.jsonl").open()]
        for game in ("household", "kitchen"):
            windows = sum(
                sum(1 for t in r["turns"] if t["seat"] != r["seat_name"]) // 3
                for r in records
                if r["game"] == game
            )
            assert int(rows[f"{label}/{game}"]["items"]) == windows > 0
    assert (tmp_path / "segments.png").read_bytes()[:8] == PNG


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed here",
)
def test_a_named_model_without_sentence_transformers_is_one_error() -> None:
    text = run_cli("report", "spread", "--embedder", "Qwen/Qwen3-Embedding-4B", code=2)
    assert "needs sentence-transformers" in text
