"""The rule-based household expert: finishes tasks, shares finds, honours teammates' claims,
and goes to look where it was told (it acts only on what it saw); the calibrated world time."""

from __future__ import annotations

import re

import pytest

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_response
from collabrl.envs.base import MESSAGE_ACTION, Decision
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import TEST_TASK_NAMES, Predicate, Task, load_tasks
from collabrl.envs.household.world import load_apartments
from collabrl.episode import play_episode, play_experts


@pytest.mark.parametrize("name", TEST_TASK_NAMES)
def test_expert_pair_finishes_test_tasks(name: str) -> None:
    summary = play_experts(HouseholdGame(name), HouseholdExpert, seed=0)
    assert summary["success"], summary
    assert 35 <= summary["steps"] <= 120
    assert sum(summary["invalid"].values()) == 0
    assert all(n > 0 for n in summary["messages"].values())


@pytest.mark.parametrize("seats", [1, 3])
def test_experts_in_any_number_of_seats(seats: int) -> None:
    for task in load_tasks("test")[::3]:
        summary = play_experts(HouseholdGame(task, seats=seats), HouseholdExpert, seed=2)
        assert summary["success"] and len(summary["decisions"]) == seats


def test_same_seed_same_transcript() -> None:
    def transcript(seed: int):
        game = HouseholdGame("26_prepare_food")
        record = play_episode(game, {s: HouseholdExpert() for s in game.agents}, seed)
        return [(t.tick, t.seat, t.response) for t in record.turns], record.summary

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
    other = game.apartment.rooms[_target(parse_response(bot.act(obs), obs.actions))]
    assert bot.hearsay.claims["Human"].items == (("explore", first.id),)
    assert other.name in ("bedroom", "kitchen") and other.id != first.id


def test_told_objects_send_the_expert_to_look_and_it_grabs_only_what_it_saw() -> None:
    """Told where a goal object is, the expert walks to that room, checks the container and
    only then grabs the object; the game offers no grab before it has seen it."""
    game = HouseholdGame("30_put_fridge", seats=("Human", "Bot"))
    game.reset(None)
    apt = game.apartment
    bot_room = game.rooms[1]
    obj, name, at = next(
        o
        for o in game.task.objects
        if o[1] in game.goal_of
        and apt.fixtures[o[2]].container
        and apt.fixtures[o[2]].room != bot_room
    )
    fixture = apt.fixtures[at]
    res = game.step(
        {
            "Human": Decision(MESSAGE_ACTION, f"found {name} ({obj}) in the {fixture.name} ({at})"),
            "Bot": Decision(MESSAGE_ACTION, "hi"),
        }
    )
    bot = HouseholdExpert()
    bot.reset("Bot", 0)
    moves = []
    while not game.done and obj not in game.holding[1]:
        obs = res.observations.get("Bot")
        decisions = {"Human": Decision(MESSAGE_ACTION, "ok")} if "Human" in res.observations else {}
        if obs is not None:
            grab = f"[gograb] <{name}> ({obj})"
            assert (grab in obs.actions) == (obj in game.minds[1].where), moves
            reply = parse_response(bot.act(obs), obs.actions)
            moves.append(reply.action)
            decisions["Bot"] = Decision(reply.action, reply.message)
        res = game.step(decisions)
    assert obj in game.holding[1], moves
    walked = [m for m in moves if m != MESSAGE_ACTION]
    assert walked[0] == f"[goexplore] {apt.room_token(fixture.room)}"
    check, grab = f"[gocheck] {apt.fixture_token(at)}", f"[gograb] <{name}> ({obj})"
    assert walked.index(check) < walked.index(grab) == len(walked) - 1


def test_toward_turns_requests_into_first_steps() -> None:
    game = HouseholdGame("30_put_fridge")
    obs = game.reset(None)["Bob"]
    bot = HouseholdExpert()
    bot.reset("Bob", 0)
    bot.listen(obs.state)
    apt = game.apartment
    far = next(f for f in apt.fixtures.values() if f.room != game.rooms[1] and f.container)
    near = next(f["id"] for f in obs.state["fixtures"] if f["container"])
    assert bot.toward(obs.state, ("check", far.id)) == ("explore", far.room)
    assert bot.toward(obs.state, ("check", near)) == ("check", near)
    assert bot.toward(obs.state, ("grab", 999)) is None  # nobody said where it is
    bot.hearsay.reported[999] = far.id
    assert bot.toward(obs.state, ("grab", 999)) == ("explore", far.room)
