"""Every CSV collabrl writes neutralises formula-leading text (OWASP's CSV injection rule) and
leaves numbers alone; the evaluation's CSVs go through the same writer as the study's."""

from __future__ import annotations

import csv

from collabrl.eval import report
from collabrl.records import csv_cell

FORMULAS = ('=HYPERLINK("http://x","y")', "@SUM(A1)", "+1", "-1+2", "=1+2", "\tx", "\r=1", "-")


def test_formula_leading_text_gets_a_quote_and_numbers_stay() -> None:
    for text in FORMULAS:
        assert csv_cell(text) == "'" + text
    for number in ("-3", "-0.5", "-1e-3", "-2E+4"):  # a spreadsheet reads these as numbers
        assert csv_cell(number) == number
    for value in (-1, -1.5, 0, True, None, "", "plain", "a=b", "'quoted"):
        assert csv_cell(value) == value


def test_an_eval_csv_cannot_carry_a_formula(tmp_path) -> None:
    rows = [
        {"task": text, "profile": "cwah-0_read_book", "efficiency": -1.5, "seed": 0}
        for text in FORMULAS
    ]
    path = tmp_path / "episodes.csv"
    report.write_csv(path, rows)
    with open(path, encoding="utf-8", newline="") as f:
        back = list(csv.DictReader(f))
    assert [r["task"] for r in back] == ["'" + text for text in FORMULAS]
    assert {r["efficiency"] for r in back} == {"-1.5"} and {r["seed"] for r in back} == {"0"}
    assert {r["profile"] for r in back} == {"cwah-0_read_book"}
