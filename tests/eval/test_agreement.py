"""Judge-human agreement (paper Tables 13-14) on a hand-made evaluation and hand-made ratings,
every pinned statistic worked out by hand in the comments."""

from __future__ import annotations

import csv
import json
import math

import pytest
from click.testing import CliRunner

from collabrl.eval.agreement import (
    agreement,
    krippendorff_alpha,
    pairwise_spearman,
    report_markdown,
    report_rows,
    spearman,
)
from collabrl.eval.rated_windows import episode_key, window_content, windows_of
from collabrl.eval.ratings import Rating
from collabrl.report.agreement_cli import agreement_command

DIMS = ("helpfulness", "trustfulness", "empathy")
FAIL = None  # a judge call that failed for that dimension

# Judge deductions V_w per episode, window and dimension. Four episodes of two windows each.
JUDGE = {
    "helpfulness": [[0, 0], [1, 0], [2, 1], [3, 3]],
    "trustfulness": [[0, FAIL], [1, 2], [3, FAIL], [4, 5]],
    "empathy": [[0, 0], [0, 0], [0, 0], [0, 0]],  # constant: no correlation defined
}
# Two raters' ratings (A, B) of the same eight windows, in the same order.
HUMAN = {
    "helpfulness": [[(5, 5), (5, 3)], [(5, 5), (5, 5)], [(3, 3), (3, 3)], [(1, 3), (3, 3)]],
    "trustfulness": [[(5, 4), (3, 3)], [(5, 5), (4, 2)], [(2, 3), (4, 4)], [(0, 1), (1, 1)]],
    "empathy": [[(4, 4), (4, 4)], [(4, 4), (4, 4)], [(4, 4), (4, 4)], [(4, 4), (4, 4)]],
}


