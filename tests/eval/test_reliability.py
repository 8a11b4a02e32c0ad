"""Reliability and robustness metrics against hand-computed values: tau-bench's pass^k,
tau-Trait's player-type drops, the worst type, and ZSC-Eval-style BR-Prox."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from collabrl.errors import CollabrlError
from collabrl.eval import reliability_table
from collabrl.eval.reliability import (
    best_responses,
    br_proximity,
    default_ks,
    held_out_partner,
    partner_type,
    pass_hat_k,
    pass_k,
    type_drops,
    worst_type,
)


def episode(profile: str, player_type: str, seed: int, success: bool, steps: float, **extra):
    """One episodes.csv row as the CSV reader gives it (every value a string)."""
    return {
        "game": "household",
        "task": "0_read_book",
        "profile": profile,
        "player_type": player_type,
        "seat": "Agent 1",
        "seed": str(seed),
        "efficiency": str(steps),
        "success": str(success),
        "stalled": str(extra.get("stalled", False)),
    }


# job p1 (a hesitant partner): 2 of 3 seeds succeed, steps 30, 40, 50;
# job p2 (an efficient partner): 3 of 3, steps 20 each. Overall mean steps: 180 / 6 = 30.
ROWS = [
    episode("p1", "hesitant_laggard", 0, True, 30),
    episode("p1", "hesitant_laggard", 1, True, 40),
    episode("p1", "hesitant_laggard", 2, False, 50),
    *(episode("p2", "efficient_collaborator", s, True, 20) for s in range(3)),
]


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    assert pass_hat_k(3, 2, 1) == pytest.approx(2 / 3)
    assert pass_hat_k(3, 2, 2) == pytest.approx(1 / 3)  # C(2,2) / C(3,2)
    assert pass_hat_k(3, 2, 3) == 0.0
    assert pass_hat_k(8, 6, 4) == pytest.approx(15 / 70)  # C(6,4) / C(8,4)
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_hat_k(3, 2, 4)


def test_pass_k_averages_jobs_with_a_t_interval() -> None:
    assert pass_k(ROWS, 1).mean == pytest.approx(5 / 6)  # (2/3 + 1) / 2
    two = pass_k(ROWS, 2)
    assert (two.n, two.mean) == (2, pytest.approx(2 / 3))  # (1/3 + 1) / 2
    # values 1/3 and 1: sem 1/3; 2/3 -/+ 12.7 / 3, clipped to a probability's [0, 1]
    assert (two.low, two.high) == (0.0, 1.0)
    # six one-trial jobs, five successes: sd sqrt(1/6), sem 1/6
    six = pass_k([episode(f"q{i}", "x", 0, i < 5, 9) for i in range(6)], 1)
    assert six.mean == pytest.approx(5 / 6)
    assert six.low == pytest.approx(5 / 6 - float(stats.t.ppf(0.975, 5)) / 6)
    assert six.high == 1.0
    assert pass_k(ROWS, 3).mean == pytest.approx(0.5)
    assert math.isnan(pass_k(ROWS, 4).mean)  # no job has four trials
    assert default_ks(ROWS) == (1, 3)


def test_a_stalled_episode_is_a_failed_trial() -> None:
    rows = [*ROWS[3:5], episode("p2", "efficient_collaborator", 2, True, 20, stalled=True)]
    assert pass_k(rows, 1).mean == pytest.approx(2 / 3)


def test_player_type_drops_against_the_mean() -> None:
    drops = type_drops(ROWS, lower_is_better=True)
    # hesitant: (30-30)/30, (40-30)/30, (50-30)/30 -> mean 1/3 (more steps: worse)
    assert drops["hesitant_laggard"].mean == pytest.approx(1 / 3)
    assert drops["hesitant_laggard"].high == pytest.approx(
        1 / 3 + float(stats.t.ppf(0.975, 2)) * (1 / 3) / math.sqrt(3)
    )
    assert drops["efficient_collaborator"].mean == pytest.approx(-1 / 3)
    assert worst_type(drops) == "hesitant_laggard"
    # where higher is better the same numbers read the other way round
    flipped = type_drops(ROWS, lower_is_better=False)
    assert flipped["hesitant_laggard"].mean == pytest.approx(-1 / 3)
    assert worst_type(flipped) == "efficient_collaborator"


def test_br_proximity_is_the_interquartile_mean_of_ratios() -> None:
    # lower is better: best / score = 0.5, 1, 0.5, 1 -> IQM of [0.5, 0.5, 1, 1] = 0.75
    scores = {"a": 30.0, "b": 20.0, "c": 40.0, "d": 10.0}
    best = {"a": 15.0, "b": 20.0, "c": 20.0, "d": 10.0}
    iv = br_proximity(scores, best, lower_is_better=True)
    assert (iv.n, iv.mean) == (4, pytest.approx(0.75))
    assert 0.5 <= iv.low <= 0.75 <= iv.high <= 1.0
    assert br_proximity(scores, best, lower_is_better=True) == iv  # seeded
    # higher is better, eight partners: ratios 1/8..8/8, IQM = mean of 3/8..6/8 = 9/16
    eight = {str(i): float(i) for i in range(1, 9)}
    assert br_proximity(eight, dict.fromkeys(eight, 8.0), False).mean == pytest.approx(9 / 16)
    assert best_responses([{"a": 3.0}, {"a": 2.0, "b": 5.0}], True) == {"a": 2.0, "b": 5.0}


def test_the_table_joins_methods_with_br_prox() -> None:
    other = [{**r, "efficiency": "20", "success": "True"} for r in ROWS]
    rows = reliability_table.build({"mine": ROWS, "best": other})
    mine = next(r for r in rows if r["method"] == "mine")
    assert mine["pass^1"] == pytest.approx(5 / 6) and mine["pass^3"] == pytest.approx(0.5)
    assert mine["worst_type"] == "hesitant_laggard"
    assert mine["worst_type_drop"] == pytest.approx(1 / 3)
    # p1: 20 / 40, p2: 20 / 20 -> IQM of two values is their mean, 0.75
    assert mine["br_prox"] == pytest.approx(0.75)
    md = reliability_table.markdown(rows)
    header = next(line for line in md.splitlines() if line.startswith("| Method"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "Method",
        "Seat",
        "pass^1",
        "pass^3",
        "Worst type",
        "Worst drop ↓",
        "efficient_collaborator",
        "hesitant_laggard",
        "BR-Prox ↑",
    ]
    line = next(line for line in md.splitlines() if line.startswith("| mine"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:6] == [
        "mine",
        "Agent 1",
        "0.83 [0.00, 1.00]",
        "0.50 [0.00, 1.00]",
        "hesitant_laggard",
        "+33.3% [-49.5%, +116.1%]",
    ]
    assert cells[-1] == "0.75 [0.50, 1.00]"


def test_a_bad_pass_k_is_one_error() -> None:
    with pytest.raises(CollabrlError, match="pass\\^5 needs 5 trials"):
        reliability_table.build({"mine": ROWS}, ks=(5,))


@pytest.mark.slow
def test_br_prox_takes_each_partners_best_response_from_whichever_method_reached_it() -> None:
    # ZSC-Eval: each held-out partner has its own best response; none was trained, so it is the
    # best method evaluated with that partner. Steps (lower is better) per method and partner:
    means = {
        "A": {"p1": 20, "p2": 40, "p3": 30, "p4": 10},
        "B": {"p1": 40, "p2": 20, "p3": 30, "p4": 20},
        "C": {"p1": 30, "p2": 30, "p3": 15, "p4": 40},
    }
    # best responses p1: 20 (A), p2: 20 (B), p3: 15 (C), p4: 10 (A); ratios best / score:
    # A: 1, 1/2, 1/2, 1 -> IQM 3/4; B: 1/2, 1, 1/2, 1/2 -> 1/2; C: 2/3, 2/3, 1, 1/4 -> 2/3
    # (the best method overall, A, as every partner's best response would give B 1/2, 2, 1, 1/2)
    episodes = {
        method: [episode(p, "t", 0, True, steps) for p, steps in by_partner.items()]
        for method, by_partner in means.items()
    }
    rows = {r["method"]: r for r in reliability_table.build(episodes)}
    assert rows["A"]["br_prox"] == pytest.approx(3 / 4)
    assert rows["B"]["br_prox"] == pytest.approx(1 / 2)
    assert rows["C"]["br_prox"] == pytest.approx(2 / 3)
    assert all(r["br_prox_n"] == 4 for r in rows.values())


def test_br_prox_counts_each_population_member_on_each_task_as_a_partner() -> None:
    # one test profile throughout; the partners are population members, and member "a" of task
    # t2 is another partner than "a" of t1. Steps (lower is better) per (task, member):
    means = {
        "M": {("t1", "a"): 10, ("t1", "b"): 40, ("t2", "a"): 20},
        "N": {("t1", "a"): 20, ("t1", "b"): 20, ("t2", "a"): 40},
    }
    # best responses: t1/a 10 (M), t1/b 20 (N), t2/a 20 (M); ratios best / score:
    # M: 1, 1/2, 1 -> IQM of three (none trimmed) 5/6; N: 1/2, 1, 1/2 -> 2/3
    # (grouped by the one profile, M would be the best response, 1, and N 70/80)
    episodes = {
        method: [
            {**episode("p1", "t", 0, True, steps), "task": task, "partner": f"population:{m}"}
            for (task, m), steps in by_partner.items()
        ]
        for method, by_partner in means.items()
    }
    rows = {r["method"]: r for r in reliability_table.build(episodes)}
    assert (rows["M"]["br_prox"], rows["M"]["br_prox_n"]) == (pytest.approx(5 / 6), 3)
    assert (rows["N"]["br_prox"], rows["N"]["br_prox_n"]) == (pytest.approx(2 / 3), 3)
    assert held_out_partner(episodes["M"][2]) == "population:a on t2"
    # an export written before the partner column (or a persona partner) names it by profile
    assert held_out_partner({"profile": "p1", "task": "t1"}) == "p1"
    assert held_out_partner({"profile": "p1", "partner": "", "task": "t1"}) == "p1"
    assert held_out_partner({"profile": "", "task": "t1"}) is None


def test_a_population_member_or_proxy_is_typed_by_its_kind_not_the_profile_it_was_drawn_for():
    # the profile's player type only seeded the member's draw: the partner was a population member
    row = {**episode("p1", "hesitant_laggard", 0, True, 30), "partner": "population:sp0_final"}
    assert partner_type(row) == "population"
    assert partner_type({**row, "partner": "human_proxy+human_proxy"}) == "human_proxy"
    assert partner_type(episode("p1", "hesitant_laggard", 0, True, 30)) == "hesitant_laggard"
    rows = [row, {**row, "efficiency": "50", "partner": "human_proxy"}]
    assert set(type_drops(rows, lower_is_better=True)) == {"population", "human_proxy"}
