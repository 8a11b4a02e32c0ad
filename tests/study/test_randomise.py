"""Randomised designs without rounds (issue 49, item 1): factorial cells dealt in balanced
blocks per stratum or drawn simply, recorded as assignment events and state, read by texts and
branches, exported, counted by the pretest; lint names a wrong page or strata expression."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from collabrl.errors import RecipeError
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.spec.randomise import Randomisation
from tests.study.room_helpers import room_runtime, write_study

INTAKE = {
    "id": "intake",
    "kind": "survey",
    "questions": [{"id": "role", "text": "Role?", "kind": "choice", "options": ["a", "b"]}],
}
VIGNETTE = {"id": "vignette", "kind": "text", "text": "Framed as a **{state.framing}**."}
RANDOMISE = {
    "id": "v",
    "factors": {"framing": ["gain", "loss"], "source": ["human", "ai"]},
    "strata": "answers.intake.role",
    "at": "vignette",
}


def test_balanced_blocks_hold_every_cell_once_and_simple_draws_are_seeded() -> None:
    r = Randomisation(**RANDOMISE)
    assert r.cells[1] == {"framing": "gain", "source": "ai"}
    for stratum in ("a", "b"):
        dealt = [r.cell(7, stratum, k, f"p{k}") for k in range(12)]
        assert [sorted(dealt[b : b + 4]) for b in (0, 4, 8)] == [[0, 1, 2, 3]] * 3
    assert [r.cell(7, "a", k, "x") for k in range(8)] == [0, 2, 3, 1, 2, 3, 0, 1]  # pinned
    simple = r.model_copy(update={"method": "simple"})
    draws = [simple.cell(7, "a", 0, f"p{k}") for k in range(400)]
    assert draws == [simple.cell(7, "a", 5, f"p{k}") for k in range(400)]  # by id, not order
    assert min(Counter(draws).values()) > 70  # uniform over four cells


def test_participants_get_cells_per_stratum_read_by_texts_and_exported(tmp_path) -> None:
    path = write_study(tmp_path, [INTAKE, VIGNETTE], randomise=[RANDOMISE])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        await rt.recover()
        people = []
        for k in range(6):
            pid, _ = await rt.join()
            await rt.submit(pid, {"node": "consent", "agree": True})
            role = "a" if k < 4 else "b"
            await rt.submit(pid, {"node": "intake", "answers": {"role": role}})
            people.append(pid)
        return rt, people

    rt, people = run_coroutine(scenario())
    events = rt.db.events("assignment")
    assert [(e["data"]["stratum"], e["data"]["index"]) for e in events] == [
        ("a", 0),
        ("a", 1),
        ("a", 2),
        ("a", 3),
        ("b", 0),
        ("b", 1),
    ]
    assert sorted(e["data"]["cell"] for e in events[:4]) == [0, 1, 2, 3]
    for e in events:
        framing = e["data"]["levels"]["framing"]
        assert rt.logic.values(e["pid"])["state"]["framing"] == framing
        assert f"<strong>{framing}</strong>" in rt.view(e["pid"])["html"]
    export_study(rt.loaded, rt.db, tmp_path / "export")
    with open(tmp_path / "export" / "assignments.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["participant"], r["level.framing"]) for r in rows] == [
        (e["pid"], e["data"]["levels"]["framing"]) for e in events
    ]
    with open(tmp_path / "export" / "participants.csv", encoding="utf-8", newline="") as f:
        assert all(row["state.source"] in ("human", "ai") for row in csv.DictReader(f))


def test_the_pretest_counts_the_cells(tmp_path) -> None:
    from collabrl.study.spec.compile import compile_study
    from collabrl.study.spec.load import load_study

    simple = {**RANDOMISE, "strata": None, "at": None}
    path = write_study(tmp_path, [INTAKE, VIGNETTE], randomise=[simple])
    result = run_pretest(compile_study(load_study(str(path))), tmp_path / "p.sqlite", 8, False)
    assert result["assignments"] == {
        "v": {
            "framing=gain, source=human": 2,
            "framing=gain, source=ai": 2,
            "framing=loss, source=human": 2,
            "framing=loss, source=ai": 2,
        }
    }


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"at": "nowhere"}, "randomise v: at names unknown page 'nowhere'"),
        ({"at": "done"}, "randomise v: at 'done' is an end page"),
        ({"strata": "answers.intake.age"}, "no survey question 'intake.age'"),
        ({"factors": {"framing": ["gain"]}}, "factor framing needs two or more distinct levels"),
        ({"factors": {"framing": [True, False]}}, "factor framing has a boolean level"),
    ],
)
def test_lint_names_a_wrong_randomisation(tmp_path, change, says) -> None:
    from collabrl.study.spec.compile import compile_study
    from collabrl.study.spec.load import load_study

    path = write_study(tmp_path, [INTAKE, VIGNETTE], randomise=[{**RANDOMISE, **change}])
    with pytest.raises(RecipeError) as caught:
        compile_study(load_study(str(path)))
    assert says in str(caught.value) and "\n" not in str(caught.value)