def verdict(dimension: str, v: int | None) -> dict:
    if v is None:
        return {"dimension": dimension, "violations": [], "error": "timeout", "judge": "judge-x"}
    parts = [3] * (v // 3) + ([v % 3] if v % 3 else [])  # deductions are 1-3 points each
    return {
        "dimension": dimension,
        "violations": [{"rule": "r", "deduction": p} for p in parts],
        "error": None,
        "judge": "judge-x",
    }


def record(e: int) -> dict:
    turns = []
    for i in range(6):
        turns.append(
            {
                "tick": 2 * i,
                "seat": "Alice",
                "response": f"e{e}-{i}",
                "think": f"t{i}",
                "message": "",
                "action": "[wait]",
                "valid": True,
                "observation": f"o{i}",
            }
        )
        turns.append(
            {
                "tick": 2 * i + 1,
                "seat": "Bob",
                "response": f"b{e}-{i}",
                "message": f"hi {i}",
                "action": "[send_message]",
                "valid": True,
            }
        )
    return {
        "game": "household",
        "task": f"task{e}",
        "profile": f"p{e}",
        "seat": "Agent 1",
        "seat_name": "Alice",
        "seed": 0,
        "message_ratio": 0.5,
        "turns": turns,
        "windows": [
            {
                "decisions": [3 * w, 3 * w + 1, 3 * w + 2],
                "ticks": [6 * w, 6 * w + 2, 6 * w + 4],
                "judgements": {d: verdict(d, JUDGE[d][e][w]) for d in DIMS},
            }
            for w in range(2)
        ],
        "stamp": {"judge": "judge-x"},
    }


RECORDS = [record(e) for e in range(4)]


def ratings() -> list[Rating]:
    ids = [w.id for w in windows_of(RECORDS)]
    out, t = [], 100.0
    for k, rater in enumerate(("A", "B")):
        for e in range(4):
            for w in range(2):
                scores = {d: HUMAN[d][e][w][k] for d in DIMS}
                out.append(Rating(rater, ids[2 * e + w], scores, t=t))
                t += 1
    # an earlier rating of A's first window, superseded by the later one above
    out.append(Rating("A", ids[0], {"helpfulness": 0, "trustfulness": 0, "empathy": 0}, t=1.0))
    out.append(Rating("A", "0000000000000000:0-2", dict.fromkeys(DIMS, 3), t=200.0))  # not ours
    return out


def test_windows_carry_judge_deductions_and_content_ids() -> None:
    windows = windows_of(RECORDS)
    assert len(windows) == 8 and len({w.id for w in windows}) == 8
    assert windows[0].id == f"{episode_key(RECORDS[0])}:0-2"
    assert windows[7].judge_deductions == {"helpfulness": 3.0, "trustfulness": 5.0, "empathy": 0.0}
    assert windows[1].judge_deductions["trustfulness"] is None  # failed judge call
    assert windows[7].judge_score("trustfulness") == 0.0
    # the same trajectory re-read (another file, another judge) has the same ids; another differs
    assert windows_of([dict(RECORDS[0])])[0].id == windows[0].id
    changed = {**RECORDS[0], "turns": [{**RECORDS[0]["turns"][0], "response": "x"}]}
    assert episode_key(changed) != episode_key(RECORDS[0])


def test_window_content_shows_the_interaction_but_no_verdict() -> None:
    second = windows_of(RECORDS)[1]
    shown = window_content(RECORDS[0], second)
    # from just after Alice's decision 2 (turn 4) to her decision 5 (turn 10): Bob's turn 5 first
    assert [(t["seat"], t["tick"]) for t in shown["turns"]][:2] == [("Bob", 5), ("Alice", 6)]
    assert [t["judged"] for t in shown["turns"]].count(True) == 3
    assert shown["turns"][-1]["tick"] == 10
    assert "judgements" not in json.dumps(shown) and "deduction" not in json.dumps(shown)
    assert shown["profile"] == "p0"  # the job is named; its profile text is not in the record


def test_spearman_and_its_fisher_interval_by_hand() -> None:
    # ranks 1..5 against 1,3,2,4,5 shifted: d = (0, 1, -1, 0, 0), sum d^2 = 2,
    # rho = 1 - 6 * 2 / (5 * (25 - 1)) = 0.9; z = atanh(0.9) = 1.47222, SE = sqrt(1.06 / 2),
    # 1.95996 * 0.72801 = 1.42684: tanh(0.04538) = 0.04535, tanh(2.89906) = 0.99398
    e = spearman([5, 4, 3, 2, 1], [5, 3, 4, 2, 1])
    assert e.value == pytest.approx(0.9)
    assert (e.low, e.high) == (pytest.approx(0.04535, abs=1e-4), pytest.approx(0.99398, abs=1e-4))
    assert math.isnan(spearman([5, 5, 5, 5], [1, 2, 3, 4]).value)  # a constant side: undefined
    assert math.isnan(spearman([1, 2, 3], [1, 3, 2]).low)  # n < 4: no interval
    assert spearman([1, 2, 3, 4], [2, 4, 6, 8]).low == 1.0


def test_krippendorff_alpha_and_pairwise_spearman_by_hand() -> None:
    # units (1,1) (2,2) (3,3) (4,3): coincidences o_34 = o_43 = 1, n_1 = n_2 = 2, n_3 = 3, n_4 = 1,
    # n = 8. Ordinal delta^2(c,k) = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2: (3,4) -> 4, (1,2) -> 4,
    # (1,3) -> 20.25, (1,4) -> 42.25, (2,3) -> 6.25, (2,4) -> 20.25. Observed sum o*d2 = 8;
    # expected sum n_c n_k d2 over ordered pairs = 2 * 312 = 624; alpha = 1 - 7 * 8 / 624.
    units = {
        "u1": {"A": 1, "B": 1},
        "u2": {"A": 2, "B": 2},
        "u3": {"A": 3, "B": 3},
        "u4": {"A": 4, "B": 3},
        "u5": {"A": 2},
    }  # u5: one value, not pairable
    alpha = krippendorff_alpha(units)
    assert alpha.n == 4 and alpha.value == pytest.approx(1 - 56 / 624)
    assert alpha.low <= alpha.value <= alpha.high
    assert krippendorff_alpha(units) == alpha  # the bootstrap is seeded
    # ranks (1,2,3,4) vs (1,2,3.5,3.5): sum dx dy = 4.5, sum dx^2 = 5, sum dy^2 = 4.5
    pair = pairwise_spearman(units)
    assert pair.n == 1 and pair.value == pytest.approx(4.5 / math.sqrt(5 * 4.5))


def test_the_papers_statistics_on_hand_made_ratings() -> None:
    report = agreement([("eval", RECORDS)], ratings())
    (row,) = report.rows
    assert row.judge == "judge-x"
    assert report.raters == ["A", "B"] and report.rated_windows == 8 and report.unmatched == 1
    # Trajectory level, helpfulness (a = b = 0.8, rho = 0.5: no message penalty):
    # judge S = 5 - 0.8 mean(V) - 0.8 max(V): [0,0] 5, [1,0] 3.8, [2,1] 2.2, [3,3] 0.2;
    # human V = 5 - mean rating: [0,1] 3.8, [0,0] 5, [2,2] 1.8, [3,2] 0.6 (A's window 1 was
    # re-rated: the later rating counts). Ranks (4,3,2,1) vs (3,4,2,1): sum d^2 = 2,
    # rho = 1 - 12 / 60 = 0.8; n = 4: SE = sqrt(1.06), interval tanh(atanh(0.8) -+ 2.01806).
    help_traj = row.cells["trajectory"]["helpfulness"]
    assert (help_traj.n, help_traj.value) == (4, pytest.approx(0.8))
    assert help_traj.low == pytest.approx(-0.72556, abs=1e-4)
    assert help_traj.high == pytest.approx(0.99608, abs=1e-4)
    # Window level, trustfulness: two failed judge calls leave six windows, judge s_w 5..0
    # against mean ratings 4.5, 5, 3, 2.5, 0.5, 1: ranks (6,5,4,3,2,1) vs (5,6,4,3,1,2),
    # sum d^2 = 4, rho = 1 - 24 / 210 = 0.885714; interval tanh(atanh(rho) -+ 1.95996 sqrt(1.06/3))
    trust = row.cells["window"]["trustfulness"]
    assert (trust.n, trust.value) == (6, pytest.approx(1 - 24 / 210))
    assert (trust.low, trust.high) == (
        pytest.approx(0.23232, abs=1e-4),
        pytest.approx(0.98828, abs=1e-4),
    )
    assert math.isnan(row.cells["window"]["empathy"].value)  # the judge never deducted
    assert row.cells["window"]["empathy"].n == 8
    # Between raters, helpfulness: units (5,5) x3, (5,3), (3,3) x3, (1,3); n_5 = 7, n_3 = 8,
    # n_1 = 1, n = 16. delta^2: (3,5) = (15 - 7.5)^2 = 56.25, (1,3) = (9 - 4.5)^2 = 20.25,
    # (1,5) = (16 - 4)^2 = 144. Observed 2 * 56.25 + 2 * 20.25 = 153; expected
    # 2 * (56 * 56.25 + 8 * 20.25 + 7 * 144) = 8640; alpha = 1 - 15 * 153 / 8640 = 0.734375.
    inter = report.inter_rater
    assert inter["krippendorff_alpha_ordinal"]["helpfulness"].value == pytest.approx(0.734375)
    # mid-ranks A (6.5 x4, 3 x3, 1), B (7 x3, 3 x5): sum dA dB = 24, sums of squares 35 and 30
    pair = inter["mean_pairwise_spearman"]["helpfulness"]
    assert pair.value == pytest.approx(24 / math.sqrt(35 * 30))
    assert math.isnan(inter["krippendorff_alpha_ordinal"]["empathy"].value)  # all 4s


def test_table_in_the_papers_layout() -> None:
    text = report_markdown(agreement([("eval", RECORDS)], ratings()))
    assert "| Judge   | Personality Filtering   | Helpfulness" in text
    assert "per trajectory (the level of the paper's Tables 13-14)" in text
    line = next(x for x in text.splitlines() if x.startswith("| judge-x") and "0.80" in x)
    assert "0.80 [-0.73, 1.00] (n=4)" in line and "| n/a " in line
    assert "1 rating(s) name windows none of the evaluations holds" in text


def test_one_row_per_judge_of_several_evaluations() -> None:
    """Table 14: the same trajectories judged by two models are two rows; the ratings match
    both, as window ids name the trajectory, not the judge."""
    other = [
        {
            **r,
            "windows": [
                {
                    **w,
                    "judgements": {
                        d: {**v, "judge": "judge-y"} for d, v in w["judgements"].items()
                    },
                }
                for w in r["windows"]
            ],
        }
        for r in RECORDS
    ]
    report = agreement([("x", RECORDS), ("y", other)], ratings())
    assert [r.judge for r in report.rows] == ["judge-x", "judge-y"]
    assert report.rows[1].cells["trajectory"]["helpfulness"].value == pytest.approx(0.8)
    rows = report_rows(report)
    assert {r["comparison"] for r in rows} == {"judge-human", "human-human"}


def test_cli_reads_a_csv_of_ratings_and_writes_csv_and_json(tmp_path) -> None:
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "trajectories.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, ["rater", "window", *DIMS])
        writer.writeheader()
        for r in sorted(ratings(), key=lambda r: r.t):
            writer.writerow({"rater": r.rater, "window": r.window, **r.scores})
    out = tmp_path / "out"
    result = CliRunner().invoke(
        agreement_command, [str(folder), "--ratings", str(path), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "0.80 [-0.73, 1.00] (n=4)" in result.output
    data = json.loads((out / "agreement.json").read_text())
    traj = next(
        r for r in data["rows"] if r["level"] == "trajectory" and r["dimension"] == "helpfulness"
    )
    assert traj["value"] == pytest.approx(0.8) and traj["n"] == 4
    with open(out / "agreement.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * 3 + 2 * 3  # judge-human (2 levels x 3) + human-human (2 x 3)


def test_cli_errors_are_one_line(tmp_path, capsys) -> None:
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "trajectories.jsonl").write_text(json.dumps(RECORDS[0]) + "\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("rater,window,helpfulness,trustfulness,empathy\nA,w,9,1,1\n")
    from collabrl.cli import main

    for args, message in [
        ([str(folder)], "no such ratings file"),
        ([str(folder), "--ratings", str(bad)], "line 2: helpfulness: 9 is not a whole number"),
        ([str(tmp_path), "--ratings", str(bad)], "line 2"),
        ([str(tmp_path / "none"), "--ratings", str(bad)], "no such file or folder"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            main(["report", "agreement", *args])
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and message in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
