"""The serve app without a browser: token, limits, secrets, recipes, an LLM partner."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from collabrl.config import load_recipe
from collabrl.errors import CollabrlError
from collabrl.web.serve_app import Limits, make_serve_app
from collabrl.web.session import SeatPlayers
from tests.web.helpers import TOKEN, serve_app


def start(client: TestClient) -> tuple[str, str]:
    """A new episode; (session id, first human seat's socket path)."""
    data = client.post(f"/api/sessions?token={TOKEN}").json()
    seat, path = next(iter(data["seats"].items()))
    return data["session"], f"/ws/{data['session']}/{seat}?token={TOKEN}"


def test_the_printed_url_starts_an_episode_only_when_asked(tmp_path) -> None:
    """Fetching the printed URL (a reload, a link preview) starts nothing; its button's POST
    starts one episode and goes to the first human seat's page."""
    app = serve_app(tmp_path, "household_human")
    client = TestClient(app)
    for _ in range(3):
        page = client.get(f"/?token={TOKEN}")
        assert page.status_code == 200 and 'data-testid="start"' in page.text
    assert app.state.sessions.by_id == {}
    started = client.post(f"/?token={TOKEN}", follow_redirects=False)
    (sid,) = app.state.sessions.by_id
    assert started.status_code == 303
    assert started.headers["location"] == f"/play/{sid}/Alice?token={TOKEN}"
    assert client.post("/?token=nope").status_code == 403


def test_every_route_needs_the_token(tmp_path) -> None:
    client = TestClient(serve_app(tmp_path, "household_human"))
    assert client.get("/").status_code == 403
    assert client.post("/api/sessions?token=nope").status_code == 403
    sid, socket = start(client)
    assert client.get(f"/play/{sid}/Alice").status_code == 403
    page = client.get(f"/play/{sid}/Alice?token={TOKEN}")
    assert (
        page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    )
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(socket.split("?")[0]) as ws:
        ws.receive_text()
    assert client.get(f"/play/{sid}/Bob?token={TOKEN}").status_code == 404  # not a human seat


def test_long_messages_and_floods_are_refused(tmp_path) -> None:
    app = make_serve_app(
        load_recipe("household_human"),
        tmp_path,
        TOKEN,
        Limits(decisions_per_s=0.001, decision_burst=2),
    )
    client = TestClient(app)
    _, socket = start(client)
    with client.websocket_connect(socket) as ws:
        state = ws.receive_json()
        assert state["your_turn"]
        ws.send_json({"type": "decide", "action": "[send_message]", "message": "x" * 501})
        assert "at most 500" in ws.receive_json()["message"]
        ws.send_json({"type": "decide", "action": "[send_message]", "message": "hello"})
        assert ws.receive_json()["tick"] == 1
        ws.send_json({"type": "decide", "action": "[send_message]", "message": "again"})
        assert "slow down" in ws.receive_json()["message"]


def test_a_recipe_without_a_human_seat_is_one_error() -> None:
    with pytest.raises(CollabrlError, match="no human seat"):
        SeatPlayers(load_recipe("household_experts"))


def test_an_llm_partner_plays_and_no_key_reaches_the_page(tmp_path, monkeypatch) -> None:
    """The quickstart-policy path with the tiny model: transformers engine, LLM partner seat."""
    from collabrl.models.tiny import make_tiny_model

    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-shown-0123456789")
    model = make_tiny_model(tmp_path / "tiny", seed=0)
    app = serve_app(
        tmp_path / "out",
        "household_human",
        "players.1.kind=llm",
        f"players.1.engine.model={model}",
        "players.1.sampling.max_new_tokens=8",
    )
    client = TestClient(app)
    page = client.get(f"/?token={TOKEN}")
    assert "sk-never" not in page.text
    sid, socket = start(client)
    with client.websocket_connect(socket) as ws:
        raw = ws.receive_text()
        assert "sk-never" not in raw and "llm:transformers:" in raw
        ws.send_json({"type": "decide", "action": "[send_message]", "message": "hi"})
        state = ws.receive_json()
    assert state["tick"] >= 1 and state["your_turn"]
    bob = [t for t in app.state.sessions.by_id[sid].turns if t["seat"] == "Bob"]
    assert bob and bob[0]["player"].startswith("llm:transformers:")


def test_announce_writes_the_line_and_its_newline_in_one_write(monkeypatch) -> None:
    """Workers of ``serve --workers N`` share one stdout: a link printed in two writes ran
    together with the other worker's link in CI, and the test reading the log never saw it."""
    import io
    import sys

    from collabrl.web.server import announce

    writes: list[str] = []

    class Recorder(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return len(text)

    monkeypatch.setattr(sys, "stdout", Recorder())
    announce("participant link: open http://h/join?key=k")
    assert writes == ["participant link: open http://h/join?key=k\n"]
