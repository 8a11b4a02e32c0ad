"""Admin interventions (issue 49, item 5): advance a participant stuck on a page, release one to
an end page, pause new joins; each is an event in the log, and only the admin token may ask."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from tests.study.helpers import ADMIN, SHORT, study_app  # noqa: E402


def test_advance_release_and_pause_are_audited(tmp_path) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", *SHORT)
    rt = app.state.runtime
    with TestClient(app) as client:
        key = app.state.join_key
        stuck = client.post(f"/api/join?key={key}").json()["participant"]
        gone = client.post(f"/api/join?key={key}").json()["participant"]
        admin = f"token={ADMIN}&participant={stuck}"
        assert client.post(f"/admin/api/advance?participant={stuck}").status_code == 403
        moved = client.post(f"/admin/api/advance?{admin}")
        assert moved.json() == {"participant": stuck, "page": "intake"}
        assert rt.node(stuck) == "intake"
        assert client.post(f"/admin/api/advance?{admin}").json()["page"] == "instructions"
        refused = client.post(f"/admin/api/release?{admin}&to=intake")
        assert refused.status_code == 409 and "name an end page" in refused.text
        released = client.post(f"/admin/api/release?token={ADMIN}&participant={gone}")
        assert released.json() == {"participant": gone, "page": "timed_out"}
        assert rt.people[gone]["status"] != "active"
        again = client.post(f"/admin/api/release?token={ADMIN}&participant={gone}")
        assert again.status_code == 409 and "not active" in again.text
        assert client.post(f"/admin/api/joins?token={ADMIN}&paused=1").json() == {
            "joins_paused": True
        }
        assert client.post(f"/api/join?key={key}").status_code == 503
        state = client.get(f"/admin/api/state?token={ADMIN}").json()
        assert state["joins_paused"] and state["counts"]["joined"] == 2
        client.post(f"/admin/api/joins?token={ADMIN}&paused=0")
        assert client.post(f"/api/join?key={key}").status_code == 200
    advanced = [(e["pid"], e["node"], e["data"]["to"]) for e in rt.db.events("admin_advance")]
    assert advanced == [(stuck, "consent", "intake"), (stuck, "intake", "instructions")]
    (out,) = rt.db.events("admin_release")
    assert (out["pid"], out["node"], out["data"]["to"]) == (gone, "consent", "timed_out")
    assert [e["data"]["paused"] for e in rt.db.events("admin_joins")] == [True, False]
