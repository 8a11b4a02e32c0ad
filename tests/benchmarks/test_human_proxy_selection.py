"""The human-proxy seed and temperature choice: the fixed objective, and one setting played and
measured against (fixture) train humans with the shipped temperature left as it was."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import human_proxy_selection  # noqa: E402

from collabrl.envs.kitchen import human_proxy  # noqa: E402
from collabrl.envs.kitchen.human_data import read_frame, trials_of  # noqa: E402
from collabrl.envs.kitchen.human_partners import HUMAN_PARTNERS  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "human_trials"


def row(layout: str, seed: int, inside: bool, off: float, distance: float) -> dict:
    return {"layout": layout, "seed": seed, "temperature": 1.0, "inside": inside,
            "off_median": off, "distance": distance}  # fmt: skip


def test_the_choice_is_inside_the_iqr_then_nearest_the_median_then_most_human_like() -> None:
    rows = [
        row("a", 0, False, 1.0, 0.1),  # nearest the median, but outside the IQR
        row("a", 1, True, 20.0, 0.5),
        row("a", 2, True, 8.0, 0.9),
        row("a", 3, True, 8.0, 0.7),  # ties seed 2 on the median: more human-like
        row("b", 0, False, 50.0, 1.0),
        row("b", 1, False, 30.0, 2.0),  # none inside: nearest the median
    ]
    chosen = human_proxy_selection.choose(rows)
    assert (chosen["a"]["seed"], chosen["b"]["seed"]) == (3, 1)


def test_a_setting_is_played_against_the_train_humans_and_leaves_the_temperatures(
    tmp_path: Path,
) -> None:
    trials = trials_of(read_frame("train", FIXTURE), "train")
    model = human_proxy.train_proxy("forced_coordination", trials, seed=0, epochs=1, hidden=8)
    human_proxy.save_proxy(model, tmp_path)
    human_proxy.load_proxy.cache_clear()
    people = [HUMAN_PARTNERS.measure_trial(t) for t in trials]
    before = dict(human_proxy.TEMPERATURES)
    result = human_proxy_selection.setting("forced_coordination", 0, 0.3, 2, tmp_path, people)
    assert before == human_proxy.TEMPERATURES
    assert (result["layout"], result["seed"], result["temperature"]) == (
        "forced_coordination", 0, 0.3
    )  # fmt: skip
    low, mid, high = result["quartiles"]
    assert low <= mid <= high and result["inside"] == (low <= result["median"] <= high)
    assert abs(result["off_median"] - abs(result["median"] - mid)) <= 0.05  # quartiles rounded
    assert result["distance"] > 0
    human_proxy.load_proxy.cache_clear()
