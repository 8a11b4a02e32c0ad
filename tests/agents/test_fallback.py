"""``game.unusable_reply``: idle (the paper's strict reading, the default) or released (the
released CWAH parser's salvage: a word match, else a seeded random listed action), with the parse
contract unchanged and the step still flagged invalid."""

from __future__ import annotations

import random

import pytest

from collabrl.agents.fallback import salvage
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed, parse_response
from collabrl.config import load_recipe
from collabrl.envs.registry import get_game
from collabrl.episode import play_episode


def household_obs():
    section = get_game("household").model_validate({"name": "household", "task": "0_read_book"})
    game = section.make_game()
    return next(iter(game.reset(seed=0).values()))


def test_a_word_of_an_action_picks_it() -> None:
    obs = household_obs()
    reply = "<think>x</think><message></message><action>walk to the kitchen now</action>"
    parsed = parse_observed(reply, obs)
    assert parsed.action is None and not parsed.valid  # the contract: no usable action
    salvaged = salvage(parsed, reply, obs, random.Random(0))
    assert salvaged.action == "[goexplore] <kitchen> (63)" and not salvaged.valid
    assert salvaged.errors[:-1] == parsed.errors and "a word match" in salvaged.errors[-1]
    assert parse_response(reply, obs.actions).action is None  # the parser itself is unchanged


def test_no_shared_word_runs_a_seeded_random_listed_action() -> None:
    obs = household_obs()
    picks = {
        salvage(parse_observed("zzz", obs), "zzz", obs, random.Random(s)).action for s in range(30)
    }
    # no message to send, so the message action is never drawn; every pick is listed
    assert picks <= set(obs.actions) - {obs.message_action} and len(picks) > 1
    again = [salvage(parse_observed("zzz", obs), "zzz", obs, random.Random(7)).action for _ in "ab"]
    assert again[0] == again[1]
    kitchen = get_game("kitchen").model_validate({"name": "kitchen", "layout": "cramped_room"})
    obs = next(iter(kitchen.make_game().reset(seed=0).values()))
    drawn = {
        salvage(parse_observed("?", obs), "?", obs, random.Random(s)).action for s in range(20)
    }
    assert drawn == {"pickup(onion)"}  # not the template wait(x), not an empty set_message()


def test_a_usable_action_is_left_as_parsed() -> None:
    obs = household_obs()
    reply = "<action>[goexplore] <bedroom> (15)</action>"  # tags missing: invalid, but usable
    parsed = parse_observed(reply, obs)
    assert salvage(parsed, reply, obs, random.Random(0)) is parsed


class Babbler(Player):
    """A seat that never gives a usable action."""

    def act(self, obs) -> str:
        return "<think>hm</think><message></message><action>I am not sure</action>"


@pytest.mark.parametrize("option", ["idle", "released"])
def test_an_episode_idles_or_salvages_by_the_option(option) -> None:
    section = get_game("household").model_validate(
        {"name": "household", "task": "0_read_book", "max_ticks": 12, "unusable_reply": option}
    )
    game = section.make_game()
    players = {seat: Babbler() for seat in game.agents}
    record = play_episode(game, players, 3, section.unusable_reply)
    assert record.turns and all(not t.valid for t in record.turns)
    acted = [t.action for t in record.turns]
    if option == "idle":
        assert acted == [None] * len(acted)
    else:
        assert all(a is not None for a in acted)
        again = play_episode(section.make_game(), players, 3, "released")
        assert [t.action for t in again.turns] == acted  # seeded by episode, seat, decision
    assert record.summary["invalid"] == record.summary["decisions"]  # counted invalid alike


def test_the_option_reaches_training_and_defaults_to_idle() -> None:
    from collabrl.training.groups import make_slots, partner_profiles, plan_groups

    assert load_recipe("cwah_gigpo").game.unusable_reply == "idle"
    recipe = load_recipe("cwah_gigpo_cpu", ["game.unusable_reply=released"])
    slots = make_slots(recipe, plan_groups(recipe, partner_profiles(recipe), iteration=0))
    assert {s.unusable_reply for s in slots} == {"released"}
