"""The study's trace judgements (``collabrl.envs.analysis.workflow``): hand-labelled traces in
``tests/fixtures/analysis_traces`` (each with the labels and scores worked out by hand), and
played episodes: the reference analyst leading alone covers and supports every test task, the
novice alone falls into the traps."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import mean

import pytest

from collabrl.envs.analysis import discoverybench, workflow
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.schema import AnalysisTask, Step
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import get_task, task_names
from collabrl.envs.analysis.workflow import (
    hypothesis_support,
    judge_trace,
    profile_alignment,
    workflow_coverage,
)
from collabrl.episode import play_episode

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
TRACE_DIR = FIXTURES / "analysis_traces"
TRACES = sorted(TRACE_DIR.glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def close(got: float | None, want: float | None) -> bool:
    """Equal scores, None included (the fixtures write six decimals)."""
    return got is None if want is None else got == pytest.approx(want, abs=1e-6)


def test_the_hand_labelled_set_covers_every_case() -> None:
    """At least ten traces, between them every label, part outcome and alignment case."""
    cases = [load(p)["expected"] for p in TRACES]
    assert len(cases) >= 10
    labels = {label for c in cases for label in c["workflow_coverage"]["labels"]}
    assert labels == {"satisfied", "partial", "missing"}
    parts = [c["hypothesis_support"]["parts"] for c in cases]
    assert {p["relation"] for p in parts} == {0.0, 1.0}
    assert {p["scope"] for p in parts} == {0.0, 1.0}
    alignments = [c["profile_alignment"] for c in cases]
    assert None in alignments
    scores = {a["score"] for a in alignments if a is not None}
    assert {0.0, 1.0, None} <= scores


@pytest.mark.parametrize("path", TRACES, ids=[p.stem for p in TRACES])
def test_hand_labelled_fixtures_are_self_consistent(path: Path) -> None:
    """The hand-written scores follow the stated rules: means of the labels and of the parts."""
    expected = load(path)["expected"]
    coverage = expected["workflow_coverage"]
    values = {"satisfied": 1.0, "partial": 0.5, "missing": 0.0}
    assert coverage["score"] == pytest.approx(mean(values[x] for x in coverage["labels"]), abs=1e-6)
    support = expected["hypothesis_support"]
    assert support["score"] == pytest.approx(mean(support["parts"].values()), abs=1e-6)


@pytest.mark.parametrize("path", TRACES, ids=[p.stem for p in TRACES])
def test_judgements_match_the_hand_labels(path: Path) -> None:
    case = load(path)
    summary, expected = case["summary"], case["expected"]
    judged = judge_trace(summary)

    coverage = expected["workflow_coverage"]
    assert [n.label for n in judged.coverage.nodes] == coverage["labels"]
    assert judged.coverage.score == pytest.approx(coverage["score"], abs=1e-6)

    support = expected["hypothesis_support"]
    assert {p.part: p.score for p in judged.support.parts} == pytest.approx(
        support["parts"], abs=1e-6
    )
    assert judged.support.score == pytest.approx(support["score"], abs=1e-6)
    assert judged.support.submitted == (summary["hypothesis"] is not None)

    alignment = expected["profile_alignment"]
    if alignment is None:
        assert judged.alignment is None
    else:
        assert judged.alignment is not None
        assert close(judged.alignment.score, alignment["score"])
        got = {c.seat: c for c in judged.alignment.collaborators}
        assert set(got) == set(alignment["collaborators"])
        for seat, want in alignment["collaborators"].items():
            assert close(got[seat].score, want["score"]), seat
            assert close(got[seat].profile_match, want["profile_match"]), seat
            assert close(got[seat].needs_met, want["needs_met"]), seat

    scores = judged.as_dict()
    assert scores["workflow_coverage"] == judged.coverage.score
    assert scores["profile_alignment"] == (judged.alignment and judged.alignment.score)
    json.dumps(judged.labels())  # the records are plain data


def test_every_label_says_why() -> None:
    """A reader sees which cell earned each label and why; a missing node has no cell."""
    judged = judge_trace(load(TRACE_DIR / "05_bin_trap_late_note.json")["summary"])
    bin_node = judged.coverage.nodes[1]
    assert bin_node.cell == 1 and "unit_or_bin" in bin_node.reason
    relation = judged.support.parts[0]
    assert "r2 = bin(r1, year_bce, 50)" in relation.reason
    (bea,) = judged.alignment.collaborators if judged.alignment else ()
    late = [n for n in bea.needs if not n.met]
    assert [n.kind for n in late] == ["unit_or_bin"] and "after the step" in late[0].reason
    skipped = judge_trace(load(TRACE_DIR / "04_filter_skipped.json")["summary"])
    assert skipped.coverage.nodes[0].cell is None


def test_the_three_entry_points_agree_with_judge_trace() -> None:
    summary = load(TRACE_DIR / "09_gates_dr_aligned.json")["summary"]
    judged = judge_trace(summary)
    assert workflow_coverage(summary) == judged.coverage
    assert hypothesis_support(summary) == judged.support
    assert profile_alignment(summary) == judged.alignment


@pytest.fixture
def free_text_task(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., AnalysisTask]]:
    """Serves the judge the fixture's DiscoveryBench task whose workflow stays free text ("time
    series, peak detection"), or that task with another workflow text; the judge's cached
    reading of it is dropped before and after."""

    def serve(workflow_text: str | None = None) -> AnalysisTask:
        task = discoverybench.load_discoverybench(FIXTURES / "discoverybench")[1]  # none derived
        if workflow_text is not None:
            task = task.model_copy(update={"workflow": [Step(step=workflow_text, why="text")]})
        monkeypatch.setattr(workflow, "get_task", lambda name: task)
        workflow._reference.cache_clear()
        return task

    yield serve
    workflow._reference.cache_clear()


def cell(tick: int, step: str) -> dict:
    return {"tick": tick, "seat": "Ada", "step": step, "name": None, "value": None, "error": None}


def test_a_free_text_workflow_is_judged_by_the_analysis_and_columns_it_names(
    free_text_task: Callable[..., AnalysisTask],
) -> None:
    """Its tags name time series analysis; the task names daggers and amber. A sort by the time
    key alone is that kind of operation on other columns (partial); the differences of both
    series satisfy it, and the relation (two directions, no value) rests on them."""
    task = free_text_task()
    gold = task.gold
    hypothesis = {"context": gold.context, "variables": ", ".join(gold.variables),
                  "relation": gold.relation, "sentence": gold.sentence}  # fmt: skip
    notebook = [
        cell(1, "s = sort(capital_phases, BCE, desc)"),
        cell(2, "d = diff(s, ZAmber)"),
        cell(3, "e = diff(s, ZDagger)"),
    ]
    summary = {"task": task.name, "hypothesis": hypothesis, "trace": [], "roles": {}}
    sorted_only = judge_trace(summary | {"notebook": notebook[:1]})
    assert [(n.step, n.label) for n in sorted_only.coverage.nodes] == [
        ("time series analysis", "partial")
    ]
    relation, scope, evidence = sorted_only.support.parts
    assert (relation.score, scope.score, evidence.score) == (0.0, 1.0, 1.0)
    analysed = judge_trace(summary | {"notebook": notebook})
    assert analysed.as_dict() == {
        "workflow_coverage": 1.0,
        "hypothesis_support": 1.0,
        "profile_alignment": None,
    }
    assert "rests on cell 2" in analysed.support.parts[0].reason


def test_a_free_text_workflow_naming_no_analysis_the_language_does_is_refused(
    free_text_task: Callable[..., AnalysisTask],
) -> None:
    """Only an LLM judge can read a text that names no kind of analysis the language can do."""
    task = free_text_task("data integration, pollen modelling")
    summary = {"task": task.name, "hypothesis": None, "notebook": [], "trace": [], "roles": {}}
    with pytest.raises(ValueError, match="names no kind of analysis the analysis language can do"):
        judge_trace(summary)


def play(task: str, lead: type[AnalysisExpert]) -> dict:
    """One episode with ``lead`` as the agent alone in a profiled team (the study's
    single-agent variant: the trap notes are held by nobody)."""
    game = AnalysisSection(task=task, teammates=[]).make_game()
    return play_episode(game, {s: lead() for s in game.agents}, 0).summary


def test_the_reference_analyst_covers_and_supports_every_test_task() -> None:
    for task in task_names("test"):
        scores = judge_trace(play(task, AnalysisExpert)).as_dict()
        assert scores == {
            "workflow_coverage": 1.0,
            "hypothesis_support": 1.0,
            "profile_alignment": None,
        }, task


def test_the_novice_alone_falls_short_exactly_on_the_trap_tasks() -> None:
    trap_coverage, plain_coverage = [], []
    for task in task_names("test"):
        coverage = judge_trace(play(task, AnalysisNovice)).coverage.score
        (trap_coverage if get_task(task).traps else plain_coverage).append(coverage)
    assert all(c < 1.0 for c in trap_coverage) and all(c == 1.0 for c in plain_coverage)
    assert mean(trap_coverage) == pytest.approx(0.625, abs=0.01)
