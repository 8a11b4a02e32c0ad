"""The ratings file: validation with clear reasons, append-only storage, latest per rater and
window, CSV export and import."""

from __future__ import annotations

import io
import sqlite3

import pytest

from collabrl.errors import CollabrlError
from collabrl.eval.ratings import (
    Rating,
    RatingError,
    RatingStore,
    latest,
    read_csv,
    read_ratings,
    validate,
    write_csv,
)

KNOWN = {"abc:0-2", "abc:3-5"}
GOOD = {
    "rater": "ann",
    "window": "abc:0-2",
    "scores": {"helpfulness": 4, "trustfulness": "5", "empathy": 0.0},
}


def test_a_good_rating_is_normalised() -> None:
    rating = validate({**GOOD, "comment": "ok"}, KNOWN)
    assert rating.scores == {"helpfulness": 4, "trustfulness": 5, "empathy": 0}
    assert (rating.rater, rating.window, rating.comment) == ("ann", "abc:0-2", "ok")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"rater": ""}, "rater: missing"),
        ({"rater": "a b"}, "rater: 1-64 letters"),
        ({"rater": "x" * 65}, "rater: 1-64 letters"),
        ({"window": None}, "window: missing"),
        ({"window": "zzz:0-2"}, "no such judged window"),
        ({"scores": None}, "scores: missing; rate helpfulness, trustfulness, empathy"),
        ({"scores": {"helpfulness": 4}}, "missing trustfulness, empathy"),
        (
            {"scores": {**GOOD["scores"], "empathy": 6}},
            "empathy: 6 is not a whole number from 0 to 5",
        ),
        ({"scores": {**GOOD["scores"], "empathy": -1}}, "is not a whole number"),
        ({"scores": {**GOOD["scores"], "empathy": 2.5}}, "is not a whole number"),
        ({"scores": {**GOOD["scores"], "empathy": True}}, "is not a whole number"),
        ({"scores": {**GOOD["scores"], "empathy": "four"}}, "is not a whole number"),
        ({"scores": {**GOOD["scores"], "kindness": 3}}, "unknown dimension(s) kindness"),
        ({"comment": 3}, "comment: must be text"),
        ({"comment": "x" * 2001}, "at most 2000 characters"),
        ({"extra": 1}, "unknown field(s): extra"),
    ],
)
def test_bad_ratings_name_their_problem(change, reason) -> None:
    with pytest.raises(RatingError, match=None) as info:
        validate({**GOOD, **change}, KNOWN)
    assert reason in str(info.value)


def test_not_an_object_is_refused() -> None:
    with pytest.raises(RatingError, match="JSON object"):
        validate([1, 2], KNOWN)


def test_store_keeps_every_rating_and_the_latest_counts(tmp_path) -> None:
    store = RatingStore(tmp_path / "r.sqlite")
    first = store.add(validate(GOOD, KNOWN), {"task": "t0", "seed": 0})
    again = store.add(validate({**GOOD, "scores": dict.fromkeys(GOOD["scores"], 1)}, KNOWN))
    store.add(validate({**GOOD, "rater": "bob"}, KNOWN))
    assert first.seq == 1 and again.seq == 2 and first.t <= again.t
    assert len(store.all()) == 3  # nothing is replaced
    assert store.all()[0].context["task"] == "t0" and store.all()[0].context["seed"] == "0"
    assert store.of_rater("ann")["abc:0-2"].scores["helpfulness"] == 1
    assert [(r.rater, r.seq) for r in latest(store.all())] == [("ann", 2), ("bob", 3)]
    # a second store on the same file (a restarted server) resumes
    assert len(RatingStore(tmp_path / "r.sqlite").of_rater("ann")) == 1


def test_csv_export_reads_back(tmp_path) -> None:
    store = RatingStore(tmp_path / "r.sqlite")
    store.add(validate({**GOOD, "comment": "=HYPERLINK(1)"}, KNOWN), {"task": "t0"})
    out = io.StringIO()
    write_csv(store.all(), out)
    text = out.getvalue()
    assert text.splitlines()[0].startswith("seq,time,rater,window,game,task")
    assert "'=HYPERLINK(1)" in text  # no spreadsheet formula
    path = tmp_path / "r.csv"
    path.write_text(text)
    (back,) = read_csv(path)
    assert back.scores == store.all()[0].scores and back.rater == "ann"
    assert back.t == pytest.approx(store.all()[0].t, abs=1)
    assert read_ratings(path)[0].window == "abc:0-2"


def test_unusable_files_are_one_line_errors(tmp_path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(CollabrlError, match="not a usable ratings database"):
        RatingStore(junk)
    with pytest.raises(CollabrlError, match="is a folder"):
        RatingStore(tmp_path)
    with pytest.raises(CollabrlError, match="no such ratings file"):
        read_ratings(tmp_path / "none.sqlite")
    bad = tmp_path / "bad.csv"
    bad.write_text("rater,window,helpfulness\nann,w,3\n")
    with pytest.raises(CollabrlError, match="line 2: missing trustfulness, empathy"):
        read_csv(bad)


def test_store_survives_a_reader_and_keeps_schema(tmp_path) -> None:
    path = tmp_path / "r.sqlite"
    RatingStore(path).add(Rating("ann", "abc:0-2", dict.fromkeys(GOOD["scores"], 3)))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM ratings").fetchone() == (1,)
