"""The serve and view servers against hostile requests: foreign Host and Origin headers (DNS
rebinding, cross-site WebSocket hijacking) are refused before any route runs, and malformed,
oversized, binary or resent frames get error frames while the connection stays open."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from collabrl.web.view_app import make_view_app
from tests.web.helpers import TOKEN, only_session, serve_app


@pytest.fixture
def client(tmp_path) -> TestClient:
    return TestClient(serve_app(tmp_path, "household_human", "players.1.kind=expert",
                                "players.1.profile=null"))  # fmt: skip


def seat_socket(client: TestClient) -> str:
    data = client.post(f"/api/sessions?token={TOKEN}").json()
    return f"/ws/{data['session']}/Alice?token={TOKEN}"


@pytest.mark.parametrize("path", ["/", "/api/episodes"])
def test_a_foreign_host_is_refused_on_both_servers(tmp_path, path) -> None:
    app = serve_app(tmp_path, "household_human") if path == "/" else make_view_app(tmp_path, TOKEN)
    client = TestClient(app)
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
        refused = client.get(f"{path}?token={TOKEN}", headers={"host": host})
        assert refused.status_code == 403 and "is not this server's" in refused.text
        assert refused.headers["x-content-type-options"] == "nosniff"  # still a safe page
    for host in ("localhost:8000", "127.0.0.1:1234", "[::1]:80", "testserver"):
        assert client.get(f"{path}?token={TOKEN}", headers={"host": host}).status_code == 200


def test_a_proxy_name_is_allowed_when_listed(client, monkeypatch) -> None:
    headers = {"host": "study.example.org"}
    assert client.get(f"/?token={TOKEN}", headers=headers).status_code == 403
    monkeypatch.setenv("COLLABRL_ALLOWED_HOSTS", "other.example, study.example.org")
    assert client.get(f"/?token={TOKEN}", headers=headers).status_code == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://testserver:9999"])
def test_a_socket_or_post_from_a_foreign_origin_is_refused(client, origin) -> None:
    socket = seat_socket(client)
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(socket, headers={"origin": origin}) as ws,
    ):
        ws.receive_json()
    assert client.post(f"/?token={TOKEN}", headers={"origin": origin}).status_code == 403


def test_the_served_origin_and_listed_origins_are_accepted(client, monkeypatch) -> None:
    with client.websocket_connect(
        seat_socket(client), headers={"origin": "http://testserver"}
    ) as ws:
        assert ws.receive_json()["type"] == "state"
    monkeypatch.setenv("COLLABRL_ALLOWED_ORIGINS", "https://study.example.org")
    headers = {"origin": "https://study.example.org"}
    with client.websocket_connect(seat_socket(client), headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"


BAD_FRAMES = {
    "binary": (b"\x00\x01", "not-json"),
    "deeply nested": ("[" * 3000 + "]" * 3000, "not-json"),
    "huge number": ('{"type": "decide", "action": "x", "tick": ' + "9" * 5000 + "}", "not-json"),
    "too large": (json.dumps({"type": "decide", "action": "x" * 9000}), "too-large"),
    "broken json": ("{type: decide", "not-json"),
    "not a decision": (json.dumps({"type": "hello"}), "unknown-request"),
    "tick not a number": (json.dumps({"type": "decide", "action": "x", "tick": "7"}), "bad-fields"),
    "unoffered action": (json.dumps({"type": "decide", "action": "fly_to_moon()"}), "refused"),
}


def test_bad_frames_get_error_frames_and_the_connection_stays_open(client) -> None:
    with client.websocket_connect(seat_socket(client)) as ws:
        state = ws.receive_json()
        for name, (frame, code) in BAD_FRAMES.items():
            ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == code, (name, reply)
        session = only_session(client.app)
        mine = [t for t in session.turns if t["seat"] == "Alice"]
        assert mine == [] and session.game.tick == state["tick"]  # nothing applied
        action = state["observation"]["actions"][0]["action"]
        ws.send_json({"type": "decide", "action": action, "tick": state["observation"]["tick"]})
        assert ws.receive_json()["tick"] > state["tick"]  # still open, and decisions work


def test_a_resent_frame_applies_once(client) -> None:
    with client.websocket_connect(seat_socket(client)) as ws:
        state = ws.receive_json()
        action = state["observation"]["actions"][0]["action"]
        frame = {"type": "decide", "action": action, "tick": state["observation"]["tick"]}
        ws.send_json(frame)
        assert ws.receive_json()["type"] == "state"
        ws.send_json(frame)  # a retrying client sends it again
        assert ws.receive_json()["code"] == "duplicate"
    session = only_session(client.app)
    assert [t["action"] for t in session.turns if t["seat"] == "Alice"] == [action]


def test_the_viewer_leaves_out_links_outside_its_folder_and_skips_bad_lines(tmp_path) -> None:
    """A symlinked trajectories.jsonl pointing outside the viewed folder is not read; a torn
    line in one file skips that line only, with a warning, and the other episodes stay listed."""
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "trajectories.jsonl").write_text(
        json.dumps({"game": "household", "task": "x"}) + "\n"
    )
    viewed = tmp_path / "runs"
    (viewed / "linked").mkdir(parents=True)
    (viewed / "linked" / "trajectories.jsonl").symlink_to(secret / "trajectories.jsonl")
    good = {"game": "household", "task": "0_read_book", "summary": {"success": True}, "turns": []}
    (viewed / "a").mkdir()
    (viewed / "a" / "trajectories.jsonl").write_text(
        json.dumps(good) + "\n" + '{"game": "household", "tas\n' + json.dumps(good) + "\n"
    )
    (viewed / "b").mkdir()
    (viewed / "b" / "trajectories.jsonl").write_text(json.dumps(good) + "\n")
    client = TestClient(make_view_app(viewed, TOKEN))
    data = client.get(f"/api/episodes?token={TOKEN}").json()
    assert [e["file"] for e in data["episodes"]] == ["a/trajectories.jsonl"] * 2 + [
        "b/trajectories.jsonl"
    ]
    assert len(data["warnings"]) == 2
    torn, linked = sorted(data["warnings"])
    assert torn.startswith("a/trajectories.jsonl:2: bad JSON") and "line skipped" in torn
    assert linked.startswith("linked/trajectories.jsonl: left out") and "outside" in linked
