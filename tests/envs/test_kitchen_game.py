"""KitchenGame seat API: offered skills, messages, waits, invalid decisions, motion layers."""

from __future__ import annotations

import pytest

from collabrl.envs.base import Decision, Game
from collabrl.envs.kitchen.engine import Soup
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.motion import MOTIONS
from collabrl.envs.kitchen.skills import (
    PICKUP_ONION,
    PICKUP_SOUP,
    PLACE_ON_COUNTER,
    PUT_ONION,
    SET_MESSAGE,
    WAIT,
)

P0, P1 = "Player 0", "Player 1"


def test_reset_offers_only_legal_skills() -> None:
    game = KitchenGame("cramped_room")
    assert isinstance(game, Game)
    obs = game.reset(0)
    assert set(obs) == {P0, P1}
    assert obs[P0].actions == [PICKUP_ONION, WAIT, SET_MESSAGE]  # no dish before a soup is on
    assert "A. pickup(onion)" in obs[P0].text and "Timestep 0 of 400" in obs[P0].text
    hash(obs[P0].anchor)
    assert obs[P0].state["self"]["held"] is None and obs[P0].state["pots"][0]["status"] == "empty"


def test_skill_runs_until_done_then_seat_decides_again() -> None:
    game = KitchenGame("cramped_room")
    game.reset(0)
    result = game.step({P0: Decision(PICKUP_ONION), P1: Decision("wait(20)")})
    assert set(result.observations) == {P0}
    obs = result.observations[P0]
    assert obs.state["self"]["held"] == "onion"
    assert obs.actions[:2] == [PUT_ONION, PLACE_ON_COUNTER]
    assert obs.state["partners"][0]["skill"] == "wait(20)"
    assert result.infos[P0]["ended"] == [(PICKUP_ONION, "done")]


def test_message_costs_one_tick_and_reaches_teammates() -> None:
    game = KitchenGame("cramped_room")
    game.reset(0)
    result = game.step(
        {P0: Decision(SET_MESSAGE, message="I take onions"), P1: Decision("wait(5)")}
    )
    assert game.tick == 1 and set(result.observations) == {P0}
    assert result.infos[P0]["message_sent"]
    result = game.step({P0: Decision("wait(4)")})
    chat = result.observations[P1].state["chat"]
    assert chat == [{"tick": 0, "seat": P0, "text": "I take onions"}]
    assert "I take onions" in result.observations[P1].text
    assert game.summary()["messages"] == {P0: 1, P1: 0}


def test_wait_takes_the_named_number_of_ticks() -> None:
    game = KitchenGame("cramped_room")
    game.reset(0)
    game.step({P0: Decision("wait(7)"), P1: Decision("wait(3)")})
    assert game.tick == 3
    game.step({P1: Decision(WAIT)})  # the bare template waits one tick
    assert game.tick == 4


@pytest.mark.parametrize("motion", MOTIONS)
def test_invalid_decisions_idle_one_tick_and_never_crash(motion: str) -> None:
    game = KitchenGame("cramped_room", motion=motion)
    game.reset(0)
    bad = [Decision(PUT_ONION), Decision(None), Decision("wait(21)"), Decision("dance()"), None]
    for decision in bad:
        before = [c.pos for c in game.state.chefs]
        result = game.step({P0: decision, P1: Decision(None)})
        assert game.tick == len([d for d in bad[: bad.index(decision) + 1]])
        assert result.infos[P0]["invalid"] and result.infos[P1]["invalid"]
        if motion == "cooperative":  # the reference layer shuffles idle chefs (tested below)
            assert [c.pos for c in game.state.chefs] == before
        assert set(result.observations) == {P0, P1}
    game.step({})  # missing decisions are invalid too
    summary = game.summary()
    assert summary["invalid"] == {P0: 6, P1: 6} and summary["decisions"] == {P0: 6, P1: 6}
    assert all(c.held is None for c in game.state.chefs)
    assert not game.state.pots and not game.state.counters


