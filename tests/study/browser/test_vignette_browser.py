"""A vignette study in Chromium (issue 49, "done when"): a randomised 2 x 2 factorial assignment
(balanced per stratum) shown in the vignette's text and routing a branch, an audio narration
whose play and end are recorded, a sandboxed component (an iframe) that reads the framing,
writes the participant's confidence, emits an event and says done, a chat whose agent speaks
first, replies every second message, fills its field of the shared workspace (where the
participant's seat edits only its own), sets state and ends the chat by itself with a closing
summary, and a second chat page that carries the history. The export holds every assignment,
agent reply record and event."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database
from collabrl.web.server import background
from tests.study.helpers import ADMIN

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parents[3] / "examples" / "study_vignette"


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_a_vignette_study_with_randomisation_agent_tools_workspace_and_component(
    tmp_path, new_page, shot
) -> None:
    from collabrl.study.server.app import make_study_app

    folder = tmp_path / "study"
    shutil.copytree(EXAMPLE, folder)
    compiled = compile_study(load_study(str(folder / "study.yaml"), [f"output_dir={tmp_path}"]))
    rt = StudyRuntime(compiled, open_database(compiled.loaded, tmp_path / "study.sqlite"))
    app = make_study_app(rt, ADMIN)
    body = None
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("q-role-2").check()
        page.get_by_test_id("submit").click()

        # the vignette: the assigned cell fills its text
        body = page.locator("body")
        expect(body).to_have_attribute("data-node", "vignette")
        (assigned,) = rt.db.events("assignment")
        levels = assigned["data"]["levels"]
        assert assigned["data"]["stratum"] == "professional"
        expect(page.get_by_test_id("body")).to_contain_text(
            f"a {levels['source']} says that a new policy"
        )
        expect(page.get_by_test_id("body")).to_contain_text(f"framed as a {levels['framing']}")
        page.evaluate(
            "() => { const a = document.querySelector('audio'); a.muted = true; a.play(); }"
        )
        page.wait_for_function("() => document.querySelector('audio').ended")
        page.get_by_test_id("continue").click()

        # a survey whose branch reads the assignment
        page.get_by_test_id("q-credible-4").check()
        page.get_by_test_id("submit").click()
        if levels["framing"] == "loss":
            expect(body).to_have_attribute("data-node", "loss_note")
            page.get_by_test_id("continue").click()

        # the sandboxed component
        expect(body).to_have_attribute("data-node", "slider")
        frame = page.frame_locator('[data-testid="embed"]')
        expect(frame.locator("#framing")).to_have_text(
            f"The report was framed as a {levels['framing']}."
        )
        sandboxed = page.evaluate(
            "() => { try { return !!document.querySelector('iframe.embed').contentDocument; }"
            " catch (e) { return 'blocked'; } }"
        )
        assert sandboxed is False  # an opaque origin: the page cannot reach into it (nor it out)
        frame.locator("#sure").fill("80")
        shot(page, "study_sandboxed_component")
        frame.locator("#done").click()

        # the chat with a facilitating agent and the shared workspace
        expect(body).to_have_attribute("data-node", "discuss")
        log = page.get_by_test_id("chat-log")
        expect(log).to_contain_text("Moderator: Hello! Tell me what you think of the report.")
        expect(page.get_by_test_id("ws-notes")).to_be_disabled()  # the agent's field
        page.get_by_test_id("ws-verdict").select_option("doubtful")
        page.get_by_test_id("chat-input").fill("I doubt the source.")
        page.get_by_test_id("chat-send").click()
        expect(log).to_contain_text("You: I doubt the source.")
        page.get_by_test_id("chat-input").fill("It reads like advertising.")
        page.get_by_test_id("chat-send").click()
        expect(log).to_contain_text("Moderator: Noted: I wrote that down.")
        expect(page.get_by_test_id("ws-notes")).to_have_value("The reader questions the source.")
        shot(page, "study_workspace_chat")
        page.get_by_test_id("chat-input").fill("So: doubtful.")
        page.get_by_test_id("chat-send").click()
        page.get_by_test_id("chat-input").fill("Agreed?")
        page.get_by_test_id("chat-send").click()

        # the agent ended the chat; the next page carries the history
        expect(body).to_have_attribute("data-node", "recap")
        expect(log).to_contain_text("Moderator: Thank you, we agree.")
        expect(log).to_contain_text("Moderator: Summary: we discussed the report")
        expect(log).to_contain_text("Moderator: Welcome back. Anything to add?")
        page.get_by_test_id("room-end").click()
        expect(body).to_have_attribute("data-node", "done")
        expect(page.get_by_test_id("code")).to_be_visible()

    (pid,) = rt.people
    state = rt.logic.values(pid)["state"]
    assert (state["confidence"], state["agreed"]) == (80, True)
    export_study(rt.loaded, rt.db, tmp_path / "export")
    out = tmp_path / "export"
    (assignment,) = rows(out / "assignments.csv")
    assert assignment["level.framing"] == levels["framing"]
    assert assignment["level.source"] == levels["source"]
    replies = [json.loads(line) for line in (out / "agent_replies.jsonl").read_text().splitlines()]
    assert [r["text"] for r in replies] == [
        'Noted: I wrote that down. <edit_field name="notes">The reader questions the source.'
        "</edit_field>",
        'Thank you, we agree. <set_state name="agreed">true</set_state><end_chat/>',
    ]
    assert all(r["model"] == "scripted" and r["agent"] == "Moderator" for r in replies)
    events = [(r["kind"], r["name"]) for r in rows(out / "page_events.csv")]
    assert ("media_event", "play") in events and ("media_event", "ended") in events
    assert ("component_event", "moved") in events
    edits = [(r["by"], r["field"], r["value"]) for r in rows(out / "workspace_edits.csv")]
    assert edits == [
        ("participant", "verdict", "doubtful"),
        ("agent", "notes", "The reader questions the source."),
    ]
    logged = [json.loads(line)["kind"] for line in (out / "events.jsonl").read_text().splitlines()]
    for kind in (
        "assignment",
        "agent_reply",
        "agent_tool",
        "workspace_edit",
        "component_event",
        "media_event",
        "room_close",
    ):
        assert kind in logged, kind
