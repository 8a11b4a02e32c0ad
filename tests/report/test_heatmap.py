"""``collabrl report heatmap``: per-task x per-player-type PNGs whose cell values (also written as
CSV) are the means of episodes.csv."""

from __future__ import annotations

import csv
from collections import defaultdict

import pytest

from collabrl.report.heatmap import abbreviation
from tests.report.conftest import run_cli

PNG = b"\x89PNG\r\n\x1a\n"


def read_csv(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def by_hand(episodes, game: str, seat: str | None, metric: str, key: str) -> dict:
    """(task, column) -> mean of ``metric``, straight from episodes.csv."""
    cells = defaultdict(list)
    for e in episodes:
        if e["game"] != game or (seat is not None and e["seat"] != seat):
            continue
        if metric == "efficiency" and e["stalled"] == "True":
            continue
        column = e[key] if key == "player_type" else e["profile"].split(f"-{e['task']}-")[1]
        cells[e["task"], column].append(float(e[metric]))
    return {k: sum(v) / len(v) for k, v in cells.items()}


def test_heatmaps_per_seat_match_episodes(eval_dirs, tmp_path) -> None:
    folder = eval_dirs["trained"]
    text = run_cli("report", "heatmap", str(folder), "--out", str(tmp_path))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(
        f"heatmap_{g}_efficiency_agent{s}.{ext}"
        for g in ("household", "kitchen")
        for s in (1, 2)
        for ext in ("png", "csv")
    )
    assert text.count("wrote ") == 8
    episodes = read_csv(folder / "episodes.csv")
    for game in ("household", "kitchen"):
        for seat in (1, 2):
            png = tmp_path / f"heatmap_{game}_efficiency_agent{seat}.png"
            assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5_000
            cells = read_csv(tmp_path / f"heatmap_{game}_efficiency_agent{seat}.csv")
            expected = by_hand(episodes, game, f"Agent {seat}", "efficiency", "player_type")
            assert {(c["task"], c["column"]): float(c["mean"]) for c in cells} == pytest.approx(
                expected
            )
            assert all(c["episodes"] == "1" for c in cells)  # one profile per type here


def test_affective_heatmap_by_profile_with_seats_pooled(eval_dirs, tmp_path) -> None:
    folder = eval_dirs["random"]
    run_cli(
        "report",
        "heatmap",
        str(folder),
        "--metric",
        "affective",
        "--by",
        "profile",
        "--seat",
        "all",
        "--game",
        "kitchen",
        "--out",
        str(tmp_path),
    )
    cells = read_csv(tmp_path / "heatmap_kitchen_affective_both_seats.csv")
    expected = by_hand(read_csv(folder / "episodes.csv"), "kitchen", None, "affective", "profile")
    assert {(c["task"], c["column"]): float(c["mean"]) for c in cells} == pytest.approx(expected)
    assert all(c["episodes"] == "2" for c in cells)  # both seats
    assert [c["column"] for c in cells] == ["test-01", "test-04", "test-07"]
    assert (tmp_path / "heatmap_kitchen_affective_both_seats.png").read_bytes()[:8] == PNG


def test_default_folder_and_errors(eval_dirs) -> None:
    folder = eval_dirs["base"]
    run_cli("report", "heatmap", str(folder), "--seat", "1", "--game", "household")
    assert (folder / "figures" / "heatmap_household_efficiency_agent1.png").is_file()
    text = run_cli("report", "heatmap", str(folder), "--metric", "nonsense", code=2)
    assert "no numeric episode column 'nonsense'" in text and "helpfulness" in text


def test_player_types_are_abbreviated_as_in_the_paper() -> None:
    assert abbreviation("anxious_doubter") == "AD"
    assert abbreviation("efficient_collaborator") == "EC"