def test_reference_idle_chefs_shuffle_over_the_floor_and_never_interact() -> None:
    game = KitchenGame("cramped_room")
    game.reset(0)
    game.state.chefs[0].held = "onion"
    seen = set()
    while game.tick < 60:
        game.step({seat: Decision("wait(20)") for seat in (P0, P1)})
        seen.update(c.pos for c in game.state.chefs)
    assert len(seen) > 2 and seen <= game.layout.floor
    assert game.state.chefs[0].held == "onion" and not game.state.counters


def _head_on(motion: str) -> KitchenGame:
    """Both chefs fetch an onion and both step into the same cell next to the left dispenser."""
    game = KitchenGame("cramped_room", horizon=60, motion=motion)
    game.reset(0)
    game.state.chefs[1].pos = (2, 1)  # P0 at (1, 2): (1, 1) is one step away for both
    game.step({P0: Decision(PICKUP_ONION), P1: Decision(PICKUP_ONION)})
    return game


def test_reference_chefs_block_each_other_until_the_horizon() -> None:
    game = _head_on("reference")
    assert game.done and game.tick == 60  # nobody was asked again: no skill ever gives up
    assert [c.pos for c in game.state.chefs] == [(1, 2), (2, 1)]
    assert all(c.held is None for c in game.state.chefs)


def test_cooperative_chefs_resolve_the_same_blocking() -> None:
    game = _head_on("cooperative")
    assert game.tick <= 3 and not game.done
    assert [c.held for c in game.state.chefs].count("onion") >= 1


@pytest.mark.parametrize("motion", MOTIONS)
def test_pickup_soup_is_a_cooperative_skill_only(motion: str) -> None:
    game = KitchenGame("cramped_room", motion=motion)
    game.reset(0)
    game.state.counters[(0, 2)] = Soup(3, 20)  # next to P0's start cell
    assert (PICKUP_SOUP in game.offered(0)) == (motion == "cooperative")
    assert ("blocked" in game.intro(P0)) == (motion == "cooperative")
    assert game.summary()["motion"] == motion


def test_unknown_motion_is_an_error() -> None:
    with pytest.raises(ValueError, match="motion must be one of"):
        KitchenGame("cramped_room", motion="polite")


def test_walled_off_chef_is_never_offered_the_pot() -> None:
    game = KitchenGame("forced_coordination")
    game.reset(0)
    result = game.step({P0: Decision("wait(20)"), P1: Decision(PICKUP_ONION)})
    obs = result.observations[P1]
    assert obs.state["self"]["held"] == "onion"
    assert PUT_ONION not in obs.actions and PLACE_ON_COUNTER in obs.actions
    assert "cannot reach" in obs.text
    assert "pots" not in obs.state["self"]["can_reach"]


def test_horizon_ends_the_episode() -> None:
    game = KitchenGame("cramped_room", horizon=150, seats=["Alice", "Bob"])
    obs = game.reset(1)
    while obs:
        result = game.step({seat: Decision("wait(20)") for seat in obs})
        obs = result.observations
    assert game.done and game.tick == 150 and all(result.truncations.values())
    assert game.summary()["ticks"] == 150
    with pytest.raises(RuntimeError, match="episode is over"):  # as in every collabrl game
        game.step({"Alice": Decision("wait(1)")})


def _trajectory(seed: int) -> list:
    from collabrl.envs.kitchen.expert import KitchenExpert

    game = KitchenGame("coordination_ring")
    experts = {seat: KitchenExpert() for seat in game.agents}
    obs = game.reset(seed)
    log = []
    while obs:
        decisions = {seat: experts[seat].decide(o) for seat, o in obs.items()}
        log.append((game.tick, sorted((s, o.text, o.anchor) for s, o in obs.items())))
        obs = game.step(decisions).observations
    return [log, game.summary()]


def test_same_seed_same_episode() -> None:
    assert _trajectory(3) == _trajectory(3)
