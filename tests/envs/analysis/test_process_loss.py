"""The process-loss decomposition on constructed traces of arch-test-05 (two traps: the Farrow
filter, note n1 at step 0; the 50-year bins, note n2 at step 1)."""

from __future__ import annotations

import pytest

from collabrl.envs.analysis.expertise import misleading_note
from collabrl.envs.analysis.process_loss import STAGES, decompose, mean_loss
from collabrl.envs.analysis.tasks import get_task

TASK = get_task("arch-test-05")
RIGHT = [s.step for s in TASK.workflow]
NAIVE = {t.at: t.naive_step for t in TASK.traps}
N1 = next(n.text for n in TASK.notes if n.id == "n1")


def summary(score: float, held: dict[str, list[str]], steps: list[str], said: list[str],
            writer: str | None = "Ada") -> dict:  # fmt: skip
    trace = [{"seat": "Bea", "kind": "message", "target": None, "text": t} for t in said]
    if writer:
        trace.append({"seat": writer, "kind": "work", "target": "edit:relation", "text": None})
    notebook = [{"seat": writer, "step": s} for s in steps]
    return {"score": score, "notes_held": held, "trace": trace, "notebook": notebook}


TEAM = {"Ada": ["n3"], "Bea": ["n1", "n2"]}


def test_a_right_submission_loses_nothing() -> None:
    loss = decompose(summary(1.0, TEAM, RIGHT, [N1]), TASK)
    assert loss["potential"] == 1.0 and loss["gap"] == 0.0
    assert all(loss[s] == 0.0 for s in STAGES)


def test_a_team_without_the_expertise_has_no_process_loss() -> None:
    loss = decompose(summary(0.0, {"Ada": ["n3"], "Bea": ["n1"]}, RIGHT, []), TASK)
    assert loss["potential"] == 0.0 and loss["gap"] == 0.0


@pytest.mark.parametrize(
    ("said", "held", "expected"),
    [
        ([], TEAM, {"never_surfaced": 1.0}),
        ([N1], TEAM, {"surfaced_not_used": 1.0}),
        ([misleading_note(TASK, TASK.traps[0]).text], {"Ada": ["n3"], "Bea": ["n1~wrong", "n2"]},
         {"used_wrongly": 1.0}),
    ],
)  # fmt: skip
def test_one_trap_taken_is_charged_to_the_stage_its_note_reached(
    said: list[str], held: dict[str, list[str]], expected: dict[str, float]
) -> None:
    steps = [NAIVE[0], *RIGHT[1:]]  # the Farrow filter left out, the bins right
    loss = decompose(summary(0.0, held, steps, said), TASK)
    assert loss["gap"] == 1.0
    assert {s: loss[s] for s in STAGES} == {s: expected.get(s, 0.0) for s in STAGES}


def test_two_traps_split_the_gap_and_the_parts_sum_to_it() -> None:
    steps = [NAIVE[0], NAIVE[1], *RIGHT[2:]]
    loss = decompose(summary(0.0, TEAM, steps, [N1]), TASK)
    assert loss["surfaced_not_used"] == loss["never_surfaced"] == 0.5
    right_but_overwritten = decompose(summary(0.0, TEAM, RIGHT, [N1]), TASK)
    assert right_but_overwritten["other"] == 1.0
    mean = mean_loss([loss, right_but_overwritten])
    assert mean["gap"] == 1.0 and sum(mean[s] for s in STAGES) == pytest.approx(mean["gap"])
