"""The human-seat protocol's Python client against a real server (uvicorn on a thread): a whole
episode scripted through it, refusals, stale decisions and a version mismatch."""

from __future__ import annotations

import json

import pytest

from collabrl.agents.protocol import parse_observed
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.web.client import (
    DecisionRefused,
    ProtocolError,
    SeatClient,
    socket_url,
    start_episode,
)
from collabrl.web.server import background
from collabrl.web.session import PROTOCOL
from tests.web.helpers import TOKEN, only_session, serve_app


def test_a_scripted_seat_plays_a_household_episode_to_success(tmp_path) -> None:
    app = serve_app(tmp_path, "household_human", "players.1.kind=expert", "players.1.profile=null")
    with background(app) as base:
        seats = start_episode(base, TOKEN)
        assert list(seats) == ["Alice"] and seats["Alice"].startswith(f"{base}/play/")
        session = only_session(app)
        expert = HouseholdExpert()
        expert.reset("Alice", session.seed)

        def choose(state: dict) -> tuple[str, str]:
            assert state["protocol"] == PROTOCOL and state["observation"]["text"]
            assert state["intro"] and state["board"]["kind"] == "room-map"  # the setup, kept
            obs = session.seats["Alice"].obs
            parsed = parse_observed(expert.act(obs), obs)
            return parsed.action, parsed.message

        with SeatClient(seats["Alice"]) as seat:
            final = seat.play(choose)
    assert final["done"] and final["summary"]["success"]
    (record,) = [json.loads(line) for line in (tmp_path / "trajectories.jsonl").open()]
    mine = [t for t in record["turns"] if t["seat"] == "Alice"]
    assert mine and {t["player"] for t in mine} == {"human"}
    assert all(t["valid"] for t in mine)  # every decision was taken on its own observation


def test_refusals_come_back_as_errors_and_resends_apply_once(tmp_path) -> None:
    app = serve_app(tmp_path, "household_human", "players.1.kind=expert", "players.1.profile=null")
    with background(app) as base, SeatClient(start_episode(base, TOKEN)["Alice"]) as seat:
        state = seat.wait_for_turn()
        first = state["observation"]["actions"][0]["action"]
        with pytest.raises(DecisionRefused, match="at most 500"):
            seat.decide(first, "x" * 501)
        with pytest.raises(DecisionRefused, match="unknown action 'fly_to_moon\\(\\)'"):
            seat.decide("fly_to_moon()")
        with pytest.raises(DecisionRefused, match="a message needs some text"):
            seat.decide(state["observation"]["message_action"], "   ")
        after = seat.decide(first)
        assert after["tick"] > state["tick"]
        turns = len(only_session(app).turns)
        seat.state = state  # resend the decision on the observation already answered
        assert seat.decide(first) is state  # acknowledged as a resend
        assert len(only_session(app).turns) == turns  # and not applied twice
        seat.state = {**state, "observation": {**state["observation"], "tick": -5}}
        with pytest.raises(DecisionRefused, match="stale") as stale:
            seat.decide(first)
        assert stale.value.code == "stale"


def test_a_server_of_another_protocol_version_is_named(tmp_path, monkeypatch) -> None:
    import collabrl.web.serve_app as serve

    monkeypatch.setattr(serve, "PROTOCOL", PROTOCOL + 1)
    with background(serve_app(tmp_path, "household_human")) as base:
        with pytest.raises(ProtocolError, match=f"speaks human-seat protocol {PROTOCOL + 1}"):
            start_episode(base, TOKEN)
        with pytest.raises(ProtocolError, match="HTTP 403"):
            start_episode(base, "wrong-token")


def test_socket_urls_follow_the_page_urls() -> None:
    assert socket_url("http://h:1/play/s1/Bob%20B?token=t") == "ws://h:1/ws/s1/Bob%20B?token=t"
    assert socket_url("https://lab.example/play/s/A?token=t") == "wss://lab.example/ws/s/A?token=t"
    with pytest.raises(ProtocolError, match="not a seat page URL"):
        socket_url("http://h:1/?token=t")
