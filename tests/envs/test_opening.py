"""The conversation's opening: the paper's seeded exchange (E.5/E.6) in the dialogue at tick 0,
costing no time, by default in the household; a greeting at the first decision (collabrl's earlier
behaviour) or none as options."""

from __future__ import annotations

import pytest

from collabrl.agents.persona.voice import GREETINGS
from collabrl.agents.prompts import build_messages
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import OPENING_GREETING, OPENING_REPLY, HouseholdGame
from collabrl.envs.household.render import build_state
from collabrl.envs.household.section import HouseholdSection
from collabrl.episode import Episode, play_episode
from collabrl.factory import make_persona
from collabrl.profiles import load_profiles

ALL_GREETINGS = {g for style in GREETINGS.values() for g in style}
GREETING_RULE = "At your very first decision, greet your teammates"


def greeter():
    """A test profile whose persona greets (does not lead with a plan) at its first decision."""
    for profile in load_profiles(game="household", split="test"):
        persona = make_persona(profile)
        if not persona.temperament.leads:
            return profile
    raise AssertionError("no non-leading household test profile")


def first_turns(opening: str):
    profile = greeter()
    game = HouseholdGame(profile.task, opening=opening)
    record = play_episode(game, {"Alice": HouseholdExpert(), "Bob": make_persona(profile)}, 0)
    bob = [t for t in record.turns if t.seat == "Bob"]
    return game, record, bob


def test_the_household_opens_with_the_seeded_exchange_at_tick_0_by_default() -> None:
    assert HouseholdSection().opening == "seeded"
    game = HouseholdSection().make_game()
    observations = game.reset(seed=0)
    assert game.tick == 0
    for seat, obs in observations.items():
        assert obs.tick == 0
        lines = [(d["speaker"], d["text"]) for d in obs.state["dialogue"]]
        assert lines == [("Alice", OPENING_GREETING), ("Bob", OPENING_REPLY)], seat
        assert f'Alice: "{OPENING_GREETING}"' in obs.text and f'Bob: "{OPENING_REPLY}"' in obs.text
    # the lines are what E.5/E.6 seed: reports of finds and finished subgoals, asking for help
    for text in (OPENING_GREETING, OPENING_REPLY):
        assert "goal objects" in text and "subgoal" in text and "help" in text


def test_the_seeded_exchange_costs_no_tick_and_no_decision() -> None:
    game, record, bob = first_turns("seeded")
    assert bob[0].tick == 0 and bob[0].message not in ALL_GREETINGS  # no greeting of its own
    assert not any(t.message in ALL_GREETINGS for t in record.turns)
    # it is dialogue, not a decision: no message counted, nobody's request
    assert record.summary["messages"]["Bob"] == sum(
        t.action == "[send_message]" and t.valid for t in bob
    )
    episode = Episode(HouseholdGame(game.task, opening="seeded"), {}, 0)
    assert episode.messages()[:2] == [(0, "Alice", OPENING_GREETING), (0, "Bob", OPENING_REPLY)]
    persona = make_persona(greeter())
    persona.reset("Bob", 0)
    persona.act(episode.pending["Bob"])
    assert persona.stats["requests"] == 0  # the promises hand it no job


def test_first_decision_restores_the_greeting_that_costs_a_tick() -> None:
    game, record, bob = first_turns("first_decision")
    assert bob[0].message in ALL_GREETINGS and bob[0].action == "[send_message]"
    assert bob[1].tick == 1  # the greeting took the first tick
    obs = HouseholdGame(game.task, opening="first_decision").reset(seed=0)["Bob"]
    assert obs.state["dialogue"] == [] and "(no messages yet)" in obs.text


@pytest.mark.parametrize(
    ("opening", "rule"), [("seeded", False), ("first_decision", True), ("none", False)]
)
def test_the_simulated_players_prompt_asks_for_a_greeting_only_at_first_decision(
    opening: str, rule: bool
) -> None:
    game = HouseholdGame("0_read_book", opening=opening)
    obs = game.reset(seed=0)["Bob"]
    system = build_messages(game, obs, "Very chatty.", "player")[0]["content"]
    assert (GREETING_RULE in system) is rule
    assert GREETING_RULE not in build_messages(game, obs)[0]["content"]  # the agent: never
    assert bool(obs.state["dialogue"]) is (opening == "seeded")


def test_none_opens_silently() -> None:
    game, record, bob = first_turns("none")
    assert not any(t.message in ALL_GREETINGS for t in record.turns)
    assert HouseholdGame(game.task, opening="none").reset(seed=0)["Bob"].state["dialogue"] == []


def kitchen_turns(opening: str):
    from collabrl.envs.kitchen.expert import KitchenExpert
    from collabrl.envs.kitchen.game import KitchenGame

    profile = next(
        p
        for p in load_profiles(game="kitchen", split="test")
        if not make_persona(p).temperament.leads
    )
    game = KitchenGame(profile.task, horizon=40, opening=opening)
    players = {"Player 0": KitchenExpert(), "Player 1": make_persona(profile)}
    record = play_episode(game, players, seed=0)
    return game, record, [t for t in record.turns if t.seat == "Player 1"]


def test_the_kitchen_opens_with_an_empty_chat_as_the_papers_cook_prompts() -> None:
    from collabrl.envs.kitchen.section import KitchenSection

    assert KitchenSection().opening == "none"
    game, record, chef = kitchen_turns("none")
    assert game.reset(seed=0)["Player 1"].state["chat"] == []
    assert not any(t.message in ALL_GREETINGS for t in chef)
    assert record.summary["opening"] == "none"
    again = KitchenSection.from_summary(record.summary)
    assert again.opening == "none"


def test_the_kitchen_takes_the_seeded_exchange_and_the_first_decision_greeting_as_options() -> None:
    from collabrl.envs.kitchen.game import OPENING_GREETING as COOK_GREETING
    from collabrl.envs.kitchen.game import OPENING_REPLY as COOK_REPLY
    from collabrl.envs.kitchen.game import KitchenGame

    obs = KitchenGame("cramped_room", opening="seeded").reset(seed=0)
    for o in obs.values():
        assert o.tick == 0
        assert [(c["seat"], c["text"]) for c in o.state["chat"]] == [
            ("Player 0", COOK_GREETING),
            ("Player 1", COOK_REPLY),
        ]
        assert COOK_GREETING in o.text
    game, record, chef = kitchen_turns("seeded")
    assert chef[0].tick == 0 and not any(t.message in ALL_GREETINGS for t in chef)
    assert record.summary["messages"]["Player 1"] == sum(
        t.action == "set_message()" and t.valid for t in chef
    )
    game, record, chef = kitchen_turns("first_decision")
    assert chef[0].message in ALL_GREETINGS and chef[0].action == "set_message()"


def test_the_seeded_exchange_stays_in_view_however_long_the_talk() -> None:
    # E.5/E.6 print the exchange ahead of the dialogue history: it never scrolls out of the
    # five-line window, which shows the last five lines said since
    game = HouseholdSection().make_game()
    game.reset(seed=0)
    for k in range(7):
        game._send(k % 2, f"line {k}")
    lines = [d["text"] for d in build_state(game, 0)["dialogue"]]
    assert lines == [OPENING_GREETING, OPENING_REPLY, *(f"line {k}" for k in range(2, 7))]
