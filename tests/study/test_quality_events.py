"""Data-quality events on the server: a page's paste, focus and typing signals are stored as
``quality_event`` and exported in page_events.csv; an unknown signal is refused in one line
(the browser side: tests/study/browser/test_quality_browser.py)."""

from __future__ import annotations

import csv

import pytest

from collabrl.study.live.signals import run_coroutine
from collabrl.study.results.export import export_study
from collabrl.study.spec.forms import FormError
from tests.study.room_helpers import consented, room_runtime, write_study

NOTES = {
    "id": "intake",
    "kind": "survey",
    "questions": [{"id": "notes", "text": "Describe it.", "kind": "text"}],
}


def test_quality_events_are_stored_and_exported(tmp_path) -> None:
    rt = room_runtime(write_study(tmp_path, [NOTES]), tmp_path / "study.sqlite")

    async def scenario():
        await rt.recover()
        return await consented(rt)

    pid = run_coroutine(scenario())
    paste = {
        "node": "intake",
        "kind": "quality",
        "name": "paste",
        "data": {"field": "notes", "chars": 40},
    }
    rt.record_page_event(pid, paste)
    rt.record_page_event(pid, {**paste, "name": "focus_lost", "data": {"how": "hidden"}})
    with pytest.raises(FormError, match="no data-quality event 'copy' \\(known: paste, focus_lost"):
        rt.record_page_event(pid, {**paste, "name": "copy"})
    export_study(rt.compiled.loaded, rt.db, tmp_path / "out")
    with (tmp_path / "out" / "page_events.csv").open() as f:
        rows = [(r["participant"], r["node"], r["kind"], r["name"]) for r in csv.DictReader(f)]
    assert rows == [
        (pid, "intake", "quality_event", "paste"),
        (pid, "intake", "quality_event", "focus_lost"),
    ]
