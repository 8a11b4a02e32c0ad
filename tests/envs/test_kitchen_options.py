"""What a kitchen seat is offered and shown, per layout: the paper's action set (wait(x)
everywhere) and the released ProAgent code's (no wait(x) on cramped_room and counter_circuit);
teammates' holdings hidden on forced_coordination by default (the released code; the paper is
silent), shown with ``holdings=always``."""

from __future__ import annotations

import pytest

from collabrl.envs.base import Decision
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES
from collabrl.envs.kitchen.render import HIDDEN
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.envs.kitchen.skills import PICKUP_ONION, SET_MESSAGE, WAIT
from collabrl.episode import play_experts

P0, P1 = "Player 0", "Player 1"
HOLDINGS = ("released", "always")
NO_WAIT_IN_RELEASED = {"cramped_room", "counter_circuit"}


def test_the_defaults_are_the_papers_actions_and_the_released_codes_visibility() -> None:
    section = KitchenSection()
    assert (section.action_set, section.holdings) == ("paper", "released")
    game = section.make_game()
    assert (game.action_set, game.holdings) == ("paper", "released")


@pytest.mark.parametrize("layout", LAYOUT_NAMES)
@pytest.mark.parametrize("action_set", ["paper", "released"])
def test_wait_is_offered_per_layout_and_action_set(layout: str, action_set: str) -> None:
    game = KitchenGame(layout, action_set=action_set)
    offered = action_set == "paper" or layout not in NO_WAIT_IN_RELEASED
    for obs in game.reset(0).values():
        assert (WAIT in obs.actions) == offered and SET_MESSAGE in obs.actions
        assert ("wait(x)" in obs.text) == offered
    assert ("wait(x) idles" in game.intro(P0)) == offered


def test_a_wait_where_none_is_offered_is_an_action_not_offered() -> None:
    game = KitchenGame("cramped_room", action_set="released")
    game.reset(0)
    result = game.step({P0: Decision("wait(5)"), P1: Decision(PICKUP_ONION)})
    assert result.infos[P0]["invalid"] and game.tick == 1  # one idle tick, not five
    assert game.summary()["invalid"] == {P0: 1, P1: 0}
    paper = KitchenGame("cramped_room")
    paper.reset(0)
    result = paper.step({P0: Decision("wait(5)"), P1: Decision(PICKUP_ONION)})
    assert not result.infos[P0]["invalid"]


@pytest.mark.parametrize("layout", LAYOUT_NAMES)
def test_teammate_holdings_are_hidden_only_on_forced_coordination(layout: str) -> None:
    hidden = layout == "forced_coordination"
    for holdings, shown in (("released", not hidden), ("always", True)):
        for seat, obs in KitchenGame(layout, holdings=holdings).reset(0).items():
            other = P1 if seat == P0 else P0
            (partner,) = obs.state["partners"]
            assert (partner["held"] != HIDDEN) == shown and obs.state["self"]["held"] is None
            assert (f"{other} is holding" in obs.text) == shown
            assert "deciding what to do." in obs.text  # what the teammate does stays shown
            assert f"You are {seat}, holding nothing." in obs.text


def test_hidden_holdings_stay_hidden_after_the_teammate_picks_something_up() -> None:
    for holdings in ("released", "always"):
        game = KitchenGame("forced_coordination", holdings=holdings)
        first = game.reset(0)
        mover = next(s for s, o in first.items() if PICKUP_ONION in o.actions)
        other = P1 if mover == P0 else P0
        result = game.step({mover: Decision(PICKUP_ONION), other: Decision("wait(20)")})
        (partner,) = result.observations[mover].state["partners"]
        assert partner["skill"] == "wait(20)"
        while other not in result.observations:
            result = game.step({s: Decision(WAIT) for s in result.observations})
        (seen,) = result.observations[other].state["partners"]
        assert seen["held"] == (HIDDEN if holdings == "released" else "onion")


@pytest.mark.parametrize("layout", sorted(set(LAYOUT_NAMES) - {"forced_coordination"}))
def test_elsewhere_the_holdings_option_changes_nothing(layout: str) -> None:
    """The new default changes forced_coordination only: every other layout plays the same."""
    plays = [play_experts(KitchenGame(layout, holdings=h), KitchenExpert, seed=0) for h in HOLDINGS]
    for summary in plays:
        summary.pop("holdings")
    assert plays[0] == plays[1]


def test_summaries_replay_both_options_and_version_1_summaries_show_holdings() -> None:
    game = KitchenGame("forced_coordination", action_set="released", holdings="always")
    game.reset(0)
    section = KitchenSection.from_summary(game.summary())
    assert (section.action_set, section.holdings) == ("released", "always")
    old = KitchenSection.from_summary(
        {k: v for k, v in game.summary().items() if k not in ("action_set", "holdings")}
    )
    assert (old.action_set, old.holdings) == ("paper", "always")


def test_unknown_option_values_are_refused() -> None:
    with pytest.raises(ValueError, match="action_set"):
        KitchenGame("cramped_room", action_set="ours")
    with pytest.raises(ValueError, match="holdings"):
        KitchenGame("cramped_room", holdings="never")
