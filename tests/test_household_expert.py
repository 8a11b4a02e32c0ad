"""The rule-based household expert: finishes tasks, shares finds, honours teammates' claims."""

from __future__ import annotations

import re

import pytest

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.base import MESSAGE_ACTION, Decision
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.selfplay import play_experts, run_episode
from collabrl.envs.household.tasks import TEST_TASK_NAMES, Predicate, Task, load_tasks
from collabrl.envs.household.world import load_apartments


@pytest.mark.parametrize("name", TEST_TASK_NAMES)
def test_expert_pair_finishes_test_tasks(name: str) -> None:
    summary = play_experts(name, seed=0)
    assert summary["success"], summary
    assert summary["steps"] <= 95
    assert sum(summary["invalid"].values()) == 0
    assert all(n > 0 for n in summary["messages"].values())


@pytest.mark.parametrize("seats", [1, 3])
def test_experts_in_any_number_of_seats(seats: int) -> None:
    for task in load_tasks("test")[::3]:
        summary = play_experts(task, seed=2, seats=seats)
        assert summary["success"] and len(summary["decisions"]) == seats


def test_same_seed_same_transcript() -> None:
    def transcript(seed: int):
        game = HouseholdGame("26_prepare_food")
        lines = run_episode(game, {s: HouseholdExpert() for s in game.agents}, seed)
        return lines, game.summary()

    assert transcript(3) == transcript(3)
    assert transcript(0)[1]["success"]


def test_replies_are_well_formed_and_offered() -> None:
    game = HouseholdGame("40_setup_table")
    expert = HouseholdExpert()
    assert isinstance(expert, Player)
    obs = game.reset(0)
    expert.reset("Alice", 0)
    reply = expert.act(obs["Alice"])
    parsed = parse_response(reply, obs["Alice"].actions)
    assert parsed.valid and parsed.action in obs["Alice"].actions and parsed.think
    assert parsed.message


def _pending_obs(game, seat, result):
    while seat not in result.observations:
        result = game.step({s: Decision(MESSAGE_ACTION) for s in result.observations})
    return result.observations[seat]


def _corridor_task() -> Task:
    """Both seats start in a livingroom without containers, between bedroom and kitchen."""
    apt = load_apartments()[1]
    assert apt.name == "corridor"
    living = apt.room_named("livingroom").id
    desk = next(f.id for f in apt.fixtures.values() if f.name == "desk")
    table = next(f.id for f in apt.fixtures.values() if f.name == "coffeetable")
    return Task(
        id=98,
        name="98_test",
        family="read_book",
        split="train",
        apartment=apt.id,
        objects=((301, "book", desk), (302, "mug", desk)),
        goal=(Predicate("ON", "book", 1, table),),
        start_rooms=(living, living),
    )


def _target(parsed) -> int:
    text = parsed.action if parsed.action != MESSAGE_ACTION else parsed.message
    return int(re.search(r"\((\d+)\)", text).group(1))


@pytest.mark.parametrize("phrase", ["I'll check the {room}", "I'm going to the {room} now"])
def test_expert_honours_a_natural_language_claim(phrase: str) -> None:
    task = _corridor_task()
    game = HouseholdGame(task, seats=("Human", "Bot"))
    bot = HouseholdExpert()
    bot.reset("Bot", 0)
    obs = game.reset(None)["Bot"]
    first = game.apartment.rooms[_target(parse_response(bot.act(obs), obs.actions))]
    assert first.name in ("bedroom", "kitchen")
    game.reset(None)
    res = game.step(
        {"Human": Decision(MESSAGE_ACTION, phrase.format(room=first.name)), "Bot": Decision(None)}
    )
    bot.reset("Bot", 0)
    obs = res.observations["Bot"]
    assert obs.state["partners"]["Human"]["claims"] == [["explore", first.id]]
    other = game.apartment.rooms[_target(parse_response(bot.act(obs), obs.actions))]
    assert other.name in ("bedroom", "kitchen") and other.id != first.id


def test_expert_announces_found_goal_objects_and_grabs_told_objects() -> None:
    game = HouseholdGame("30_put_fridge", seats=("Human", "Bot"))
    obs = game.reset(None)
    task = game.task
    goal_name = task.goal[0].object
    obj, _, at = next(o for o in task.objects if o[1] == goal_name)
    fixture = game.apartment.fixtures[at]
    res = game.step(
        {
            "Human": Decision(
                MESSAGE_ACTION, f"found {goal_name} ({obj}) in the {fixture.name} ({fixture.id})"
            ),
            "Bot": Decision(None),
        }
    )
    bot = HouseholdExpert()
    bot.reset("Bot", 0)
    bot_obs = res.observations["Bot"]
    assert any(g["id"] == obj for g in bot_obs.state["goal_objects"])
    reply = parse_response(bot.act(bot_obs), bot_obs.actions)
    said = reply.message + " " + (reply.action or "")
    assert f"({obj})" in said  # it goes for the object it was told about (and says so)
    assert obs  # the human's own view is untouched by its message
