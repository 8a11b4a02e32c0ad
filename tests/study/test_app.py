"""The study app without a browser: keys and tokens, headers, one participant's pages over the
WebSocket, refused submissions, what never reaches a page."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from tests.study.helpers import ADMIN, SHORT, study_app  # noqa: E402


def join(client: TestClient, key: str) -> dict:
    response = client.post(f"/api/join?key={key}")
    assert response.status_code == 200
    return response.json()


def next_page(ws, node: str | None = None) -> dict:
    """The next pushed page (skipping pushes of the same node when ``node`` is given)."""
    while True:
        msg = ws.receive_json()
        if msg["type"] == "error":
            return msg
        if node is None or msg["node"] != node:
            return msg


def test_links_need_their_key_or_token(tmp_path) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", *SHORT)
    with TestClient(app) as client:
        key = app.state.join_key
        assert client.get("/join?key=wrong").status_code == 403
        assert client.get("/s?token=nobody").status_code == 404
        assert client.get("/admin?token=wrong").status_code == 403
        assert client.get("/admin/api/state").status_code == 403
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect("/study/ws?token=x") as ws,
        ):
            ws.receive_text()
        response = client.get(f"/join?key={key}", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith("/s?token=")
        page = client.get(response.headers["location"])
        csp = page.headers["content-security-policy"]
        assert page.status_code == 200 and "frame-src 'self'" in csp and "script-src 'self'" in csp
        assert client.get("/play/g0000-1-0/Alice?token=nobody").status_code == 404
        state = client.get(f"/admin/api/state?token={ADMIN}").json()
        assert state["counts"]["joined"] == 1 and state["participants"][0]["where"] == "consent"


def test_a_foreign_host_or_origin_is_refused(tmp_path) -> None:
    """DNS rebinding (a foreign Host) and cross-site sockets or posts (a foreign Origin) are
    refused before any route runs, the admin API included."""
    app = study_app(tmp_path, "paper_user_study_cpu", *SHORT)
    with TestClient(app) as client:
        key = app.state.join_key
        evil = {"host": "evil.example"}
        assert client.get(f"/join?key={key}", headers=evil).status_code == 403
        assert client.get(f"/admin/api/state?token={ADMIN}", headers=evil).status_code == 403
        foreign = {"origin": "http://evil.example"}
        assert client.post(f"/api/join?key={key}", headers=foreign).status_code == 403
        token = join(client, key)["token"]
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect(f"/study/ws?token={token}", headers=foreign) as ws,
        ):
            ws.receive_text()
        with client.websocket_connect(
            f"/study/ws?token={token}", headers={"origin": "http://testserver"}
        ) as ws:
            assert ws.receive_json()["type"] != "error"


def test_a_participant_walks_the_pages_and_plays_a_round(tmp_path) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", *SHORT, "privacy.url_fields=[PROLIFIC_PID]")
    rt = app.state.runtime
    with TestClient(app) as client:
        joined = client.post(f"/api/join?key={app.state.join_key}&PROLIFIC_PID=abc&ip=1.2.3.4")
        me = joined.json()
        assert rt.people[me["participant"]]["fields"] == {"PROLIFIC_PID": "abc"}
        with client.websocket_connect(me["socket"]) as ws:
            page = next_page(ws)
            assert page["kind"] == "consent" and "<script" not in page["html"]
            ws.send_json({"type": "submit", "node": "intake", "agree": True})
            assert "out of date" in next_page(ws)["message"]
            ws.send_json({"type": "submit", "node": "consent", "agree": True})
            page = next_page(ws, "consent")
            assert page["kind"] == "survey"
            ws.send_json({"type": "submit", "node": "intake", "answers": {"gaming": "often"}})
            refused = next_page(ws)
            assert refused["problems"]["gaming"] == "choose one of the options"
            assert "How often do you play video games?" in refused["message"]
            answers = {"gaming": "weekly", "ai_familiarity": 4, "extra": "dropped"}
            ws.send_json({"type": "submit", "node": "intake", "answers": answers})
            assert next_page(ws, "intake")["kind"] == "text"
            ws.send_json({"type": "submit", "node": "instructions"})
            page = next_page(ws, "instructions")
            assert page["node"] == "rounds.play1" and page["round"] == 1 and page["rounds"] == 3
            assert page["disclosure"] == "Agent A is an AI agent."
            text = str(page)
            for secret in ("base", "no_affective", "persona:", "cwah-0_read_book"):
                assert secret not in text  # condition ids and players stay blind
            game_url = f"/{page['game']['url']}?token={me['token']}"
            assert client.get(game_url).status_code == 200
            sid = page["game"]["url"].split("/")[1]
            with client.websocket_connect(f"/ws/{sid}/Alice?token={me['token']}") as game:
                state = game.receive_json()
                while not state["done"]:
                    if state["your_turn"]:
                        game.send_json(
                            {
                                "type": "decide",
                                "action": state["observation"]["actions"][0]["action"],
                                "message": "",
                            }
                        )
                    state = game.receive_json()
            page = next_page(ws, "rounds.play1")
            assert page["node"] == "rounds.rate1" and len(page["items"]) == 5
            assert "Agent A" in page["items"][0]["text"]
            ws.send_json({"type": "submit", "node": "rounds.rate1", "ratings": {"help_plan": 9}})
            problems = next_page(ws)["problems"]
            assert problems["help_plan"] == "choose a point from 1 to 5" and len(problems) == 5
    events = rt.db.events("answers")
    assert events[0]["data"]["answers"] == {"gaming": "weekly", "ai_familiarity": 4}
    kinds = {e["kind"] for e in rt.db.events()}
    assert {
        "join",
        "consent",
        "answers",
        "page_view",
        "connect",
        "disconnect",
        "decision",
        "episode_start",
        "episode_end",
        "group_formed",
    } <= kinds


def test_under_a_base_path_every_route_and_redirect_carries_the_prefix(tmp_path) -> None:
    from collabrl.study.server.app import check_base_path

    app = study_app(tmp_path, "paper_user_study_cpu", base_path="/lab/study1")
    with TestClient(app, base_url="http://127.0.0.1") as client:
        key = app.state.join_key
        assert client.get(f"/join?key={key}", follow_redirects=False).status_code == 404
        joined = client.get(f"/lab/study1/join?key={key}", follow_redirects=False)
        assert joined.status_code == 303
        assert joined.headers["location"].startswith("/lab/study1/s?token=")
        page = client.get(joined.headers["location"])
        assert page.status_code == 200 and 'src="study-static/study.js"' in page.text
        assert client.get("/lab/study1/study-static/study.js").status_code == 200
        made = client.post(f"/lab/study1/api/join?key={key}").json()
        assert made["page"].startswith("/lab/study1/s?") and made["socket"].startswith(
            "/lab/study1/study/ws?"
        )
        with client.websocket_connect(made["socket"]) as ws:
            assert ws.receive_json()["node"] == "consent"
    assert check_base_path("lab/study1/") == "/lab/study1" and check_base_path("/") == ""
    for bad in ("/a/../b", "/a b", "/a?x"):
        with pytest.raises(ValueError, match="--base-path"):
            check_base_path(bad)


def test_the_admin_token_comes_from_the_environment_and_must_be_long(monkeypatch) -> None:
    from collabrl.errors import CollabrlError
    from collabrl.web.security import ADMIN_TOKEN_ENV, admin_token

    monkeypatch.delenv(ADMIN_TOKEN_ENV, raising=False)
    assert admin_token() != admin_token()  # a new one per start
    monkeypatch.setenv(ADMIN_TOKEN_ENV, "s3cret-admin-token-of-the-lab")
    assert admin_token() == "s3cret-admin-token-of-the-lab"
    monkeypatch.setenv(ADMIN_TOKEN_ENV, "short")
    with pytest.raises(CollabrlError, match="at least 16"):
        admin_token()
