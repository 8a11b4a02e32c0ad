"""A game the web app has never been told about, served as it is: the plug-in relay game
(``examples/relay_game``, its own package, no board) with a person beside the relay expert.

Browser-free: the test is the page, playing through the serve app's own API (new episode, the
seat's WebSocket) to the end of the episode, the relay expert choosing the person's decisions.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from collabrl.agents.protocol import parse_observed
from collabrl.config import load_recipe
from collabrl.envs.registry import get_game, load_addon
from collabrl.web.serve_app import make_serve_app
from tests.web.helpers import TOKEN, only_session

RELAY_PLAY = Path(__file__).resolve().parents[2] / "examples/relay_game/recipes/relay_play.yaml"


def test_a_person_plays_relay_beside_the_expert_to_the_end(tmp_path) -> None:
    recipe = load_recipe(str(RELAY_PLAY), ["players.0.kind=human"])
    app = make_serve_app(recipe, tmp_path, TOKEN)
    client = TestClient(app)
    created = client.post(f"/api/sessions?token={TOKEN}").json()
    assert list(created["seats"]) == ["Ann"]
    session = only_session(app)
    me = load_addon(get_game("relay").expert, "expert", "relay")()
    me.reset("Ann", session.seed)
    with client.websocket_connect(f"/ws/{created['session']}/Ann?token={TOKEN}") as ws:
        state = ws.receive_json()
        assert state["game"] == "relay" and state["limit"] == 60 and "board" not in state
        while not state["done"]:
            if state["your_turn"]:
                obs = session.seats["Ann"].obs
                parsed = parse_observed(me.act(obs), obs)
                ws.send_json({"type": "decide", "action": parsed.action, "message": parsed.message})
            state = ws.receive_json()
            assert state["type"] == "state", state
    assert state["summary"]["success"] and state["outcome"].startswith("Success: steps")
    chat = [(c["tick"], c["speaker"], c["text"]) for c in state["chat"]]
    assert chat and chat == session.game.dialogue  # the turns' messages are what the game said
    (record,) = [json.loads(line) for line in (tmp_path / "trajectories.jsonl").open()]
    assert record["game"] == "relay" and record["task"] == recipe.game.task
    assert record["efficiency"] == record["summary"]["steps"] and record["frames"] == []
    assert {t["player"] for t in record["turns"]} == {"human", "expert"}
