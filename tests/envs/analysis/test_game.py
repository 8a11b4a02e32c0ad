"""The analysis game: the contract checker and PettingZoo's API test, the reference analyst
solving every test task, knowledge changing the answer, scoring and the text-argument actions."""

from __future__ import annotations

import warnings

import pytest

from collabrl.agents.player import IdlePlayer
from collabrl.agents.protocol import match_action
from collabrl.envs import check_game
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.scoring import score_hypothesis, variables_f1
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import Hypothesis, get_task, task_names
from collabrl.envs.base import Decision
from collabrl.episode import play_episode


def play(task: str, lead, teammate) -> dict:
    game = AnalysisSection(task=task).make_game()
    record = play_episode(game, {"Ada": lead, "Bea": teammate}, seed=0)
    return record.summary


@pytest.mark.parametrize("task", ["arch-train-01", "arch-test-01", "arch-test-02"])
def test_the_game_passes_the_contract_checker(task: str) -> None:
    section = AnalysisSection(task=task)
    check_game(section.make_game, seeds=(0, 1), max_steps=200, section=section)
    solo = AnalysisSection(task=task, seats=["Ada"])
    check_game(solo.make_game, seeds=(0,), max_steps=200, section=solo)


def test_pettingzoo_parallel_api_test_passes() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test

    from collabrl.envs import to_parallel_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(to_parallel_env(AnalysisSection(task="arch-test-03").make_game()), 200)


def test_two_reference_analysts_solve_every_test_task() -> None:
    for task in task_names("test"):
        summary = play(task, AnalysisExpert(), AnalysisExpert())
        assert summary["outcome"] == "submitted" and summary["score"] == 1.0, task
        assert summary["success"] and summary["steps"] < 20


def test_without_its_teammates_notes_the_analyst_falls_into_the_traps() -> None:
    """A lead who knows only its own notes, beside a teammate who never speaks, takes each trap's
    naive step where the note was the teammate's, and scores lower; told the notes, it solves."""
    trapped = [t for t in task_names("test") if get_task(t).traps]
    assert trapped
    alone = [play(t, AnalysisNovice(), IdlePlayer())["score"] for t in trapped]
    told = [play(t, AnalysisNovice(), AnalysisExpert())["score"] for t in trapped]
    assert sum(alone) < len(trapped) - 1 and told == [1.0] * len(trapped)


def test_scores_follow_discoverybench_facets() -> None:
    gold = Hypothesis(context="Site A, periods 1-9", variables=["tin", "period"],
                      relation="peaks in period 5", sentence="...")  # fmt: skip
    same = Hypothesis(context="site a periods 1 9", variables=["Period", "tin"],
                      relation="Peaks in period 5.", sentence="")  # fmt: skip
    facets = score_hypothesis(same, gold)
    assert (facets.context, facets.variables, facets.relation, facets.hms) == (1.0, 1.0, 1.0, 1.0)
    half = Hypothesis(context=gold.context, variables=["tin", "site"], relation=gold.relation,
                      sentence="")  # fmt: skip
    assert score_hypothesis(half, gold).hms == pytest.approx(
        0.5
    )  # F1 of {tin,site} vs {tin,period}
    wrong = Hypothesis(context=gold.context, variables=gold.variables,
                       relation="peaks in period 7", sentence="")  # fmt: skip
    assert score_hypothesis(wrong, gold).hms == 0.0
    assert variables_f1([], ["x"]) == 0.0


@pytest.mark.parametrize(
    ("submitted", "gold", "f1"),
    [
        (["tin"], ["tin", "period"], 2 / 3),  # precision 1, recall 1/2
        (["tin", "period", "site"], ["tin"], 0.5),  # precision 1/3, recall 1
        (["tin", "site", "lead"], ["tin", "period"], 0.4),  # precision 1/3, recall 1/2
        (["Tin", " ", "tin."], ["tin", ""], 1.0),  # names compared normalised, blanks ignored
    ],
)
def test_variable_f1_is_the_harmonic_mean_of_unequal_precision_and_recall(
    submitted: list[str], gold: list[str], f1: float
) -> None:
    assert variables_f1(submitted, gold) == pytest.approx(f1)
    assert variables_f1(gold, submitted) == pytest.approx(f1)  # F1 is symmetric
    hypothesis = Hypothesis(context="c", variables=submitted, relation="r", sentence="")
    reference = Hypothesis(context="c", variables=gold, relation="r", sentence="")
    assert score_hypothesis(hypothesis, reference).hms == pytest.approx(round(f1, 6))


def test_text_argument_actions_reach_the_game() -> None:
    game = AnalysisSection(task="arch-test-01").make_game()
    offered = game.actions()
    step = 'r1 = filter(samples, site != "C")'
    assert match_action(f"run({step})", offered) == (f"run({step})", None)
    assert match_action("B", offered)[0] == offered[1]
    assert match_action("run()", offered)[0] == "run(<step>)"  # the bare template: a no-op
    assert match_action("run(" + "x" * 600 + ")", offered)[0] is None


def test_the_section_fields_teams_of_one_to_three() -> None:
    assert AnalysisSection(seats=["A", "B", "C"]).make_game().roles == [
        "statistics",
        "chronology",
        "materials",
    ]
    with pytest.raises(ValueError, match="1-3 seats"):
        AnalysisSection(seats=["A", "B", "C", "D"])
    with pytest.raises(ValueError, match="unknown analysis task"):
        AnalysisSection(task="nope")
    assert AnalysisSection().with_team(3, "default").seats == ["Ada", "Bea", "Cy"]


@pytest.mark.slow
def test_pandas_cells_are_offered_only_when_switched_on() -> None:
    assert "python(<code>)" not in AnalysisSection(task="arch-test-01").make_game().actions()
    game = AnalysisSection(task="arch-test-01", pandas_code=True).make_game()
    assert "python(<code>)" in game.actions()
    table = get_task("arch-test-01").tables[0].name
    decisions = {"Ada": Decision(f"python(len({table}))"), "Bea": Decision("wait")}
    game.step(decisions)
    (cell,) = game.cells
    assert cell.seat == "Ada" and cell.outcome.error is None
    assert cell.outcome.text.strip() == str(len(get_task("arch-test-01").tables[0].rows))
    game.step({"Ada": Decision("python(open('/etc/passwd').read())"), "Bea": Decision("wait")})
    assert game.cells[-1].outcome.error  # the sandbox refused it; the game went on


@pytest.mark.slow
def test_a_cpu_gigpo_run_on_the_game_finishes(tmp_path) -> None:
    import json
    import subprocess
    import sys

    out = tmp_path / "train"
    result = subprocess.run(
        [
            sys.executable, "-m", "collabrl", "train", "analysis_gigpo_cpu", f"output_dir={out}",
            "train.iterations=1", "train.checkpoint_every=1", "train.wandb=disabled",
            "rollout.groups=1", "rollout.episodes_per_group=2", "game.max_ticks=6",
            "policy.sampling.max_new_tokens=32", "algo.mini_batch=8",
        ],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (row,) = [json.loads(line) for line in (out / "metrics.jsonl").open()]
    assert row["iteration"] == 0 and row["requests/policy"] == 12  # 2 episodes x 6 ticks
    assert "score" in row
