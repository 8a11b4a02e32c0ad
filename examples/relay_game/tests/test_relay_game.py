"""The relay game passes collabrl's conformance checker and PettingZoo's parallel API test, and
plays by its documented rules: messages and invalid decisions cost a tick, walking a tick per
room, a parcel dropped off its destination lies there, and each seat sees only its half."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("relay_game", reason="pip install ./examples/relay_game")
from relay_game.game import (
    IDLE_TICKS,
    MESSAGE_TICKS,
    PROGRESS_REWARD,
    WAIT,
    WALK_TICKS,
    RelayGame,
)
from relay_game.section import RelaySection
from relay_game.tasks import Parcel, Task

from collabrl.envs import check_game
from collabrl.envs.base import Decision

ALL_TASKS = RelaySection.all_tasks()
# one parcel that must be relayed: Ann (rooms 0-2) starts at 0, Ben (rooms 2-4) at 2 (no seed)
HANDOFF = Task("handoff", 5, (Parcel("red", 1, 4),))


@pytest.mark.parametrize("task", ALL_TASKS)
def test_every_task_passes_the_checker(task: str) -> None:
    check_game(lambda: RelayGame(task), seeds=(0, 1, 2))


def test_three_seats_pass_the_checker() -> None:
    check_game(lambda: RelayGame("r7p3v0", seats=("Ann", "Ben", "Cat")), seeds=(0, 1))


def test_pettingzoo_parallel_api_test_passes() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    from collabrl.envs import to_parallel_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports most API slips as warnings
        parallel_api_test(to_parallel_env(RelayGame("r6p3v0")), num_cycles=1000)
        parallel_seed_test(lambda: to_parallel_env(RelayGame("r6p3v0")))


def play_actions(game: RelayGame, seed: int | None, script: list[dict[str, str]]) -> list:
    """Play scripted rounds (seat -> action, message text = the action) and trace every step."""
    pending = game.reset(seed)
    trace = [sorted((s, o.text, o.anchor) for s, o in pending.items())]
    for round_ in script:
        decisions = {s: Decision(round_.get(s, WAIT), round_.get(s, WAIT)) for s in pending}
        result = game.step(decisions)
        pending = result.observations
        trace.append((sorted((s, o.text) for s, o in pending.items()), result.rewards))
    return trace


def test_same_seed_same_episode_and_seeds_move_the_starts() -> None:
    script = [{"Ann": "[send_message]"}, {"Ben": "[goto] room 3"}] * 3
    runs = [play_actions(RelayGame("r6p3v1"), seed, script) for seed in (4, 4)]
    assert runs[0] == runs[1]
    starts = set()
    for seed in range(6):
        game = RelayGame("r6p3v1")
        game.reset(seed)
        starts.add(tuple(game.rooms))
    assert len(starts) > 1


def test_a_message_costs_one_tick_and_reaches_everyone() -> None:
    game = RelayGame(HANDOFF)
    ann, ben = game.agents
    game.reset()
    talk = Decision(game.message_action, "  <red> is   in room 1. ")
    result = game.step({ann: talk, ben: Decision("[goto] room 4")})
    assert game.tick == MESSAGE_TICKS and list(result.observations) == [ann]
    assert game.summary()["messages"] == {ann: 1, ben: 0}
    said = result.observations[ann].state["dialogue"]
    assert said == [{"tick": 0, "speaker": ann, "text": "<red> is in room 1."}]
    result = game.step({ann: Decision(WAIT)})
    assert 'Ann: "<red> is in room 1."' in result.observations[ben].text  # Ben arrives at tick 2
    assert game.tick == 2 * WALK_TICKS


@pytest.mark.parametrize(
    "decision",
    [Decision("[fly] room 9"), Decision(None, valid=False), Decision("[send_message]", " ")],
    ids=["unoffered", "missing", "blank message"],
)
def test_an_unusable_decision_idles_one_tick(decision: Decision) -> None:
    game = RelayGame(HANDOFF)
    ann, ben = game.agents
    game.reset()
    result = game.step({ann: decision, ben: Decision(WAIT)})
    assert game.tick == IDLE_TICKS and set(result.observations) == {ann, ben}
    assert result.infos[ann]["invalid"] is True and result.infos[ann]["action"] is None
    assert game.summary()["invalid"] == {ann: 1, ben: 0} and game.rooms == [0, 2]


def test_a_missing_seat_decision_idles_too() -> None:
    game = RelayGame(HANDOFF)
    ann, ben = game.agents
    game.reset()
    game.step({ben: Decision(WAIT)})
    assert game.tick == IDLE_TICKS and game.summary()["invalid"] == {ann: 1, ben: 0}


def test_a_relay_delivers_and_ends_the_episode() -> None:
    """Ann hands red over in room 2; Ben carries it to room 4 and the team succeeds."""
    game = RelayGame(HANDOFF)
    ann, ben = game.agents
    script = [
        {ann: "[goto] room 1"},  # tick 1
        {ann: "[pickup] <red>"},  # 2
        {ann: "[goto] room 2"},  # 3
        {ann: "[drop] <red>"},  # 4: lies in the hand-off room
        {ben: "[pickup] <red>"},  # 5
        {ben: "[goto] room 4"},  # 6: Ann's wait ends, Ben walks on
        {},  # 7: Ben arrives
    ]
    trace = play_actions(game, None, script)
    assert game.lying == {} and game.holding == [[], ["red"]] and game.tick == 7
    result = game.step({ben: Decision("[drop] <red>")})
    assert result.rewards == {ann: PROGRESS_REWARD, ben: PROGRESS_REWARD}
    assert all(result.terminations.values()) and not any(result.truncations.values())
    summary = game.summary()
    assert summary["success"] and summary["steps"] == 8 and summary["outcome"] == "success"
    assert "Parcels lying here: <red>." in trace[4][0][1][1]  # Ben sees what Ann dropped


def test_the_time_limit_truncates() -> None:
    game = RelayGame(HANDOFF, max_ticks=3)
    pending = game.reset()
    while not game.done:
        result = game.step({seat: Decision(WAIT) for seat in pending})
        pending = result.observations
    assert all(result.truncations.values()) and not any(result.terminations.values())
    summary = game.summary()
    assert not summary["success"] and summary["steps"] == 3 and summary["outcome"] == "time limit"


def test_each_seat_sees_only_its_half_of_the_map() -> None:
    game = RelayGame("r7p3v0")
    observations = game.reset(0)
    ann, ben = observations["Ann"], observations["Ben"]
    assert ann.state["map"] == {p.name: p.start for p in game.task.parcels}
    assert ben.state["map"] == {p.name: p.dest for p in game.task.parcels}
    assert "lay at the start" in ann.text and "must be delivered to" not in ann.text
    assert "must be delivered to" in ben.text and "lay at the start" not in ben.text
    assert all(a.startswith("[goto] room") for a in ann.actions[:2])
    assert {int(a.split()[-1]) for a in ann.actions if a.startswith("[goto]")} <= set(range(4))


def test_too_many_seats_for_the_corridor_is_an_error() -> None:
    with pytest.raises(ValueError, match="room for 1-4 seats"):
        RelayGame("r5p2v0", seats=("A", "B", "C", "D", "E"))
    with pytest.raises(ValueError, match="2 or more"):
        RelayGame("r5p2v0", seats=("A",))


def test_two_pickups_of_one_parcel_in_one_tick_go_by_seat_order() -> None:
    game = RelayGame(Task("tie", 5, (Parcel("red", 2, 4),)))
    ann, ben = game.agents
    play_actions(game, None, [{ann: "[goto] room 2"}, {}])  # tick 2: both stand in room 2
    game.step({ann: Decision("[pickup] <red>"), ben: Decision("[pickup] <red>")})
    assert game.holding == [["red"], []] and game.summary()["invalid"] == {ann: 0, ben: 0}
