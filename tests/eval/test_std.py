"""The Std. column as the paper computes it, pinned to the paper's own printed rows: Cook's
Overall Std. (Tables 1 and 7) is the mean of the five per-layout sample stds, CWAH's pools every
trajectory (Table 6 -> Table 1), and the non-LLM baselines' Total (Tables 4-5) is the mean of the
per-task stds."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from collabrl.envs.registry import get_game
from collabrl.eval.std import efficiency_std, mean_of_task_stds, task_std
from collabrl.report.baselines import build
from collabrl.report.folders import EvalFolder

PROFILES = 15  # partner profiles per task and layout in the paper's evaluation


def profile_scores(mean: float, std: float, ddof: int) -> list[float]:
    """Fifteen profile means with exactly this ``mean`` and ``std`` (``ddof`` degrees of
    freedom): the paper prints a task's mean and Std.; these stand for its fifteen profiles."""
    base = list(range(PROFILES))
    spread = statistics.stdev(base) if ddof else statistics.pstdev(base)
    centre = statistics.mean(base)
    return [mean + std * (b - centre) / spread for b in base]


def tasks_of(means: list[float], stds: list[float], ddof: int) -> dict[str, list[float]]:
    """Per printed task row (mean, Std.), fifteen profile means that reproduce it."""
    rows = zip(means, stds, strict=True)
    return {str(i): profile_scores(m, s, ddof) for i, (m, s) in enumerate(rows)}


# Table 7, Agent 1, per layout (asymmetric_advantages, coordination_ring, counter_circuit,
# cramped_room, forced_coordination): (Score, Std.) of the rows whose Table 1 Std. is printed
COOK_AGENT1 = {
    "Oracle": ([308.00, 112.00, 114.67, 46.67, 136.00], [32.78, 79.57, 52.63, 36.77, 63.34], 53.02),
    "DeepSeek-V3.1": (
        [300.00, 113.33, 121.33, 38.67, 109.33],
        [30.24, 65.32, 41.03, 28.75, 36.15],
        40.30,
    ),
    "Qwen2.5-7B": (
        [186.67, 90.67, 93.33, 30.67, 33.33],
        [40.47, 51.20, 40.47, 14.86, 19.52],
        33.30,
    ),
    "Trained": ([197.33, 98.67, 116.00, 40.00, 44.00], [59.94, 40.33, 33.12, 15.12, 21.65], 34.03),
}


@pytest.mark.parametrize("row", list(COOK_AGENT1))
def test_cook_overall_std_is_the_mean_of_the_layout_stds(row: str) -> None:
    means, stds, printed = COOK_AGENT1[row]
    section = get_game("kitchen")
    by_layout = tasks_of(means, stds, section.task_std_ddof)
    overall = efficiency_std(by_layout, section.task_std_ddof, section.overall_std)
    assert round(overall, 2) == printed
    assert round(mean_of_task_stds(stds), 2) == printed
    pooled = efficiency_std(by_layout, 0, "pooled")  # collabrl's old Overall: about twice as much
    assert pooled > 1.5 * printed


@pytest.mark.parametrize(
    ("mean", "std"),
    [(308.00, 32.78), (112.00, 79.57), (124.00, 76.42), (300.00, 30.24), (113.33, 65.32)],
)
def test_cook_layout_stds_are_sample_stds(mean: float, std: float) -> None:
    """A Cook score is a multiple of 20 (one soup), so fifteen profiles' sum of squared soup
    counts is a whole number: only the sample std (ddof 1) of Table 7's rows makes it one."""
    soups = round(mean * PROFILES / 20)

    def squares(ddof: int) -> float:
        return std**2 * (PROFILES - ddof) / 400 + soups**2 / PROFILES

    assert squares(1) == pytest.approx(round(squares(1)), abs=0.03)
    assert abs(squares(0) - round(squares(0))) > 0.1
    assert get_game("kitchen").task_std_ddof == 1


# Table 6, Oracle rows, per task in the paper's order: Step and Std. of Agent 1 and Agent 2
CWAH_ORACLE = {
    1: (
        [88.40, 71.93, 62.60, 53.47, 56.40, 44.47, 38.87, 74.33, 69.20, 49.47],
        [14.56, 11.11, 37.68, 9.41, 6.72, 20.44, 9.77, 13.57, 14.50, 8.27],
        22.26,
    ),
    2: (
        [85.20, 75.47, 65.53, 54.87, 58.27, 49.73, 38.93, 78.13, 43.07, 53.73],
        [14.28, 12.04, 27.63, 9.29, 8.68, 12.58, 11.56, 48.66, 7.78, 11.25],
        25.01,
    ),
}


@pytest.mark.parametrize("seat", [1, 2])
def test_cwah_overall_std_pools_every_trajectory(seat: int) -> None:
    means, stds, printed = CWAH_ORACLE[seat]
    section = get_game("household")
    by_task = tasks_of(means, stds, section.task_std_ddof)
    assert section.overall_std == "pooled" and section.task_std_ddof == 0
    overall = efficiency_std(by_task, section.task_std_ddof, section.overall_std)
    assert overall == pytest.approx(printed, abs=0.01)  # from Table 6's rounded cells
    for i, s in enumerate(stds):  # each task's row is its own population std
        assert task_std(by_task[str(i)], 0) == pytest.approx(s)


def test_one_task_gives_its_own_std_under_either_rule() -> None:
    scores = {"only": [40.0, 60.0, 80.0]}
    assert efficiency_std(scores, 1, "task_mean") == efficiency_std(scores, 1, "pooled") == 20.0
    assert task_std([40.0], 1) is None and task_std([40.0], 0) == 0.0
    assert mean_of_task_stds([None, None]) is None


# Table 4, MHP, per task: Std. of Agent 1 and Agent 2; Total 8.44 and 11.34
MHP_STD = {
    1: [7.50, 10.07, 7.96, 6.29, 6.53, 9.86, 7.52, 12.10, 8.02, 8.51],
    2: [15.03, 14.40, 7.96, 11.39, 7.27, 14.92, 8.85, 11.72, 10.24, 11.63],
}
MHP_TOTAL = {1: 8.44, 2: 11.34}


def test_baselines_total_std_is_the_mean_of_the_task_stds() -> None:
    """Table 4's Total from its ten per-task rows, through the Tables 4-5 report; the folder's
    own Overall Std. (pooled for CWAH) is not what Total prints."""
    tasks = get_game("household").tasks("test")
    tables = [
        {"game": "household", "task": task, "seat": f"Agent {seat}", "efficiency": 60.0, "std": s}
        for seat, stds in MHP_STD.items()
        for task, s in zip(tasks, stds, strict=True)
    ]
    tables += [
        {"game": "household", "task": "Overall", "seat": f"Agent {seat}", "efficiency": 66.0}
        | {"std": 99.0}
        for seat in MHP_STD
    ]
    folder = EvalFolder(
        path=Path("mhp"),
        stamp={},
        tables=tables,
        episodes=[{"game": "household"}],
        label="MHP",
    )
    total = build([folder])[-1]
    assert total["task"] == "Total"
    for seat, printed in MHP_TOTAL.items():
        assert round(total[f"MHP std agent{seat}"], 2) == printed
        assert total[f"MHP efficiency agent{seat}"] == 66.0
    assert not math.isnan(total["MHP std agent1"])
