"""What stays the same through an episode (rules, names, the board's layout) is sent once per
connection, again after a reconnect or a change, and the page draws the same board from it.

Every push used to carry the room map's layout and the rules (about 3 KB of JSON per push); the
human-seat protocol 2 sends them in a connection's first state only (``Session.setup``).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from starlette.testclient import TestClient

from collabrl.agents.protocol import parse_observed
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.web.server import background
from collabrl.web.session import EPISODE_FIELDS, Session
from tests.web.helpers import TOKEN, only_session, open_new_episode, play_decision, serve_app

HOUSEHOLD = ("household_human", "players.1.kind=expert", "players.1.profile=null")


def decide(ws, session: Session, expert: HouseholdExpert) -> dict:
    """Send the expert's decision on Alice's observation; the next state owing her one."""
    obs = session.seats["Alice"].obs
    parsed = parse_observed(expert.act(obs), obs)
    ws.send_json({"type": "decide", "action": parsed.action, "message": parsed.message})
    state = ws.receive_json()
    while not (state["your_turn"] or state["done"]):
        state = ws.receive_json()
    return state


def test_the_setup_comes_once_per_connection_and_again_after_a_reconnect(tmp_path) -> None:
    app = serve_app(tmp_path, *HOUSEHOLD)
    client = TestClient(app)
    sid = client.post(f"/api/sessions?token={TOKEN}").json()["session"]
    session = only_session(app)
    expert = HouseholdExpert()
    expert.reset("Alice", session.seed)
    url = f"/ws/{sid}/Alice?token={TOKEN}"
    with client.websocket_connect(url) as ws:
        first = ws.receive_json()
        assert set(EPISODE_FIELDS) <= set(first)
        assert first["board"] == {"kind": "room-map", "layout": session.board["layout"]}
        assert first["intro"] == session.game.intro("Alice") and first["seat"] == "Alice"
        assert [f["tick"] for f in first["frames"]] == [session.frames[-1]["tick"]]
        later = [decide(ws, session, expert) for _ in range(4)]
    assert all(not set(EPISODE_FIELDS) & set(state) for state in later)
    # each frame is sent once: a state holds only the frames taken since the one before
    ticks = [f["tick"] for state in [first, *later] for f in state["frames"]]
    assert ticks == sorted(set(ticks)) and len(ticks) == len(later) + 1
    # and each message once: the states' messages add up to the chat, which a reconnect resends
    said = [m for state in [first, *later] for m in state["chat"]]
    assert said == session.view("Alice")["chat"] and len(said) == later[-1]["chat_count"]
    with client.websocket_connect(url) as ws:
        again = ws.receive_json()
    assert {k: again[k] for k in EPISODE_FIELDS} == {k: first[k] for k in EPISODE_FIELDS}
    assert again["frames"] == later[-1]["frames"] and again["version"] == later[-1]["version"]
    assert again["chat"] == said


def test_a_changed_setup_is_sent_again(tmp_path) -> None:
    app = serve_app(tmp_path, *HOUSEHOLD)
    client = TestClient(app)
    sid = client.post(f"/api/sessions?token={TOKEN}").json()["session"]
    session = only_session(app)
    expert = HouseholdExpert()
    expert.reset("Alice", session.seed)
    with client.websocket_connect(f"/ws/{sid}/Alice?token={TOKEN}") as ws:
        assert ws.receive_json()["names"] == {"Alice": "Alice", "Bob": "Bob"}
        assert "names" not in decide(ws, session, expert)
        session.names = {"Alice": "Ann"}
        renamed = decide(ws, session, expert)
        assert renamed["names"] == {"Alice": "Ann", "Bob": "Bob"} and "board" in renamed
        assert "names" not in decide(ws, session, expert)


@pytest.mark.slow
def test_the_page_draws_the_same_board_from_the_setup_sent_once(tmp_path, page) -> None:
    app = serve_app(tmp_path, *HOUSEHOLD)
    sockets: list[list[dict]] = []

    def watch(ws) -> None:
        received: list[dict] = []
        sockets.append(received)
        ws.on("framereceived", lambda payload: received.append(json.loads(payload)))

    page.on("websocket", watch)
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        session = only_session(app)
        rooms = session.board["layout"]["rooms"]
        me = HouseholdExpert()
        me.reset("Alice", session.seed)
        for _ in range(3):
            play_decision(page, session, "Alice", me)
        # states without the layout still draw every room by name, with the help and no ids
        for room in rooms:
            expect(page.get_by_test_id(f"room-{room['id']}")).to_contain_text(room["name"])
        tick = str(session.frames[-1]["tick"])
        expect(page.locator("body")).to_have_attribute("data-board-tick", tick)  # the last frame
        expect(page.get_by_test_id("help")).to_be_visible()
        expect(page.get_by_test_id("help")).to_contain_text("What the actions do")
        expect(page.locator("#observation")).not_to_contain_text("(230)")
        drawn = page.locator("#drawing").inner_html()
        version = page.locator("body").get_attribute("data-version")
        # the connection drops with the board wiped: the page reconnects by itself, and the
        # state the new connection sends (with the setup) draws the same board again
        page.evaluate("$('drawing').replaceChildren(); socket.close()")
        expect(page.get_by_test_id(f"room-{rooms[0]['id']}")).to_be_visible()
        expect(page.get_by_test_id("status")).to_have_text("connected")
        expect(page.locator("body")).to_have_attribute("data-version", version)
        assert page.locator("#drawing").inner_html() == drawn
    states = [[m for m in received if m["type"] == "state"] for received in sockets]
    assert len(states) == 2 and len(states[0]) >= 4 and states[1]
    for connection in states:
        assert "board" in connection[0] and not any("board" in s for s in connection[1:])
