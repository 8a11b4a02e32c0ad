"""The analysis language: every operation on a small hand-made table with its result pinned, the
traps' semantics (first vs second event, peak vs plateau, years BCE), the notebook text, and
steps that must fail with an error (never an exception), injection attempts included."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collabrl.envs.analysis.language import MAX_CHARS, MAX_ROWS, OPS, Outcome, Workspace


def samples() -> pd.DataFrame:
    """Eight dated samples: a text column and a float column with one empty cell each."""
    return pd.DataFrame(
        {
            "period": [1, 2, 3, 4, 5, 6, 7, 8],
            "site": ["A", "B", "A", "B", "A", "C", "A", None],
            "count": [2, 9, 1, 6, 7, 3, 8, 4],
            "year_bce": [3200, 3000, 3100, 2900, 2500, 2700, 2600, 2400],
            "pollen": [1.5, 2.25, None, 4.0, 4.5, 4.25, 10.0, 4.4],
        }
    )


@pytest.fixture
def ws() -> Workspace:
    return Workspace({"samples": samples()})


def ok(ws: Workspace, step: str) -> Outcome:
    outcome = ws.run(step)
    assert outcome.error is None, outcome.error
    return outcome


def column(ws: Workspace, step: str, name: str) -> list:
    """One column of a table result, empty cells as None."""
    table = ok(ws, step).table
    assert table is not None
    return [None if pd.isna(v) else v for v in table[name].tolist()]


def value(ws: Workspace, step: str) -> object:
    outcome = ok(ws, step)
    assert outcome.table is None
    return outcome.value


# ------------------------------------------------------------------------------- operations
def test_show_renders_the_column_names_the_rows_and_the_row_count(ws: Workspace) -> None:
    outcome = ok(ws, "show(samples)")
    assert outcome.text == (
        "period  site  count  year_bce  pollen\n"
        "1       A     2      3200      1.5\n"
        "2       B     9      3000      2.25\n"
        "3       A     1      3100      NaN\n"
        "4       B     6      2900      4\n"
        "5       A     7      2500      4.5\n"
        "6       C     3      2700      4.25\n"
        "7       A     8      2600      10\n"
        "8       NaN   4      2400      4.4\n"
        "(8 rows)"
    )
    assert outcome.value is None and outcome.name is None
    pd.testing.assert_frame_equal(outcome.table, samples())


def test_select_keeps_the_columns_in_the_order_given(ws: Workspace) -> None:
    table = ok(ws, "select(samples, count, site)").table
    assert list(table.columns) == ["count", "site"]
    assert table["count"].tolist() == [2, 9, 1, 6, 7, 3, 8, 4]


@pytest.mark.parametrize(
    ("condition", "periods"),
    [
        ('site == "A"', [1, 3, 5, 7]),
        ('site != "A"', [2, 4, 6]),  # the empty site satisfies no condition
        ("count > 6", [2, 5, 7]),
        ("count >= 6", [2, 4, 5, 7]),
        ("count < 3", [1, 3]),
        ("count <= 3", [1, 3, 6]),
        ("pollen > 4.25", [5, 7, 8]),
        ("year_bce == -1", []),
    ],
)
def test_filter_keeps_the_rows_where_the_condition_holds(
    ws: Workspace, condition: str, periods: list[int]
) -> None:
    assert column(ws, f"filter(samples, {condition})", "period") == periods


def test_sort_is_stable_both_ways_with_empty_cells_last(ws: Workspace) -> None:
    assert column(ws, "sort(samples, site, asc)", "period") == [1, 3, 5, 7, 2, 4, 6, 8]
    assert column(ws, "sort(samples, site, desc)", "period") == [6, 2, 4, 1, 3, 5, 7, 8]
    assert column(ws, "sort(samples, pollen, desc)", "period") == [7, 5, 8, 6, 4, 2, 1, 3]


def test_years_bce_run_oldest_first_when_sorted_descending(ws: Workspace) -> None:
    assert column(ws, "sort(samples, year_bce, desc)", "year_bce") == [
        3200,
        3100,
        3000,
        2900,
        2700,
        2600,
        2500,
        2400,
    ]
    assert column(ws, "sort(samples, year_bce, asc)", "period")[0] == 8  # the youngest first


@pytest.mark.parametrize(
    ("how", "counts"),
    [
        ("sum", [18, 15, 3]),
        ("mean", [4.5, 7.5, 3.0]),
        ("count", [4, 2, 1]),
        ("min", [1, 6, 3]),
        ("max", [8, 9, 3]),
    ],
)
def test_group_aggregates_per_value_in_order_of_first_appearance(
    ws: Workspace, how: str, counts: list
) -> None:
    table = ok(ws, f"group(samples, site, count, {how})").table
    assert list(table.columns) == ["site", "count"]
    assert table["site"].tolist() == ["A", "B", "C"]  # the empty site is left out
    assert table["count"].tolist() == counts


def test_group_skips_empty_cells_of_the_aggregated_column(ws: Workspace) -> None:
    outcome = ok(ws, "group(samples, site, pollen, mean)")
    assert outcome.table["pollen"].tolist() == pytest.approx([16 / 3, 3.125, 4.25])
    assert outcome.text == "site  pollen\nA     5.3333\nB     3.125\nC     4.25\n(3 rows)"
    assert column(ws, "group(samples, site, pollen, count)", "pollen") == [3, 2, 1]


def test_bin_floors_to_the_width(ws: Workspace) -> None:
    assert column(ws, "bin(samples, year_bce, 500)", "year_bce_bin") == [
        3000,
        3000,
        3000,
        2500,
        2500,
        2500,
        2500,
        2000,
    ]
    assert column(ws, "bin(samples, pollen, 2.5)", "pollen_bin") == [
        0.0,
        0.0,
        None,
        2.5,
        2.5,
        2.5,
        10.0,
        2.5,
    ]
    dated = Workspace({"t": pd.DataFrame({"year": [-3050, -3000, -2999, 120]})})
    assert column(dated, "bin(t, year, 100)", "year_bin") == [-3100, -3000, -3000, 100]


def test_diff_is_each_row_minus_the_previous_one(ws: Workspace) -> None:
    assert column(ws, "diff(samples, count)", "count_diff") == [None, 7, -8, 5, 1, -4, 5, -4]
    diffs = column(ws, "diff(samples, pollen)", "pollen_diff")
    assert diffs == pytest.approx([None, 0.75, None, None, 0.5, -0.25, 5.75, -5.6])


def test_rolling_aggregates_the_last_window_rows(ws: Workspace) -> None:
    sums = column(ws, "rolling(samples, count, 3, sum)", "count_rolling")
    assert sums == [None, None, 12, 16, 14, 16, 18, 15]
    means = column(ws, "rolling(samples, count, 3, mean)", "count_rolling")
    assert means == pytest.approx([None, None, 4, 16 / 3, 14 / 3, 16 / 3, 6, 5])
    # a window holding an empty cell is empty, as in pandas
    pollen = column(ws, "rolling(samples, pollen, 2, sum)", "pollen_rolling")
    assert pollen == pytest.approx([None, 3.75, None, None, 8.5, 8.75, 14.25, 14.4])
    assert column(ws, "rolling(samples, count, 9, sum)", "count_rolling") == [None] * 8


def test_rolling_matches_pandas(ws: Workspace) -> None:
    expected = samples()["pollen"].rolling(3).mean()
    got = ok(ws, "rolling(samples, pollen, 3, mean)").table["pollen_rolling"]
    pd.testing.assert_series_equal(got, expected, check_names=False)


def test_extrema_is_the_key_of_the_first_largest_or_smallest_row(ws: Workspace) -> None:
    assert value(ws, "extrema(samples, count, period, max)") == 2
    assert value(ws, "extrema(samples, count, period, min)") == 3
    assert value(ws, "extrema(samples, pollen, site, max)") == "A"
    ties = Workspace({"t": pd.DataFrame({"k": ["x", "y", "z"], "v": [5, 7, 7]})})
    assert value(ties, "extrema(t, v, k, max)") == "y"


def test_event_n_counts_runs_not_rows(ws: Workspace) -> None:
    # count > 5 holds on periods 2, 4-5 and 7: three events
    assert value(ws, "event(samples, count, >, 5, period, 1)") == 2
    assert value(ws, "event(samples, count, >, 5, period, 2)") == 4  # not 5: same run as 4
    assert value(ws, "event(samples, count, >, 5, period, 3)") == 7
    assert value(ws, "event(samples, count > 5, period, 2)") == 4  # the condition form
    assert value(ws, 'event(samples, site, "==", "B", year_bce, 2)') == 2900
    outcome = ws.run("event(samples, count, >, 5, period, 4)")
    assert outcome.error == "event: count > 5 starts 3 event(s), not 4"


def test_flag_marks_rows_where_every_condition_holds_so_event_counts_their_runs(
    ws: Workspace,
) -> None:
    # count > 5 on periods 2, 4, 5, 7; pollen > 4 on 5, 6, 7, 8 (period 3 empty): both on 5, 7
    assert column(ws, "m = flag(samples, count > 5, pollen > 4)", "flag") == [
        0,
        0,
        0,
        0,
        1,
        0,
        1,
        0,
    ]
    assert value(ws, "event(m, flag == 1, period, 2)") == 7  # a filter would join 5 and 7
    assert column(ws, 'flag(samples, site == "A")', "flag") == [1, 0, 1, 0, 1, 0, 1, 0]
    assert ws.run("flag(samples, count)").error == (
        'flag: c OP literal must be a condition like count > 3 or site == "A"'
    )


def test_an_empty_cell_ends_an_event(ws: Workspace) -> None:
    # pollen > 2 holds on periods 2 and 4-8; the empty period 3 splits them into two events
    assert value(ws, "event(samples, pollen, >, 2, period, 2)") == 4


def test_plateau_is_the_longest_level_run_not_the_peak() -> None:
    levels = [1.0, 5.0, 5.2, 4.9, 5.1, 2.0, 9.0, 3.0, 3.1]
    ws = Workspace({"t": pd.DataFrame({"period": range(1, 10), "level": levels})})
    assert value(ws, "extrema(t, level, period, max)") == 7  # the one-row spike
    assert value(ws, "plateau(t, level, period, 0.3)") == 2  # 5.0 5.2 4.9 5.1
    assert value(ws, "plateau(t, level, period, 0.1)") == 8  # 3.0 3.1 (5.0, 5.2 differ by 0.2)
    assert value(ws, "plateau(t, level, period, 0)") == 7  # all runs of one: the highest


def test_plateau_ties_go_to_the_higher_run() -> None:
    ws = Workspace({"t": pd.DataFrame({"k": list("abcdef"), "v": [5, 5, 1, 7, 7, 0]})})
    assert value(ws, "plateau(t, v, k, 0)") == "d"


def test_plateau_with_empty_cells(ws: Workspace) -> None:
    # pollen: 1.5 2.25 _ 4.0 4.5 4.25 10.0 4.4; within 0.5 of 4.0: periods 4-6
    assert value(ws, "plateau(samples, pollen, period, 0.5)") == 4


def test_corr_is_pearson_over_filled_pairs_rounded(ws: Workspace) -> None:
    assert value(ws, "corr(samples, count, pollen)") == 0.39  # pandas: 0.3929
    assert value(ws, "corr(samples, period, year_bce)") == -0.92  # pandas: -0.9163
    assert value(ws, "corr(samples, period, period)") == 1.0


def test_trend_reads_the_first_and_last_filled_values_in_table_order(ws: Workspace) -> None:
    # pollen: 1.5 2.25 _ 4.0 4.5 4.25 10.0 4.4 (first 1.5, last 4.4)
    assert value(ws, "trend(samples, pollen)") == "increase"
    ok(ws, "r = sort(samples, pollen, desc)")  # 10.0 first, the empty cell last: 1.5 before it
    assert value(ws, "trend(r, pollen)") == "decrease"
    flat = Workspace({"t": pd.DataFrame({"v": [2.0, 9.0, None, 2.0]})})
    assert value(flat, "trend(t, v)") == "no change"
    assert ws.run("trend(samples, site)").error == (
        "trend: column 'site' holds text; trend needs numbers"
    )


def test_scale_multiplies_and_keeps_ints_and_empty_cells() -> None:
    years = Workspace({"t": pd.DataFrame({"CE": [-1500, -1400, None]})})
    assert ok(years, "scale(t, CE, -1)").table["CE_scaled"].tolist()[:2] == [1500, 1400]
    half = Workspace({"t": pd.DataFrame({"v": [0.3, 0.0]})})
    assert ok(half, "scale(t, v, -0.5)").table["v_scaled"].tolist() == [-0.15, 0.0]  # no -0.0
    assert years.run("scale(t, CE, x)").error is not None


def test_pca_scores_rows_on_the_components_with_a_fixed_sign() -> None:
    # b = 2a: all the spread lies along (1, 2) / sqrt(5); centred a is -1.5 -0.5 0.5 1.5
    line = Workspace({"t": pd.DataFrame({"a": [1, 2, 3, 4], "b": [2.0, 4.0, 6.0, 8.0]})})
    scores = ok(line, "p = pca(t, a, b)").table
    assert scores["PC1"].tolist() == [-3.3541, -1.118, 1.118, 3.3541]  # (a + 2b) / sqrt(5)
    assert scores["PC2"].abs().max() < 1e-9
    flipped = Workspace({"t": pd.DataFrame({"a": [4, 3, 2, 1], "b": [-8.0, -6.0, -4.0, -2.0]})})
    # b = -2a: the largest loading (b's) is made positive, so the scores rise with b, not a
    assert ok(flipped, "pca(t, a, b)").table["PC1"].tolist() == [-3.3541, -1.118, 1.118, 3.3541]
    gappy = Workspace({"t": pd.DataFrame({"a": [1.0, None, 3.0, 4.0], "b": [2.0, 1.0, 0.0, 5.0]})})
    assert pd.isna(ok(gappy, "pca(t, a, b)").table["PC1"][1])  # a row with an empty cell
    assert line.run("pca(t, a)").error == (
        "pca: needs at least 2 columns and 3 rows where all of them are filled"
    )


def test_loadings_are_the_columns_weights_on_the_axes_pca_scores_rows_on() -> None:
    # b = 2a: the first axis is (1, 2) / sqrt(5); c is constant, so it loads 0 on it
    line = Workspace({"t": pd.DataFrame({"a": [1, 2, 3, 4], "b": [2.0, 4.0, 6.0, 8.0]})})
    loadings = ok(line, "l = loadings(t, a, b)").table
    assert loadings["attribute"].tolist() == ["a", "b"]
    assert loadings["PC1"].tolist() == [0.4472, 0.8944]
    flipped = Workspace({"t": pd.DataFrame({"a": [4, 3, 2, 1], "b": [-8.0, -6.0, -4.0, -2.0]})})
    assert ok(flipped, "loadings(t, a, b)").table["PC1"].tolist() == [-0.4472, 0.8944]
    assert line.run("loadings(t, a)").error == (
        "loadings: needs at least 2 columns and 3 rows where all of them are filled"
    )


def test_among_keeps_the_rows_holding_one_of_the_values() -> None:
    ws = Workspace({"t": pd.DataFrame({"s": ["x", "y", None, "z"], "v": [1, 2, 3, 4]})})
    assert ok(ws, "among(t, s, 'x', 'z')").table["v"].tolist() == [1, 4]
    assert ok(ws, "among(t, v, 2, 9)").table["s"].tolist() == ["y"]
    assert ws.run("among(t, v, 'x')").error == "bad condition: 'v' holds numbers, 'x' is text"
    assert (
        ws.run("among(t, s)").error == "among(T, c, literal, ...) takes 3 or more arguments, got 2"
    )


def test_level_places_the_mean_against_a_reference() -> None:
    ws = Workspace({"t": pd.DataFrame({"z": [0.5, -0.1, None, 0.2], "w": [0.1, 0.2, 0.3, None]})})
    assert value(ws, "level(t, z, 0)") == "high"  # mean 0.2
    assert value(ws, "level(t, z, 0.3)") == "low"
    assert value(ws, "level(t, w, 0.2)") == "average"  # 0.1 + 0.2 + 0.3 at 9 decimals
    assert ws.run("level(t, z, high)").error is not None


def test_sign_is_the_sign_most_filled_values_share() -> None:
    ws = Workspace({"t": pd.DataFrame({"v": [-1.0, 2.0, None, -0.5], "w": [1.0, -1.0, 0.0, 0.0]})})
    assert value(ws, "sign(t, v)") == "negative"
    assert value(ws, "sign(t, w)") == "mixed"  # one each way; zeros have no sign
    ok(ws, "p = filter(t, v > 0)")
    assert value(ws, "sign(p, v)") == "positive"
    assert ws.run("sign(t, x)").error is not None


def test_count_counts_rows(ws: Workspace) -> None:
    assert value(ws, "count(samples)") == 8
    ok(ws, 'a = filter(samples, site == "A")')
    assert value(ws, "count(a)") == 4


# ----------------------------------------------------------------------- names and results
def test_named_results_chain_and_overwrite(ws: Workspace) -> None:
    first = ok(ws, 'r1 = filter(samples, site == "A")')
    assert first.name == "r1"
    ok(ws, "r2 = sort(r1, count, desc)")
    assert value(ws, "extrema(r2, count, period, max)") == 7
    ok(ws, "r1 = filter(samples, count > 100)")  # overwrites
    assert value(ws, "count(r1)") == 0
    assert ws.names() == ("samples", "r1", "r2")


def test_scalars_can_be_named_but_are_not_tables(ws: Workspace) -> None:
    outcome = ok(ws, "n = count(samples)")
    assert (outcome.name, outcome.value, outcome.text) == ("n", 8, "n = 8")
    assert ws.names() == ("samples", "n")
    assert ws.run("show(n)").error == "n is a value (8), not a table"


def test_a_result_may_not_shadow_a_task_table(ws: Workspace) -> None:
    outcome = ws.run('samples = filter(samples, site == "A")')
    assert outcome.error == "samples is a task table; keep the result under another name"
    assert value(ws, "count(samples)") == 8
    assert ws.names() == ("samples",)


def test_a_failed_step_keeps_nothing(ws: Workspace) -> None:
    assert ws.run("r1 = filter(samples, nope > 1)").error is not None
    assert ws.names() == ("samples",)


def test_the_task_tables_are_never_changed() -> None:
    table = samples()
    ws = Workspace({"samples": table})
    for step in ("bin(samples, count, 2)", "diff(samples, count)", "sort(samples, count, asc)"):
        ok(ws, step)
    shown = ok(ws, "show(samples)").table
    shown.loc[0, "count"] = 99
    pd.testing.assert_frame_equal(table, samples())
    assert value(ws, "extrema(samples, period, count, min)") == 2


def test_quoted_column_names_and_single_quotes() -> None:
    ws = Workspace({"t": pd.DataFrame({"pollen (%)": [1.0, 3.0], "site": ["A", "B"]})})
    assert list(ok(ws, 'select(t, "pollen (%)")').table.columns) == ["pollen (%)"]
    assert column(ws, "filter(t, 'pollen (%)' > 2)", "site") == ["B"]
    assert column(ws, "filter(t, site == 'A')", "site") == ["A"]
    assert column(ws, 'sort(t, site, "DESC")', "site") == ["B", "A"]


def test_the_same_steps_give_the_same_outcomes() -> None:
    steps = [
        'a = filter(samples, site != "C")',
        "b = rolling(a, pollen, 2, mean)",
        "group(b, site, pollen_rolling, mean)",
        "plateau(b, pollen, period, 0.5)",
        "corr(b, count, pollen)",
        "show(nope)",
    ]
    runs = [[Workspace({"samples": samples()}).run(s) for s in steps] for _ in range(2)]
    for one, two in zip(*runs, strict=True):
        assert one == two  # step, name, text, value, error (the table is not compared)
        if one.table is not None:
            pd.testing.assert_frame_equal(one.table, two.table)


def test_the_table_is_built_once_on_first_read(ws: Workspace) -> None:
    outcome = ok(ws, "diff(samples, count)")
    assert outcome.table is outcome.table
    assert [f.name for f in dataclasses.fields(Outcome)] == [
        "step",
        "name",
        "text",
        "value",
        "table",
        "error",
    ]
    made = Outcome("s", None, "t", None, pd.DataFrame({"a": [1]}), None)
    assert made.table["a"].tolist() == [1]
    assert Outcome("s", None, "t", 3).table is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.table = None  # type: ignore[misc]


# ------------------------------------------------------------------------------------- text
def test_scalar_text_formats_numbers_with_at_most_four_decimals() -> None:
    ws = Workspace({"t": pd.DataFrame({"k": [1 / 3, 2.5, 1e-7, 7.0], "v": [4, 3, 2, 1]})})
    assert ok(ws, "extrema(t, v, k, max)").text == "extrema(t, v, k, max) = 0.3333"
    assert ok(ws, "x = extrema(t, v, k, min)").text == "x = 7"
    assert ok(ws, "x = extrema(t, k, k, min)").text == "x = 1e-07"
    assert ok(ws, "x = extrema(t, k, v, min)").value == 2
    site = ok(Workspace({"s": samples()}), "top = extrema(s, count, site, max)")
    assert (site.value, site.text) == ("B", 'top = "B"')


def test_table_text_shows_the_first_rows_and_stays_bounded() -> None:
    long = Workspace({"t": pd.DataFrame({"n": range(60), "word": ["x" * 50] * 60})})
    text = ok(long, "show(t)").text
    lines = text.split("\n")
    assert len(lines) == 1 + MAX_ROWS + 1 and lines[-1] == "(60 rows)"
    assert lines[1] == "0  " + "x" * 23 + "…"  # a long cell is cut
    wide = Workspace({"t": pd.DataFrame({f"column_{i}": [i * 1.123456] for i in range(200)})})
    outcome = ok(wide, "show(t)")
    assert len(outcome.text) == MAX_CHARS and outcome.text.endswith("…")
    one = Workspace({"t": pd.DataFrame({"a": [1]})})
    assert ok(one, "show(t)").text == "a\n1\n(1 row)"
    assert ok(one, "filter(t, a > 5)").text == "a\n(0 rows)"


# ----------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("step", "error"),
    [
        ("", "empty step: write op(arg, ...), e.g. show(T)"),
        ("frobnicate(samples)", "unknown operation 'frobnicate' (operations: "),
        ("show(nope)", "unknown table 'nope' (tables: samples)"),
        ("select(samples, nope)", "no column 'nope' (columns: period, site, count, "),
        ("sort(samples, count)", "sort(T, c, asc|desc) takes 3 arguments, got 2"),
        ("sort(samples, count, up)", "sort: asc|desc must be one of asc|desc"),
        ("count()", "count(T) needs a table first"),
        ("filter(samples, count)", "filter: c OP literal must be a condition like count > 3"),
        ("filter(samples, site == A)", "bad condition: compare with a number or a quoted string"),
        ("filter(samples, site == 3)", "bad condition: 'site' holds text; quote the value"),
        ('filter(samples, count > "3")', "bad condition: 'count' holds numbers, '3' is text"),
        ("filter(samples, count >)", "bad condition: compare with a number or a quoted string"),
        ("filter(samples, count => 3)", "expected ',' between arguments, found '='"),
        ("filter(samples, count ! 3)", "unexpected character '!' at position 23"),
        ("count(filter(samples, count > 1))", "one operation per step: name the inner result"),
        ("group(samples, site, site, count)", "group: aggregate a column other than"),
        ("group(samples, period, site, sum)", "group sum: column 'site' holds text"),
        ("bin(samples, count, 0)", "bin: width must be positive"),
        ("rolling(samples, count, 0, sum)", "rolling: window must be a whole number, at least 1"),
        ("rolling(samples, count, 1.5, sum)", "rolling: window must be a whole number"),
        ("event(samples, count, >, 5, period, 0)", "event: n must be a whole number"),
        ("event(samples, count, ~, 5, period, 1)", "unexpected character '~'"),
        ("event(samples, count, period, 5, period, 1)", "event: OP must be one of"),
        ("plateau(samples, count, period, -1)", "plateau: tolerance must be at least 0"),
        ("corr(samples, site, count)", "corr: column 'site' holds text"),
        ("corr(samples, period, site)", "corr: column 'site' holds text"),
        ("diff(samples, site)", "diff: column 'site' holds text"),
        ("show(samples", "show(...) must end with ')' and nothing after it"),
        ("show(samples) show(samples)", "show(...) must end with ')' and nothing after it"),
        ("show(samples,)", "an argument is missing after the last ','"),
        ("show(samples samples)", "expected ',' between arguments, found 'samples'"),
        ("bin(samples, count, 1e999)", "number out of range: '1e999'"),
        ("r1 = samples", "a step is [name =] op(arg, ...)"),
    ],
)
def test_bad_steps_give_one_line_errors(ws: Workspace, step: str, error: str) -> None:
    outcome = ws.run(step)
    assert outcome.error is not None and outcome.error.startswith(error), outcome.error
    assert outcome.text == f"error: {outcome.error}"
    assert "\n" not in outcome.text
    assert (outcome.value, outcome.table, outcome.name) == (None, None, None)


def test_constant_columns_have_no_correlation() -> None:
    ws = Workspace({"t": pd.DataFrame({"a": [1, 1, 1], "b": [1, 2, 3]})})
    assert ws.run("corr(t, a, b)").error == "corr: 'a' is constant"
    assert ws.run("corr(filter(t, a > 1), a, b)").error is not None


@pytest.mark.parametrize(
    "step",
    [
        '__import__("os")',
        "__import__('os').system('ls')",
        'r = __import__("os")',
        "samples.columns",
        "samples.__class__.__bases__",
        'samples["site"]',
        "lambda: 0",
        "(lambda x: x)(1)",
        'exec("print(1)")',
        'eval("1 + 1")',
        'open("/etc/passwd")',
        "show(samples); show(samples)",
        "show(samples)\nimport os",
        "[x for x in samples]",
        "filter(samples, count > 1 or 1 == 1)",
        'filter(samples, __import__("os") == 1)',
        "show(*samples)",
        "show(samples=1)",
        "r = 1 + 1",
        "show(samples) # comment",
        "globals()",
        "f'{1}'",
        "\x00",
        "show(sam\u200bples)",
        "show(" * 300,
        "x" * 501,
    ],
)
def test_python_is_never_evaluated(ws: Workspace, step: str) -> None:
    outcome = ws.run(step)
    assert outcome.error is not None
    assert "\n" not in outcome.error and len(outcome.text) <= MAX_CHARS
    assert ws.names() == ("samples",)


def test_long_steps_are_refused_and_cut() -> None:
    ws = Workspace({"samples": samples()})
    step = "show(samples)" + " " * 10 + "x" * 600
    outcome = ws.run(step)
    assert outcome.error == "a step has at most 500 characters, this one 623"
    assert len(outcome.step) == 500


def test_the_spec_lists_every_operation() -> None:
    from collabrl.envs.analysis import language

    for name in OPS:
        assert f"``{name}(T" in (language.__doc__ or "")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "r",
                "=",
                "(",
                ")",
                ",",
                "samples",
                "site",
                "count",
                "pollen",
                "period",
                '"A"',
                "'",
                "3",
                "-2.5",
                "1e3",
                ">",
                "==",
                "!",
                "asc",
                "max",
                "mean",
                *OPS,
            ]
        ),
        max_size=14,
    ),
    st.text(max_size=30),
)
def test_any_text_gives_an_outcome(parts: list[str], noise: str) -> None:
    ws = Workspace({"samples": samples()})
    for step in (" ".join(parts), "".join(parts), noise, " ".join(parts) + noise):
        outcome = ws.run(step)
        assert isinstance(outcome, Outcome) and len(outcome.text) <= MAX_CHARS
        assert (outcome.error is None) or ("\n" not in outcome.error)
