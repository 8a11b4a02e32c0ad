"""The admin page's intervention buttons in Chromium: advance a participant stuck on a page,
release another to an end page, pause and resume new joins; each is an audited event and the
page shows what happened."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from collabrl.web.server import background
from tests.study.helpers import ADMIN
from tests.study.room_helpers import room_runtime, write_study

pytestmark = pytest.mark.slow

READ = {"id": "read", "kind": "text", "text": "Read this."}
TIMERS = {"release_to": "declined"}


def test_the_admin_buttons_intervene_and_are_audited(tmp_path, new_page) -> None:
    import httpx

    from collabrl.study.server.app import make_study_app

    rt = room_runtime(write_study(tmp_path, [READ], timers=TIMERS), tmp_path / "study.sqlite")
    app = make_study_app(rt, ADMIN)
    with background(app) as base:
        key = app.state.join_key
        stuck = httpx.post(f"{base}/api/join?key={key}").json()["participant"]
        gone = httpx.post(f"{base}/api/join?key={key}").json()["participant"]
        admin = new_page()
        admin.goto(f"{base}/admin?token={ADMIN}")
        row = admin.get_by_test_id(f"participant-{stuck}")
        expect(row).to_contain_text("consent")
        admin.get_by_test_id(f"advance-{stuck}").click()
        expect(admin.get_by_test_id("done")).to_have_text(f"{stuck} moved to read")
        expect(row).to_contain_text("read")
        admin.get_by_test_id(f"release-{gone}").click()
        expect(admin.get_by_test_id("done")).to_have_text(f"{gone} moved to declined")
        expect(admin.get_by_test_id(f"release-{gone}")).to_have_count(0)  # no longer active
        admin.get_by_test_id("joins").click()
        expect(admin.get_by_test_id("done")).to_have_text("new joins paused")
        expect(admin.get_by_test_id("joins")).to_have_text("resume new joins")
        assert httpx.post(f"{base}/api/join?key={key}").status_code == 503
        admin.get_by_test_id("joins").click()
        expect(admin.get_by_test_id("joins")).to_have_text("pause new joins")
        assert httpx.post(f"{base}/api/join?key={key}").status_code == 200
    (advanced,) = rt.db.events("admin_advance")
    assert (advanced["pid"], advanced["node"], advanced["data"]["to"]) == (stuck, "consent", "read")
    (released,) = rt.db.events("admin_release")
    assert (released["pid"], released["data"]["to"]) == (gone, "declined")
    assert [e["data"]["paused"] for e in rt.db.events("admin_joins")] == [True, False]
