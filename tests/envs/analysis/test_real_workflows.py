"""Reference workflows derived for DiscoveryBench tasks from the query and the column
descriptions (the hand-made folder): the steps, the year slot, and the reference analyst reaching
the gold only where its analysis finds the year."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from collabrl.envs.analysis.expert import AnalysisExpert
from collabrl.envs.analysis.expertise import note_profiles
from collabrl.envs.analysis.real_workflows import derive, guidance, query_column, query_steps
from collabrl.envs.analysis.schema import Column, Hypothesis, Table
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, get_task, load_tasks
from collabrl.envs.analysis.workflow import judge_trace
from collabrl.episode import play_episode

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "discoverybench"


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(DISCOVERYBENCH_ENV, str(FIXTURE))
    load_tasks.cache_clear()
    yield
    load_tasks.cache_clear()


def test_the_steps_come_from_the_query_and_the_column_descriptions() -> None:
    highest = get_task("archaeology-1-0")
    assert [s.step for s in highest.workflow] == ["extrema(capital_phases, ZDagger, BCE, max)"]
    assert highest.context_template == "Dagger deposition is highest around {value} BCE"
    assert query_column("When did amber finds decline?", highest.tables[0]) == "ZAmber"
    steps = query_steps("When did amber decrease for the second time?", "t", "ZAmber")
    assert [s.step for s in steps or []] == [
        "s = sort(t, BCE, desc)",
        "d = diff(s, ZAmber)",
        "event(d, ZAmber_diff < 0, BCE, 2)",
    ]
    assert query_steps("How are amber and daggers related?", "t", "ZAmber") is None


def test_a_query_it_cannot_read_keeps_the_free_text_workflow() -> None:
    assert get_task("archaeology-0-1").workflow[0].step == "time series, peak detection"
    yearless = Hypothesis(context="x", variables=[], relation="x", sentence="Amber is high.")
    assert derive("When was amber highest?", yearless, get_task("archaeology-1-0").tables) is None


@pytest.mark.parametrize(
    ("task", "score", "sentence"),
    [
        ("archaeology-1-0", 1.0, "Dagger deposition is highest around 2400 BCE."),
        # "first peak" read as the highest value: the analysis finds another year
        ("archaeology-0-0", 0.0, "Around 3450 BCE, landscape openness reaches its first peak."),
    ],
)
def test_the_reference_analyst_reaches_the_gold_only_by_its_analysis(
    task: str, score: float, sentence: str
) -> None:
    game = AnalysisSection(task=task).make_game()
    summary = play_episode(game, {"Ada": AnalysisExpert(), "Bea": AnalysisExpert()}, 0).summary
    assert summary["outcome"] == "submitted" and summary["score"] == score
    assert summary["hypothesis"]["sentence"] == sentence
    assert judge_trace(summary).coverage.score == 1.0  # the trace judge reads its steps


def series(
    name: str, time: tuple[str, str], value: tuple[str, str], rows: list[list[float]]
) -> Table:
    """A two-column table: a time column and a value series, each (name, description)."""
    columns = [Column(name=n, description=d) for n, d in (time, value)]
    return Table(name=name, description=f"{name} rows.", columns=columns, rows=rows)


CAPITAL = series("capital", ("BCE", "Before Common Era"), ("ZDolch", "Z values for Daggers"),
                 [[2400, 0.1], [2300, 0.9], [2200, 0.4], [2100, 1.2]])  # fmt: skip
YEARLY = series("ts", ("CE", "Common Era"), ("Dagger_inter", "Interpolated z values for Daggers"),
                [[-2400, 0.1], [-2300, 0.9]])  # fmt: skip
PEAK = Hypothesis(context="Around 2100 BCE", variables=[], relation="daggers peak",
                  sentence="Around 2100 BCE, daggers peak.")  # fmt: skip


def test_each_profile_holds_its_guidance_and_the_trap_it_avoids() -> None:
    peak = derive("When did daggers peak?", PEAK, [CAPITAL, YEARLY])
    assert peak is not None and [(t.kind, t.note, t.naive_step) for t in peak.traps] == [
        ("smoothed_column", "g1", "extrema(ts, Dagger_inter, CE, max)")
    ]
    rise = derive("When did daggers increase for the first time?", PEAK, [CAPITAL, YEARLY])
    assert rise is not None and [(t.kind, t.note, t.naive_step) for t in rise.traps] == [
        ("bce_order", "g2", "s = sort(capital, BCE, asc)")
    ]
    data, research = guidance("When did daggers peak?", [CAPITAL, YEARLY], "time series")
    assert (data.profile, research.profile) == ("D", "R")
    assert data.text == (
        "The query's series is ZDolch of capital (Z values for Daggers), one value per time "
        "slice, read as it stands. The analysis calls for time series."
    )
    owners = note_profiles(get_task("archaeology-0-0"))
    assert (owners["g1"], owners["g2"]) == ("D", "R")
    assert sorted(owners.values()) == ["D", "D", "R", "R", "R", "agent"]  # statistics: D
