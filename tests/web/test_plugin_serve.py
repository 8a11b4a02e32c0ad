"""Games the web app has never been told about, served as they are: the plug-in relay and tally
games (``examples/``, packages of their own, no board), a person beside the game's expert.

Browser-free: the test is the page, playing through the serve app's own API (new episode, the
seat's WebSocket) to the end of the episode, the game's expert choosing the person's decisions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from collabrl.agents.protocol import parse_observed
from collabrl.config import load_recipe
from collabrl.envs.registry import get_game, load_addon
from collabrl.web.serve_app import make_serve_app
from tests.plugins import plugin_params
from tests.web.helpers import TOKEN, only_session

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLUGINS = {  # game -> (recipe, the person's seat, the page's clock)
    "relay": (EXAMPLES / "relay_game/recipes/relay_play.yaml", "Ann", 60),
    "tally": (EXAMPLES / "tally_game/recipes/tally_human.yaml", "Ann", 30),
}


@pytest.mark.parametrize("game", plugin_params(PLUGINS))
def test_a_person_plays_a_plugin_game_beside_the_expert_to_the_end(tmp_path, game) -> None:
    path, seat, limit = PLUGINS[game]
    recipe = load_recipe(str(path), ["players.0.kind=human"])
    app = make_serve_app(recipe, tmp_path, TOKEN)
    client = TestClient(app)
    created = client.post(f"/api/sessions?token={TOKEN}").json()
    assert list(created["seats"]) == [seat]
    session = only_session(app)
    me = load_addon(get_game(game).expert, "expert", game)()
    me.reset(seat, session.seed)
    with client.websocket_connect(f"/ws/{created['session']}/{seat}?token={TOKEN}") as ws:
        state = ws.receive_json()
        assert state["game"] == game and state["limit"] == limit and "board" not in state
        said = list(state["chat"])  # a state sends the messages new to the connection
        while not state["done"]:
            if state["your_turn"]:
                obs = session.seats[seat].obs
                parsed = parse_observed(me.act(obs), obs)
                ws.send_json({"type": "decide", "action": parsed.action, "message": parsed.message})
            state = ws.receive_json()
            assert state["type"] == "state", state
            said += state["chat"]
    assert state["summary"]["success"] and state["outcome"].startswith("Success: steps")
    chat = [(c["tick"], c["speaker"], c["text"]) for c in said]
    assert chat and chat == [(t, s, m) for t, s, m in session.game.dialogue]
    (record,) = [json.loads(line) for line in (tmp_path / "trajectories.jsonl").open()]
    assert record["game"] == game and record["task"] == recipe.game.task
    assert record["efficiency"] == record["summary"]["steps"] and record["frames"] == []
    assert {t["player"] for t in record["turns"]} == {"human", "expert"}
