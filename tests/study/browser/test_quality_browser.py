"""Data-quality signals in Chromium: a participant types into a survey's text field, pastes
into it and switches to another tab and back (the browser's visibility events, which headless
Chromium does not send by itself); the export's page_events.csv holds the paste (its length,
not its text), the typing time of the field and the focus lost and regained."""

from __future__ import annotations

import csv
import json

import pytest
from playwright.sync_api import expect

from collabrl.study.results.export import export_study
from collabrl.web.server import background
from tests.study.helpers import ADMIN
from tests.study.room_helpers import room_runtime, write_study

pytestmark = pytest.mark.slow

NOTES = {
    "id": "intake",
    "kind": "survey",
    "questions": [{"id": "notes", "text": "Describe the report.", "kind": "text"}],
}
PASTED = "An answer written somewhere else."
SWITCH_TAB = """state => {
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
"""What the browser does when the participant switches tabs. Headless Chromium under Playwright
keeps every page visible and focused (focus emulation), so a real second tab hides nothing."""


def test_paste_focus_loss_and_typing_are_exported(tmp_path, browser) -> None:
    from collabrl.study.server.app import make_study_app

    rt = room_runtime(write_study(tmp_path, [NOTES]), tmp_path / "study.sqlite")
    app = make_study_app(rt, ADMIN)
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    with background(app) as base:
        page = context.new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        page.get_by_test_id("agree").click()
        field = page.get_by_test_id("q-notes-input")
        field.click()
        page.keyboard.type("My own words. ", delay=20)
        page.evaluate("text => navigator.clipboard.writeText(text)", PASTED)
        page.keyboard.press("ControlOrMeta+V")
        expect(field).to_have_value("My own words. " + PASTED)
        page.evaluate(SWITCH_TAB, "hidden")  # another tab in front: the study page is hidden
        page.wait_for_timeout(50)
        page.evaluate(SWITCH_TAB, "visible")
        page.get_by_test_id("submit").click()
        expect(page.locator("body")).to_have_attribute("data-node", "done")
    context.close()
    export_study(rt.compiled.loaded, rt.db, tmp_path / "out")
    with (tmp_path / "out" / "page_events.csv").open() as f:
        rows = [(r["node"], r["kind"], r["name"], json.loads(r["data"])) for r in csv.DictReader(f)]
    names = [name for _, kind, name, _ in rows if kind == "quality_event"]
    assert {"paste", "typing", "focus_lost", "focus_back"} <= set(names), rows
    paste = next(data for _, _, name, data in rows if name == "paste")
    assert paste == {"field": "notes", "chars": len(PASTED)}
    typing = next(data for _, _, name, data in rows if name == "typing")
    assert typing["field"] == "notes" and typing["keys"] >= len("My own words. ")
    assert typing["ms"] > 0
    assert all(node == "intake" for node, *_ in rows)
