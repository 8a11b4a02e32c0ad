"""Bounded retries: a comprehension quiz retried at most k times, then a screen-out page. Lint
follows the loop k times and accepts it, and still refuses an endless one naming its pages; the
runtime counts attempts (also across a restart), the export lists them, the pretest walks it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.errors import RecipeError
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from tests.study.room_helpers import consented, room_runtime, write_study

INSTRUCTIONS = {"id": "instructions", "kind": "text", "text": "Serve soups, not salads."}
RETRY = {
    "passed": 'answers.quiz.goal == "soups"',
    "back_to": "instructions",
    "at_most": 1,
    "then": "screened",
}
SCREENED = {"id": "screened", "kind": "end", "outcome": "screened_out", "show_code": False}


def quiz(**retry) -> dict:
    return {
        "id": "quiz",
        "kind": "survey",
        "questions": [
            {
                "id": "goal",
                "text": "What do you serve?",
                "kind": "choice",
                "options": ["soups", "salads"],
            }
        ],
        "retry": {**RETRY, **retry},
        "next": "done",
    }


def quiz_study(tmp_path: Path, **retry) -> Path:
    return write_study(tmp_path, [INSTRUCTIONS, quiz(**retry), SCREENED])


def test_lint_accepts_a_bounded_retry_and_draws_its_edges(tmp_path, capsys) -> None:
    main(["study", "lint", str(quiz_study(tmp_path)), "--graph"])
    out = capsys.readouterr().out
    assert (
        "quiz: --failed (retry at most 1x)--> instructions; --failed 2x--> screened; "
        "--submit--> done" in out
    ), out


def test_lint_refuses_a_retry_whose_way_out_loops_back(tmp_path) -> None:
    """``then`` back to the instructions: after the retries are spent, the same wrong answer
    takes the same route again, forever."""
    with pytest.raises(RecipeError) as error:
        path = write_study(tmp_path, [INSTRUCTIONS, quiz(then="instructions")])
        compile_study(load_study(str(path)))
    message = str(error.value)
    assert "\n" not in message
    assert (
        "pages: a participant who answers goal=salads on quiz loops forever: "
        "consent -> instructions -> quiz -> instructions -> quiz -> instructions" in message
    ), message


def test_lint_still_refuses_an_undeclared_loop(tmp_path) -> None:
    back = {**INSTRUCTIONS, "id": "again", "next": "instructions"}
    page = quiz()
    page.pop("retry")
    page["branches"] = [{"question": "goal", "equals": "salads", "to": "again"}]
    path = write_study(tmp_path, [INSTRUCTIONS, page, back])
    with pytest.raises(
        RecipeError, match="loops forever: consent -> instructions -> quiz -> again -> "
    ):
        compile_study(load_study(str(path)))


def test_lint_checks_the_retry_expression(tmp_path) -> None:
    with pytest.raises(RecipeError, match="page quiz retry.passed .*no survey question 'quiz.aim'"):
        compile_study(load_study(str(quiz_study(tmp_path, passed="answers.quiz.aim == 1"))))


async def _answer(rt, pid: str, goal: str) -> None:
    await rt.submit(pid, {"node": "instructions"})
    await rt.submit(pid, {"node": "quiz", "answers": {"goal": goal}})


def test_a_participant_gets_k_retries_then_is_screened_out(tmp_path) -> None:
    path = quiz_study(tmp_path)

    async def scenario():
        rt = room_runtime(path, tmp_path / "study.sqlite")
        await rt.recover()
        first = await consented(rt)
        await _answer(rt, first, "salads")
        assert rt.node(first) == "instructions"
        await _answer(rt, first, "soups")  # passes on its retry
        second = await consented(rt)
        await _answer(rt, second, "salads")
        rt.shutdown()
        again = room_runtime(path, tmp_path / "study.sqlite")  # a restart keeps the count
        await again.recover()
        await _answer(again, second, "salads")
        return again, first, second

    rt, first, second = run_coroutine(scenario())
    assert rt.node(first) == "done" and rt.people[first]["status"] == "completed"
    assert rt.node(second) == "screened" and rt.people[second]["status"] == "screened_out"
    export_study(rt.compiled.loaded, rt.db, tmp_path / "out")
    with (tmp_path / "out" / "checks.csv").open() as f:
        rows = [
            (r["participant"], r["attempt"], r["passed"], r["led_to"]) for r in csv.DictReader(f)
        ]
    assert rows == [
        (first, "1", "False", "instructions"),
        (first, "2", "True", ""),
        (second, "1", "False", "instructions"),
        (second, "2", "False", "screened"),
    ]


def test_the_pretest_walks_the_retries(tmp_path) -> None:
    compiled = compile_study(load_study(str(quiz_study(tmp_path, at_most=2))))
    result = run_pretest(compiled, tmp_path / "pretest.sqlite", 12, progress=False)
    tally = result["checks"]["quiz quiz"]
    assert tally["failed"] > 0 and tally["passed"] > 0, tally
    assert tally["passed"] + tally["failed"] >= 12
