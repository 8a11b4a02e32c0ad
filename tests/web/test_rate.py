"""The rating page (``collabrl view EVAL_DIR --rate``): its API's answers to good and bad input,
and a person rating two windows in the browser, read back by ``collabrl report agreement``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from playwright.sync_api import expect
from starlette.testclient import TestClient

from collabrl.eval.cli import eval_command
from collabrl.eval.ratings import RatingStore, read_ratings
from collabrl.web.server import background
from collabrl.web.view_app import make_view_app
from tests.web.helpers import TOKEN

SCORES = {"helpfulness": 4, "trustfulness": 5, "empathy": 3}


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory) -> Path:
    """A small real evaluation: one household task, two test profiles, the proxy judge."""
    out = tmp_path_factory.mktemp("eval")
    args = ["games=[household]", "tasks=[0_read_book]", "max_profiles=2", "seats=[1]"]
    args += ["partner.kind=persona", "judge.kind=heuristic"]  # offline: no LLM servers
    result = CliRunner().invoke(eval_command, [*args, "--quiet", f"output_dir={out}"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def client(evaluation, tmp_path):
    store = RatingStore(tmp_path / "ratings.sqlite")
    app = make_view_app(evaluation, TOKEN, store)
    return TestClient(app, base_url="http://127.0.0.1"), store


def first_window(client) -> str:
    return client.get(f"/api/windows?token={TOKEN}").json()["windows"][0]["window"]


def test_windows_are_listed_without_verdicts_and_rated_per_rater(client) -> None:
    http, _ = client
    data = http.get(f"/api/windows?token={TOKEN}&rater=ann").json()
    assert len(data["windows"]) > 2 and data["dimensions"] == [
        "helpfulness",
        "trustfulness",
        "empathy",
    ]
    assert data["scale"] == [0, 1, 2, 3, 4, 5]
    wid = data["windows"][0]["window"]
    shown = http.get(f"/api/windows/{wid}?token={TOKEN}&rater=ann").json()
    assert sum(t["judged"] for t in shown["turns"]) == 3 and shown["rating"] is None
    assert "judgements" not in json.dumps(shown) and "violations" not in json.dumps(shown)
    body = {"rater": "ann", "window": wid, "scores": SCORES, "comment": "fine"}
    stored = http.post(f"/api/ratings?token={TOKEN}", json=body)
    assert stored.status_code == 200 and stored.json()["rated"] == 1
    again = http.get(f"/api/windows/{wid}?token={TOKEN}&rater=ann").json()
    assert again["rating"]["scores"] == SCORES and again["rating"]["comment"] == "fine"
    listed = http.get(f"/api/windows?token={TOKEN}&rater=ann").json()["windows"]
    assert listed[0]["rated"] and not listed[1]["rated"]
    assert not http.get(f"/api/windows?token={TOKEN}&rater=bob").json()["windows"][0]["rated"]
    csv_text = http.get(f"/api/ratings.csv?token={TOKEN}").text
    assert csv_text.splitlines()[1].split(",")[2:4] == ["ann", wid]


def test_bad_input_gets_a_clear_error_never_a_traceback(client) -> None:
    http, store = client
    wid = first_window(http)
    post = f"/api/ratings?token={TOKEN}"
    cases = [
        ({"rater": "ann", "window": "nope:0-2", "scores": SCORES}, 404, "no such judged window"),
        ({"rater": "ann", "window": wid, "scores": {**SCORES, "empathy": 9}}, 400, "empathy: 9"),
        (
            {"rater": "ann", "window": wid, "scores": {"helpfulness": 4}},
            400,
            "missing trustfulness",
        ),
        ({"window": wid, "scores": SCORES}, 400, "rater: missing"),
        ({"rater": "ann", "window": wid}, 400, "scores: missing"),
    ]
    for body, status, text in cases:
        answer = http.post(post, json=body)
        assert answer.status_code == status and text in answer.json()["error"], answer.text
    assert http.post(
        post, content=b"{oops", headers={"content-type": "application/json"}
    ).json() == {"error": "the body is not JSON"}
    form = http.post(post, content=b"rater=x", headers={"content-type": "text/plain"})
    assert form.status_code == 415 and "as JSON" in form.json()["error"]
    assert (
        http.post(
            post, content=b"x" * 20000, headers={"content-type": "application/json"}
        ).status_code
        == 413
    )
    assert http.get(f"/api/windows/nope?token={TOKEN}").status_code == 404
    assert "rater: 1-64" in http.get(f"/api/windows?token={TOKEN}&rater=a%20b").json()["error"]
    # the token and the page's origin are checked before any rating is read or written
    assert http.post("/api/ratings", json={}).status_code == 403
    foreign = http.post(post, json={}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403
    assert http.get("/rate").status_code == 403 and http.get("/api/ratings.csv").status_code == 403
    assert store.all() == []


@pytest.mark.slow
def test_a_person_rates_two_windows_and_agreement_reads_them(
    evaluation, tmp_path, page, shot
) -> None:
    ratings = tmp_path / "ratings.sqlite"
    app = make_view_app(evaluation, TOKEN, RatingStore(ratings))
    with background(app) as base:
        page.goto(f"{base}/rate?token={TOKEN}")
        expect(page.get_by_test_id("progress")).to_contain_text("enter your rater id")
        page.get_by_test_id("rater").fill("rater-1")
        page.get_by_test_id("start").click()
        expect(page.get_by_test_id("progress")).to_contain_text("rater-1: 0 of")
        expect(page.get_by_test_id("judged-turn")).to_have_count(3)
        first = page.get_by_test_id("window").get_attribute("data-window")
        # a missing dimension: the server's reason is shown, nothing is stored
        page.get_by_test_id("score-helpfulness-4").check()
        page.get_by_test_id("submit").click()
        expect(page.get_by_test_id("error")).to_contain_text("missing trustfulness, empathy")
        page.get_by_test_id("score-trustfulness-5").check()
        page.get_by_test_id("score-empathy-2").check()
        page.get_by_test_id("comment").fill("kept the partner informed")
        page.get_by_test_id("submit").click()
        expect(page.get_by_test_id("progress")).to_contain_text("rater-1: 1 of")
        # the page moved on to the next unrated window
        expect(page.get_by_test_id("window")).not_to_have_attribute("data-window", first)
        second = page.get_by_test_id("window").get_attribute("data-window")
        for dim, value in (("helpfulness", 2), ("trustfulness", 3), ("empathy", 1)):
            page.get_by_test_id(f"score-{dim}-{value}").check()
        page.get_by_test_id("submit").click()
        expect(page.get_by_test_id("progress")).to_contain_text("rater-1: 2 of")
        shot(page, "rate")
        # a reload resumes: the rater id stays in the URL, the two windows are marked rated
        page.reload()
        expect(page.get_by_test_id("rater")).to_have_value("rater-1")
        expect(page.locator("tr.window.done")).to_have_count(2)
        page.locator(f'tr.window[data-window="{first}"]').click()
        expect(page.get_by_test_id("score-empathy-2")).to_be_checked()
    stored = {r.window: r for r in read_ratings(ratings)}
    assert set(stored) == {first, second}
    assert stored[first].scores == {"helpfulness": 4, "trustfulness": 5, "empathy": 2}
    assert stored[first].comment == "kept the partner informed"
    assert stored[second].scores == {"helpfulness": 2, "trustfulness": 3, "empathy": 1}

    from collabrl.cli import main

    out = tmp_path / "agreement"
    main(["report", "agreement", str(evaluation), "--ratings", str(ratings), "--out", str(out)])
    data = json.loads((out / "agreement.json").read_text())
    assert data["raters"] == ["rater-1"] and data["rated_windows"] == 2 and data["ratings"] == 2
    window_rows = [
        r for r in data["rows"] if r["comparison"] == "judge-human" and r["level"] == "window"
    ]
    assert {r["n"] for r in window_rows} <= {2} and window_rows[0]["judge"] == "heuristic-proxy"
