"""The study page's socket answers hostile frames with an error frame and stays open, as the play
socket does (issue 49, item 6): it used to drop the connection and log a traceback."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from tests.study.helpers import SHORT, study_app  # noqa: E402

HOSTILE = {
    "binary": b"\x00\x01",
    "deeply nested": "[" * 3000 + "]" * 3000,
    "5000-digit number": '{"type": "submit", "node": "consent", "agree": ' + "9" * 5000 + "}",
    "broken json": "{type: submit",
}


def test_hostile_frames_get_error_frames_and_the_page_socket_stays_open(tmp_path, caplog) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", *SHORT)
    caplog.set_level(logging.WARNING)
    with TestClient(app) as client:
        me = client.post(f"/api/join?key={app.state.join_key}").json()
        with client.websocket_connect(me["socket"]) as ws:
            assert ws.receive_json()["kind"] == "consent"
            for name, frame in HOSTILE.items():
                ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
                reply = ws.receive_json()
                assert reply["type"] == "error" and reply["code"] == "not-json", (name, reply)
            ws.send_json({"type": "submit", "node": "consent", "agree": True})
            page = ws.receive_json()
            while page["node"] == "consent":  # consent echoes until the next page arrives
                page = ws.receive_json()
            assert page["kind"] == "survey"  # still open, and submissions work
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info]
