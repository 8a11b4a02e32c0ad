"""Reference workflows derived for DiscoveryBench tasks from the query and the column
descriptions (the hand-made folder): the steps, the year slot, and the reference analyst reaching
the gold only where its analysis finds the year."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from collabrl.envs.analysis.expert import AnalysisExpert
from collabrl.envs.analysis.expertise import note_profiles
from collabrl.envs.analysis.language import Value, Workspace
from collabrl.envs.analysis.real_workflows import (
    Derived,
    attribute_columns,
    co_changes,
    derive,
    direction_slot,
    guidance,
    query_column,
    query_period,
    query_steps,
)
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


def run_steps(derived: Derived | None, tables: list[Table]) -> Value:
    """The last step's value when ``derived``'s steps run in a notebook over ``tables``."""
    assert derived is not None
    frames = {t.name: pd.DataFrame(t.rows, columns=[c.name for c in t.columns]) for t in tables}
    workspace = Workspace(frames)
    outcomes = [workspace.run(s.step) for s in derived.steps]
    assert [o.error for o in outcomes] == [None] * len(outcomes)
    return outcomes[-1].value


SLICES = Table(
    name="capital",
    description="capital rows.",
    columns=[Column(name=n, description=d) for n, d in (
        ("BCE", "Before Common Era"), ("ZCU_AU", "Z values for Copper and Gold"),
        ("ZKeform", "Z values for Pottery Form"), ("Zkeverz", "Z values for Pottery Decoration"),
    )],
    rows=[[3600, -0.5, 0.9, -0.4], [3500, 0.7, 1.1, -0.2], [3400, 0.7, 0.9, -0.4],
          [3300, -0.5, 1.0, -0.3], [1800, 2.9, 0.7, -0.5], [1700, -0.3, -1.1, 1.0],
          [1600, -0.4, -1.1, 1.0]],
)  # fmt: skip


def gold(sentence: str) -> Hypothesis:
    return Hypothesis(context="", variables=[], relation=sentence, sentence=sentence)


def test_a_range_slots_its_first_year_and_a_z_series_first_peak_is_its_first_run_above_0() -> None:
    derived = derive(
        "In which century did copper have its first peak?",
        gold("Copper has its first peak between 3500 and 3300 BCE."),
        [SLICES],
    )
    assert derived is not None
    assert derived.relation_template == "Copper has its first peak between {value} and 3300 BCE."
    assert [s.step for s in derived.steps] == [
        "s = sort(capital, BCE, desc)",
        "event(s, ZCU_AU > 0, BCE, 1)",
    ]
    assert run_steps(derived, [SLICES]) == 3500  # the highest value, 2.9, is at 1800
    ranged = derive("When did copper peak?", gold("Its peak is 3500 to 3300BCE."), [SLICES])
    assert ranged is not None and ranged.relation_template == "Its peak is {value} to 3300BCE."
    assert run_steps(ranged, [SLICES]) == 1800  # no ordinal: the highest value


def test_a_simultaneous_change_is_the_first_slice_where_each_series_moves_its_way() -> None:
    query = (
        "In which century did the Diversity in Pottery Form collapse and Diversity in Pottery "
        "Decoration increase simultaneously?"
    )
    assert co_changes(query, SLICES) == [("ZKeform", "<"), ("Zkeverz", ">")]
    assert co_changes("When did pottery form and decoration decrease simultaneously?", SLICES) == [
        ("ZKeform", "<"), ("Zkeverz", "<")
    ]  # fmt: skip
    derived = derive(query, gold("Around 1700 BCE, form collapses."), [SLICES])
    assert derived is not None and [s.step for s in derived.steps][3:] == [
        "m = flag(d, ZKeform_diff < 0, Zkeverz_diff > 0)",
        "event(m, flag == 1, BCE, 1)",
    ]
    # 3400 and 3300 each move one series only; 1700 moves both its way
    assert run_steps(derived, [SLICES]) == 1700
    assert [t.kind for t in derived.traps] == ["bce_order"]
    assert co_changes("When did pottery form collapse?", SLICES) == []


def test_a_second_simultaneous_change_counts_runs_of_neighbouring_slices() -> None:
    falls = "When did copper and pottery form decrease simultaneously for the second time?"
    derived = derive(falls, gold("Around 1700 BCE, both fall."), [SLICES])
    assert derived is not None and derived.steps[-1].step == "event(m, flag == 1, BCE, 2)"
    # both fall at 3400 (0.7 to 0.7: no) ... 3300 (-1.2, +0.1: no), 1700 (-3.2, -1.8): the
    # first; 1600 (-0.1, 0.0: no); so no second run, and the step says so
    frames = {"capital": pd.DataFrame(SLICES.rows, columns=[c.name for c in SLICES.columns])}
    workspace = Workspace(frames)
    outcomes = [workspace.run(s.step) for s in derived.steps]
    assert outcomes[-1].error == "event: flag == 1 starts 1 event(s), not 2"
    rows = [*SLICES.rows[:4], [3200, -0.9, 0.8, 0.0], *SLICES.rows[4:]]
    twice = SLICES.model_copy(update={"rows": rows})
    assert run_steps(derived, [twice]) == 1700  # 3200 falls both: the first; 1700 the second


def test_a_direction_over_a_period_is_the_trend_of_the_series_its_clause_names() -> None:
    assert query_period("How did hatchets change between 3400 BCE to 3000 BCE?") == (3400, 3000)
    assert query_period("What marked the Bronze Age (1100\u2013500 BCE)?") == (1100, 500)
    assert query_period("How did daggers change around 1700BCE?") == (1800, 1600)
    assert query_period("When did daggers peak?") is None
    relation = "with the rise in pottery form, a decrease in copper is seen"
    assert direction_slot(relation, SLICES) == ("rise", "ZKeform")
    assert direction_slot("symbolic capital rises", SLICES) is None  # names no series
    query = "How did copper and pottery form change between 3600 and 3300 BCE?"
    derived = derive(query, gold(f"Between 3600 and 3300 BCE, {relation}."), [SLICES])
    assert derived is not None
    assert derived.relation_template == (
        "Between 3600 and 3300 BCE, with the {value} in pottery form, a decrease in copper is seen."
    )
    assert [s.step for s in derived.steps] == [
        "s = sort(capital, BCE, desc)",
        "p = filter(s, BCE <= 3600)",
        "q = filter(p, BCE >= 3300)",
        "trend(q, ZKeform)",
    ]
    assert run_steps(derived, [SLICES]) == "increase"  # pottery form: 0.9 at 3600, 1.0 at 3300
    # without R's note the slices run the usual way round, and the direction flips
    (trap,) = derived.traps
    steps = [derived.steps[0].model_copy(update={"step": trap.naive_step}), *derived.steps[1:]]
    assert (
        trap.kind == "bce_order" and run_steps(Derived(steps, "", "", []), [SLICES]) == "decrease"
    )
    later = derive("How did copper change around 1700 BCE?", gold("Copper falls."), [SLICES])
    assert later is not None and run_steps(later, [SLICES]) == "decrease"  # 2.9 at 1800 to -0.4


YEARLY_GROWTH = Table(
    name="ts",
    description="ts rows.",
    columns=[Column(name=n, description=d) for n, d in (
        ("CE", "Common Era (BCE x (-1))"), ("g_mean", "Mean of growth rates"),
    )],
    rows=[[-2050, 0.1], [-2000, 0.2], [-1950, 0.3], [-1550, 0.9], [-1450, 0.4], [-1420, 0.5],
          [-1150, 0.7], [-1050, 0.0]],
)  # fmt: skip


def test_a_century_of_a_yearly_series_is_binned_on_years_ce_and_read_as_bce() -> None:
    query = "In what centuries did we see the highest growth of the period between 2000 BCE and 1100 BCE?"
    derived = derive(query, gold("Between 1600 BCE and 1500 BCE, growth is highest."),
                     [SLICES, YEARLY_GROWTH])  # fmt: skip
    assert derived is not None and [s.step for s in derived.steps] == [
        "p = filter(ts, CE >= -2000)",
        "q = filter(p, CE <= -1100)",
        "b = bin(q, CE, 100)",
        "g = group(b, CE_bin, g_mean, mean)",
        "y = scale(g, CE_bin, -1)",
        "extrema(y, g_mean, CE_bin_scaled, max)",
    ]
    assert derived.relation_template == "Between {value} BCE and 1500 BCE, growth is highest."
    # centuries in the period: -2000 (0.25), -1600 (0.9), -1500 (0.45), -1200 (0.7)
    assert run_steps(derived, [SLICES, YEARLY_GROWTH]) == 1600
    fall = derive("In which centuries did we see the greatest decline in growth?",
                  gold("Around 1400 BCE growth falls."), [SLICES, YEARLY_GROWTH])  # fmt: skip
    assert fall is not None and fall.steps[-1].step == "extrema(d, g_mean_diff, CE_bin_scaled, min)"
    # means by century from -2100: 0.1, 0.25, 0.9, 0.45, 0.7, 0.0: the largest fall into -1100
    assert run_steps(fall, [SLICES, YEARLY_GROWTH]) == 1100
    # a dip and then a peak: the dip is the answer (the largest fall), from the query's start on;
    # the query's own year is not the slot
    two_turns = "Starting from 1600 BCE, in what centuries did growth dip and then peak?"
    dip = derive(two_turns, gold("Starting from 1600 BCE, growth dips in 1400 BCE and peaks."),
                 [SLICES, YEARLY_GROWTH])  # fmt: skip
    assert dip is not None and [s.step for s in dip.steps][:2] == [
        "q = filter(ts, CE >= -1600)",
        "b = bin(q, CE, 100)",
    ]
    assert dip.relation_template == "Starting from 1600 BCE, growth dips in {value} BCE and peaks."
    # means by century from -1600: 0.9, 0.45, 0.7, 0.0: the largest fall into -1100
    assert run_steps(dip, [SLICES, YEARLY_GROWTH]) == 1100
    assert (
        derive("In what centuries did growth dip?", gold("Growth dips."), [YEARLY_GROWTH]) is None
    )


FORMS = Table(
    name="capital",
    description="capital rows.",
    columns=[Column(name=n, description=d) for n, d in (
        ("BCE", "Before Common Era"), ("group", "Phase"), ("ZDolch", "Z values for Daggers"),
        ("Zamber", "Z values for Amber"), ("ZBeil", "Z values for Axes"),
    )],
    rows=[[1700, "LN", 2.0, 1.0, 0.0], [1600, "OBA", 1.0, 0.5, 0.0], [1500, "OBA", 0.0, 0.0, 0.5],
          [1400, "OBA", -1.0, -0.5, 0.0], [1300, "OBA", -2.0, -1.0, -0.5]],
)  # fmt: skip


def test_a_pca_question_is_the_sign_of_the_period_s_slices_on_the_component_its_clause_names() -> (
    None
):
    query = "In the PCA of the forms of capital, how is the Older Bronze Age (1600-1300 BCE) characterized?"
    relation = (
        "the early phase (1600-1500 BCE) is associated with positive values on the first "
        "principal component (PC1), the younger phase (1400-1300 BCE) with negative values on PC1"
    )
    derived = derive(
        query,
        Hypothesis(context="During the Older Bronze Age (1600-1300 BCE)", variables=[],
                   relation=relation, sentence=relation),
        [FORMS],
    )  # fmt: skip
    assert derived is not None and derived.context_template == ""  # no sign word in the context
    assert derived.relation_template.startswith(
        "the early phase (1600-1500 BCE) is associated with {value} values on the first"
    )
    assert [s.step for s in derived.steps] == [
        "pcs = pca(capital, ZDolch, Zamber, ZBeil)",  # every numeric column but the key
        "p = filter(pcs, BCE <= 1600)",  # the period of the sign's own clause, not the query's
        "q = filter(p, BCE >= 1500)",
        "sign(q, PC1)",
    ]
    # daggers and amber fall from 1700 to 1300: PC1 follows them (their loadings are positive)
    assert run_steps(derived, [FORMS]) == "positive"
    one_slice = derive(query, gold("The year 1400 BCE sits at negative values on PC2."), [FORMS])
    assert one_slice is not None and [s.step for s in one_slice.steps][1:] == [
        "p = filter(pcs, BCE <= 1400)",
        "q = filter(p, BCE >= 1400)",
        "sign(q, PC2)",
    ]
    no_pca = gold("Amber is characterized by negative values on PC1.")
    assert derive("How did daggers change around 1500 BCE?", no_pca, [FORMS]) is None


def test_a_pca_question_about_attributes_is_the_sign_of_their_loadings() -> None:
    relation = (
        "Grave goods, represented by daggers and amber, are characterized by positive values "
        "on the first principal component (PC1)"
    )
    derived = derive("Where do daggers and amber sit in the PCA?", gold(relation), [FORMS])
    assert derived is not None and [s.step for s in derived.steps] == [
        "l = loadings(capital, ZDolch, Zamber, ZBeil)",
        "q = among(l, attribute, 'ZDolch', 'Zamber')",  # the attributes the sign clause names
        "sign(q, PC1)",
    ]
    assert derived.relation_template.startswith("Grave goods, represented by daggers and amber, "
                                                "are characterized by {value} values")  # fmt: skip
    # daggers and amber fall together from 1700 to 1300 and carry PC1; axes barely move
    assert run_steps(derived, [FORMS]) == "positive"
    assert (
        derive(
            "Where does pottery sit in the PCA?",
            gold("Pottery has negative values on PC1."),
            [FORMS],
        )
        is None
    )  # names no column


def test_attribute_columns_read_one_column_in_each_item_of_a_list() -> None:
    table = Table(
        name="c",
        description="c rows.",
        columns=[Column(name=n, description=d) for n, d in (
            ("BCE", "Before Common Era"), ("Zhaus", "Z values for House Size"),
            ("ZMon", "Z values for Monument Count"), ("ZMW", "Z values for Monument Size"),
            ("ZCU", "Z values for Copper and Gold"),
        )],
        rows=[[1000, 0.0, 0.0, 0.0, 0.0]],
    )  # fmt: skip
    # "house size" shares more words with House Size than with Monument Size; "monuments" names
    # both monument columns alike, and the first is read
    assert attribute_columns("house size, monuments and copper/gold", table) == [
        "Zhaus",
        "ZMon",
        "ZCU",
    ]
    assert attribute_columns("pottery", table) == []


def test_a_level_over_a_period_is_the_mean_of_a_z_series_against_its_average() -> None:
    query = "What is the relationship of amber and daggers between 1700-1500 BCE?"
    relation = "Between 1700-1500 BCE, there is a high number of amber finds and many daggers."
    derived = derive(query, gold(relation), [FORMS])
    assert derived is not None and [s.step for s in derived.steps] == [
        "p = filter(capital, BCE <= 1700)",
        "q = filter(p, BCE >= 1500)",
        "level(q, Zamber, 0)",  # the first clause that states a level: amber's
    ]
    assert derived.relation_template == (
        "Between 1700-1500 BCE, there is a {value} number of amber finds and many daggers."
    )
    assert run_steps(derived, [FORMS]) == "high"  # amber 1.0, 0.5, 0.0: mean 0.5 > 0
    later = derive("How much amber was there between 1400-1300 BCE?",
                   gold("Amber is scarce."), [FORMS])  # fmt: skip
    assert later is not None and run_steps(later, [FORMS]) == "low"  # -0.5, -1.0
    counts = Table(name="capital", description="capital rows.",
                   columns=[Column(name="BCE", description="Before Common Era"),
                            Column(name="amber", description="Amber finds")],
                   rows=[[1700, 3], [1600, 5]])  # fmt: skip
    # a count is not on a z scale: 0 is no average of it
    assert derive(query, gold(relation), [counts]) is None
