"""A Prolific participant in headless Chromium, in a study without a game served under the
path prefix /lab/study1: the link with Prolific's ids -> consent -> survey -> a chat round with
an agent -> its questionnaire -> a shared-document round (a second tab of the same participant
saves first, so the first tab's save is refused and its draft kept) -> its questionnaire ->
the completion link back to Prolific. The export holds the ids as the privacy section declares
(hashed), the bonus file the computed bonus."""

from __future__ import annotations

import csv

import pytest
from playwright.sync_api import expect

from collabrl.study.results.export import export_study
from collabrl.web.server import background
from tests.study.helpers import study_app

PREFIX = "/lab/study1"
PROLIFIC_ID = "60aa0c0ffee0c0ffee0c0ffe"
IDS = f"PROLIFIC_PID={PROLIFIC_ID}&STUDY_ID=st1&SESSION_ID=se1"


def rate(page, node: str, point: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-node", node)
    for item in ("helpful", "warm", "trust"):
        page.get_by_test_id(f"rate-{item}-{point}").check()
    page.get_by_test_id("submit").click()
    expect(page.locator("body")).not_to_have_attribute("data-node", node)


@pytest.mark.slow
def test_a_prolific_participant_chats_then_writes_under_a_path_prefix(
    tmp_path, new_page, shot
) -> None:
    app = study_app(tmp_path, "chat_rounds_study", "conditions.1.round=document", base_path=PREFIX)
    rt = app.state.runtime
    with background(app) as base:
        page = new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{base}{PREFIX}/join?key={app.state.join_key}&{IDS}")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("q-cooks-2").check()
        page.get_by_test_id("submit").click()

        # round 1: a chat with Assistant A
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.play1")
        expect(page.get_by_test_id("progress")).to_have_text("Round 1 of 2")
        expect(page.get_by_test_id("note")).to_have_text("Assistant A is an AI agent.")
        log = page.get_by_test_id("chat-log")
        expect(log).to_contain_text("Assistant A: Hello! I'm glad you're here.")
        page.get_by_test_id("chat-input").fill("Pasta with <b>tomatoes</b>")
        page.get_by_test_id("chat-send").click()
        expect(log).to_contain_text("You: Pasta with <b>tomatoes</b>")  # as text, never HTML
        expect(log).to_contain_text("Assistant A: That sounds wonderful!")
        expect(page.get_by_test_id("turns-left")).to_have_text("5 messages left")
        shot(page, "study_chat_round")
        page.get_by_test_id("room-end").click()
        rate(page, "rounds.rate1", point=4)

        # round 2: a shared document with Assistant B, edited from two tabs
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.play2")
        expect(page.get_by_test_id("doc-current")).to_have_text("Our cooking plan:\n")
        draft = page.get_by_test_id("doc-draft")
        draft.fill("Our cooking plan:\n- pasta on Monday")
        other = new_page()
        other.goto(page.url)
        other.get_by_test_id("doc-draft").fill("Our cooking plan:\n- soup on Tuesday")
        other.get_by_test_id("doc-save").click()
        expect(other.get_by_test_id("doc-version")).to_have_text("Version 1 (by You)")
        expect(page.get_by_test_id("doc-current")).to_have_text(
            "Our cooking plan:\n- soup on Tuesday"
        )
        expect(draft).to_have_value("Our cooking plan:\n- pasta on Monday")  # the draft is kept
        page.get_by_test_id("doc-save").click()  # based on version 0: refused
        expect(page.get_by_test_id("error")).to_contain_text("someone saved version 1")
        expect(draft).to_have_value("Our cooking plan:\n- pasta on Monday")
        draft.fill("Our cooking plan:\n- soup on Tuesday\n- pasta on Monday")  # merged
        page.get_by_test_id("doc-save").click()
        expect(page.get_by_test_id("doc-version")).to_have_text("Version 2 (by You)")
        page.get_by_test_id("doc-ask").click()
        expect(page.get_by_test_id("doc-proposal-text")).to_contain_text("Noted. Ingredients?")
        page.get_by_test_id("doc-accept").click()
        expect(page.get_by_test_id("doc-version")).to_have_text("Version 3 (by Assistant B)")
        shot(page, "study_document_round")
        page.get_by_test_id("room-end").click()
        rate(page, "rounds.rate2", point=2)

        expect(page.get_by_test_id("code")).to_have_text("CHAT2026")
        expect(page.get_by_test_id("payment")).to_contain_text("bonus of 0.65 GBP")
        expect(page.get_by_test_id("redirect")).to_have_attribute(
            "href", "https://app.prolific.com/submissions/complete?cc=CHAT2026"
        )
    outside = [u for u in requested if u.startswith(base) and not u.startswith(base + PREFIX + "/")]
    assert requested and not outside, outside
    (pid,) = rt.people
    assert rt.people[pid]["status"] == "completed"
    assert rt.payments[pid]["bonus"] == 0.65  # 0.25 x 2 rounds + 0.05 x (1 message + 2 saves)
    assert [e["data"]["base"] for e in rt.db.events("document_conflict")] == [0]

    export_study(rt.loaded, rt.db, tmp_path / "export")
    folder = tmp_path / "export"
    with open(folder / "participants.csv", encoding="utf-8", newline="") as f:
        (person,) = list(csv.DictReader(f))
    hashed = person["platform.participant"]
    assert hashed and hashed != PROLIFIC_ID and person["platform.study"] == "st1"
    for name in ("participants.csv", "responses.csv", "chat_transcripts.csv", "events.jsonl"):
        assert PROLIFIC_ID not in (folder / name).read_text(), name
    assert (folder / "bonuses.csv").read_text() == f"{PROLIFIC_ID},0.65\n"
    with open(folder / "chat_transcripts.csv", encoding="utf-8", newline="") as f:
        said = [(r["speaker"], r["text"]) for r in csv.DictReader(f)]
    assert ("participant", "Pasta with <b>tomatoes</b>") in said
    with open(folder / "documents.csv", encoding="utf-8", newline="") as f:
        (doc,) = list(csv.DictReader(f))
    assert (
        doc["text"]
        == "Our cooking plan:\n- soup on Tuesday\n- pasta on Monday\nNoted. Ingredients?"
    )
    assert (doc["versions"], doc["stale_saves_refused"]) == ("3", "1")
