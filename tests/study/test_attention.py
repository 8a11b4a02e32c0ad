"""Attention checks as a question kind: the expected option is declared and never sent to the
page, every answer is an ``attention_check`` event and a row of ``checks.csv``, and
``attention.failed`` routes a branch (lint simulates it like any answer)."""

from __future__ import annotations

import csv
import re

import pytest

from collabrl.errors import RecipeError
from collabrl.study.live.signals import run_coroutine
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from tests.study.room_helpers import consented, room_runtime, write_study

CHECK = {
    "id": "check",
    "text": "To show you read this, choose 'blue'.",
    "kind": "attention",
    "options": ["red", "blue", "green"],
    "expect": "blue",
}
SCREENED = {"id": "screened", "kind": "end", "outcome": "screened_out", "show_code": False}


def survey(check: dict | None = None, when: str = "attention.failed >= 1") -> dict:
    return {
        "id": "intake",
        "kind": "survey",
        "questions": [{"id": "age", "text": "Age?", "kind": "number"}, check or CHECK],
        "branches": [{"when": when, "to": "screened"}],
        "next": "done",
    }


def lint(tmp_path, page: dict) -> None:
    compile_study(load_study(str(write_study(tmp_path, [page, SCREENED]))))


@pytest.mark.parametrize(
    ("page", "says"),
    [
        (
            survey({**CHECK, "expect": "Blue"}),
            "question check: expect 'Blue' is not one of its options",
        ),
        (survey({k: v for k, v in CHECK.items() if k != "expect"}), "kind attention and expect"),
        (survey(when="attention.missed > 0"), "attention has no 'missed' (known: passed, failed)"),
    ],
)
def test_lint_refuses_a_malformed_attention_check(tmp_path, page, says) -> None:
    with pytest.raises(RecipeError, match=re.escape(says)):
        lint(tmp_path, page)


def test_a_branch_on_attention_is_simulated(tmp_path) -> None:
    """Lint tries the check's every option: the screen-out page is reachable."""
    lint(tmp_path, survey())
    with pytest.raises(RecipeError, match="no participant reaches screened"):
        lint(tmp_path, survey(when="attention.failed > 1"))  # one check never fails twice


def test_a_failed_check_is_recorded_exported_and_routes(tmp_path) -> None:
    path = write_study(tmp_path, [survey(), SCREENED])

    async def scenario():
        rt = room_runtime(path, tmp_path / "study.sqlite")
        await rt.recover()
        people = []
        for colour in ("blue", "red"):
            pid = await consented(rt)
            view = rt.view(pid)
            await rt.submit(pid, {"node": "intake", "answers": {"age": 30, "check": colour}})
            people.append(pid)
        return rt, people, view

    rt, (attentive, careless), view = run_coroutine(scenario())
    shown = view["questions"][1]
    assert shown["kind"] == "choice" and "expect" not in shown  # the page cannot tell
    assert rt.node(attentive) == "done" and rt.node(careless) == "screened"
    export_study(rt.compiled.loaded, rt.db, tmp_path / "out")
    with (tmp_path / "out" / "checks.csv").open() as f:
        rows = [
            (r["participant"], r["check"], r["item"], r["answer"], r["passed"])
            for r in csv.DictReader(f)
        ]
    assert rows == [
        (attentive, "attention", "intake.check", "blue", "True"),
        (careless, "attention", "intake.check", "red", "False"),
    ]
