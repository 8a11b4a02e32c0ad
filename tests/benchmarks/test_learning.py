"""The learning benchmark's report and verdicts on constructed episodes (no training)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import learning  # noqa: E402


def episodes(efficiency: float, messages: float, n: int = 6) -> list[dict[str, Any]]:
    """``n`` jobs; each policy's rows differ from its mean by the same job-wise offsets."""
    return [
        {
            "game": "household",
            "task": f"t{i}",
            "profile": "p",
            "seat": 1,
            "seed": 0,
            "efficiency_reward": efficiency + 0.01 * (i % 3),
            "success": True,
            "message_ratio": messages + 0.01 * (i % 2),
            "valid_rate": 1.0,
        }
        for i in range(n)
    ]


def seed_result(hybrid_msg: float, silent_msg: float, added_msg: float) -> dict[str, Any]:
    signal = {"nonzero_gradient": 1.0}
    return {
        "episodes": {
            learning.SFT: episodes(0.20, 0.20),
            learning.FULL: episodes(0.30, hybrid_msg),
            learning.SILENT: episodes(0.25, silent_msg),
            "omega 4": episodes(0.15, added_msg),
            learning.FLOOR: episodes(0.05, 0.0),
            learning.CEILING: episodes(0.45, 0.3),
        },
        "signal": {learning.FULL: signal, learning.SILENT: signal, "omega 4": signal},
    }


def test_an_added_arm_gets_its_own_verdicts() -> None:
    arms = [*learning.ARMS, "omega 4"]
    # seed 0: w/o quieter than both; seed 1: louder than the hybrid, quieter than the added arm
    results = {0: seed_result(0.3, 0.2, 0.4), 1: seed_result(0.1, 0.2, 0.4)}
    lines = learning.report(results, arms)
    assert "hybrid reward above SFT on held-out efficiency reward in 2/2 seeds" in lines[0]
    assert lines[4] == "w/o affective ends quieter than the full reward in 1/2 seeds"
    assert lines[5].startswith(
        "omega 4: above SFT on efficiency reward in 0/2 seeds; pooled -0.050"
    )
    assert lines[6] == "w/o affective ends quieter than omega 4 in 2/2 seeds"


def test_without_added_arms_the_verdicts_are_the_five_claims() -> None:
    lines = learning.report({0: seed_result(0.3, 0.2, 0.4)}, list(learning.ARMS), "training")
    assert len(lines) == 5
    assert lines[0].startswith("hybrid reward above SFT on training efficiency reward in 1/1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("omega 4=algo.omega=4", ("omega 4", ("algo.omega=4",))),
        ("x=algo.omega=4 algo.lr=2e-4", ("x", ("algo.omega=4", "algo.lr=2e-4"))),
    ],
)
def test_arm_text_splits_label_and_overrides(text: str, expected: tuple[str, Any]) -> None:
    assert learning.extra_arm(text) == expected


@pytest.mark.parametrize("text", ["algo.omega", "=algo.omega=4", "SFT + GiGPO=algo.omega=4"])
def test_an_arm_without_a_new_label_is_refused(text: str) -> None:
    with pytest.raises(SystemExit, match="LABEL=OVERRIDES"):
        learning.extra_arm(text)


def test_beside_the_human_proxy_each_arm_is_compared_with_sft_per_seed_and_pooled() -> None:
    arms = list(learning.ARMS)
    results = {}
    for seed, hybrid in [(0, 0.30), (1, 0.16)]:  # above SFT (0.20) in seed 0, below in seed 1
        result = seed_result(0.3, 0.2, 0.4)
        result["human_proxy"] = {
            learning.SFT: episodes(0.20, 0.1),
            learning.FULL: episodes(hybrid, 0.1),
            learning.SILENT: episodes(0.22, 0.1),
            learning.FLOOR: episodes(0.05, 0.0),
            learning.CEILING: episodes(0.45, 0.3),
        }
        results[seed] = result
    lines = learning.proxy_report(results, arms)
    assert lines[0].startswith(
        "beside the human proxy, SFT + GiGPO above SFT on efficiency reward in 1/2 seeds; "
        "pooled 0.030"
    )
    assert lines[1].startswith(
        "beside the human proxy, SFT + GiGPO w/o affective above SFT on efficiency reward in "
        "2/2 seeds; pooled 0.020"
    )


def test_a_game_without_success_says_so_instead_of_failing() -> None:
    result = seed_result(0.3, 0.2, 0.4)
    for rows in result["episodes"].values():
        for row in rows:
            del row["success"]  # the kitchen's episodes have a score, not a success
    lines = learning.report({0: result}, list(learning.ARMS))
    assert (
        lines[1]
        == "success: not measured (the game's episodes have no success, e.g. the kitchen's score)"
    )


def test_the_proxy_jobs_vary_the_episode_seed_not_the_profile_it_ignores() -> None:
    plan = learning.QuickstartPlan(out=Path("unused"), eval_profiles=3)
    assert learning.beside_proxy(plan) == (
        "eval.partner.kind=human_proxy",
        "eval.max_profiles=1",
        "eval.seeds=[0, 1, 2]",
    )
