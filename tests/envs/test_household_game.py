"""Rules of the household engine on small hand-made tasks."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from collabrl.envs.base import MAX_MESSAGE_CHARS, MESSAGE_ACTION, Decision, Game, lettered
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import TEST_TASK_NAMES, Predicate, Task
from collabrl.envs.household.world import HOLD_LIMIT, load_apartments

APT = load_apartments()[0]
LIVING = APT.room_named("livingroom").id
KITCHEN = APT.room_named("kitchen").id


def fixture(name: str, room: int) -> int:
    return next(f.id for f in APT.fixtures.values() if f.name == name and f.room == room)


SOFA, CABINET, COFFEETABLE = (fixture(n, LIVING) for n in ("sofa", "cabinet", "coffeetable"))
FRIDGE, KCABINET = fixture("fridge", KITCHEN), fixture("kitchencabinet", KITCHEN)
TASK = Task(
    id=99,
    name="99_test",
    family="put_fridge",
    split="train",
    apartment=APT.id,
    objects=(
        (301, "apple", SOFA),
        (302, "apple", SOFA),
        (303, "apple", KCABINET),
        (304, "mug", CABINET),
    ),
    goal=(Predicate("INSIDE", "apple", 2, FRIDGE), Predicate("ON", "mug", 1, COFFEETABLE)),
    start_rooms=(LIVING, KITCHEN),
)


def act(game: HouseholdGame, **choices: str | Decision | None):
    """Step with the given actions (strings become Decisions); other pending seats send nothing."""
    decisions = {
        seat: Decision(c) if isinstance(c, str) or c is None else c for seat, c in choices.items()
    }
    return game.step(decisions)


def grab(obj: int, name: str = "apple") -> str:
    return f"[gograb] <{name}> ({obj})"


def run_until_pending(game: HouseholdGame, seat: str, result, idle_seat: str = "Bob"):
    """Keep the other seat busy with messages until ``seat`` must decide."""
    while seat not in result.observations and not game.done:
        result = act(game, **{idle_seat: Decision(MESSAGE_ACTION, "")})
    return result


def test_implements_game_protocol_and_intro() -> None:
    game = HouseholdGame(TASK)
    assert isinstance(game, Game)
    obs = game.reset(None)
    assert set(obs) == {"Alice", "Bob"}
    intro = game.intro("Alice")
    for phrase in ("two objects", "<name> (id)", "one time step", "listed available actions"):
        assert phrase in intro
    alice = obs["Alice"]
    assert alice.text.endswith(lettered(alice.actions))
    assert "Goal: Put 2 apples" in alice.text and "1 mug onto" in alice.text
    hash(alice.anchor)


def test_hold_at_most_two_objects() -> None:
    game = HouseholdGame(TASK)
    obs = game.reset(None)
    assert grab(301) in obs["Alice"].actions
    res = act(game, Alice=grab(301), Bob=MESSAGE_ACTION)
    res = run_until_pending(game, "Alice", res)
    res = act(
        game, Alice=grab(302), **({"Bob": MESSAGE_ACTION} if "Bob" in res.observations else {})
    )
    res = run_until_pending(game, "Alice", res)
    alice = res.observations["Alice"]
    assert alice.state["holding"] == [301, 302]
    assert not [a for a in alice.actions if a.startswith("[gograb]")]
    assert f"[goput] <fridge> ({FRIDGE})" not in alice.actions  # fridge not seen yet
    assert "holding: <apple> (301), <apple> (302)" in alice.text


def test_the_hold_limit_hides_a_third_object_in_view() -> None:
    """Three apples lie on the sofa in view: the third stays on offer until the hands are full."""
    three = replace(
        TASK,
        objects=((301, "apple", SOFA), (302, "apple", SOFA), (305, "apple", SOFA)),
        goal=(Predicate("INSIDE", "apple", 3, FRIDGE),),
    )
    game = HouseholdGame(three, seats=("Alice",))
    alice = game.reset(None)["Alice"]
    for obj in (301, 302):
        assert len(alice.state["holding"]) < HOLD_LIMIT and grab(305) in alice.actions
        alice = act(game, Alice=grab(obj)).observations["Alice"]
    assert alice.state["holding"] == [301, 302] and HOLD_LIMIT == 2
    assert grab(305) not in alice.actions and "<apple> (305)" in alice.text


def test_message_costs_one_tick_is_truncated_and_broadcast() -> None:
    game = HouseholdGame(TASK, seats=("Alice", "Bob", "Carol"))
    game.reset(None)
    long_text = "x" * (MAX_MESSAGE_CHARS + 100)
    res = game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, long_text),
            "Bob": Decision(MESSAGE_ACTION, "hello team"),
            "Carol": Decision(MESSAGE_ACTION, ""),
        }
    )
    assert game.tick == 1 and set(res.observations) == {"Alice", "Bob", "Carol"}
    assert game.dialogue[len(game.opening_lines)] == (0, "Alice", "x" * MAX_MESSAGE_CHARS)
    assert 'Bob: "hello team"' in res.observations["Carol"].text
    assert game.summary()["messages"] == {"Alice": 1, "Bob": 1, "Carol": 0}


def test_partial_observability_and_messages_do_not_reveal_anything() -> None:
    game = HouseholdGame(TASK)
    obs = game.reset(None)
    alice, bob = obs["Alice"].state, obs["Bob"].state
    assert {g["id"] for g in alice["goal_objects"]} == {301, 302}  # sofa in her room
    assert {g["id"] for g in bob["goal_objects"]} == set()  # 303 hides in a closed cabinet
    cabinet = next(f for f in alice["fixtures"] if f["id"] == CABINET)
    assert cabinet["open"] is False and cabinet["objects"] is None  # mug 304 not visible
    assert "(304)" not in obs["Alice"].text and "(301)" not in obs["Bob"].text
    told = f"Found <apple> (301) on <sofa> ({SOFA}). Could you grab it?"
    res = act(
        game,
        Alice=Decision(MESSAGE_ACTION, told),
        Bob=f"[gocheck] <kitchencabinet> ({KCABINET})",
    )
    res = run_until_pending(game, "Bob", res, idle_seat="Alice")
    bob = res.observations["Bob"]
    assert grab(303) in bob.actions  # seen with his own eyes
    assert grab(301) not in bob.actions and grab(302) not in bob.actions  # only heard of / unseen
    assert f"[gocheck] <sofa> ({SOFA})" not in bob.actions
    assert f'Alice: "{told}"' in bob.text  # dialogue is shown verbatim...
    assert "Goal objects found: <apple> (303) in" in bob.text  # ...but is not knowledge
    assert {g["id"] for g in bob.state["goal_objects"]} == {303}
    assert bob.state["partners"]["Alice"] == {"room": None, "holding": [], "seen_tick": None}


def test_object_taken_meanwhile_ends_action_without_effect() -> None:
    game = HouseholdGame(TASK)
    game.reset(None)
    res = act(game, Alice=MESSAGE_ACTION, Bob=f"[goexplore] <livingroom> ({LIVING})")
    res = run_until_pending(game, "Bob", res, idle_seat="Alice")
    assert grab(301) in res.observations["Bob"].actions  # Bob saw the apples on the sofa
    res = act(game, Alice=grab(301), Bob=f"[goexplore] <kitchen> ({KITCHEN})")
    while "Bob" not in res.observations:
        res = act(game, **{s: MESSAGE_ACTION for s in res.observations})
    assert game.holding[0] == [301] and game.rooms[0] == LIVING
    assert game.minds[1].where.get(301) == SOFA  # Bob has not seen it go
    res = act(
        game, Bob=grab(301), **({"Alice": MESSAGE_ACTION} if "Alice" in res.observations else {})
    )
    res = run_until_pending(game, "Bob", res, idle_seat="Alice")
    assert game.holding[1] == [] and game.rooms[1] == LIVING
    assert game.minds[1].where[301] == "Alice"  # seen again: in Alice's hands
    assert grab(301) not in res.observations["Bob"].actions
    assert res.observations["Bob"].state["partners"]["Alice"]["holding"] == [301]


HEARSAY = (
    "Found <{name}> ({obj}) in <{fixture}> ({fid}).",
    "{name} ({obj}) is on the {fixture}",
    "Bob, could you grab <{name}> ({obj}) from <{fixture}> ({fid})?",
    "I have <{name}> ({obj}). I'll check <{fixture}> ({fid}).",
)


@pytest.mark.parametrize("task", TEST_TASK_NAMES)
def test_a_seat_is_never_offered_what_only_a_message_named(task: str) -> None:
    """Alice names every object where it really is, in several styles; Bob only listens. His
    offers and his state keep to what he sees from where he stands."""
    game = HouseholdGame(task, max_decisions=10_000)
    obs = game.reset(0)
    apt, bob_room = game.apartment, game.rooms[1]
    in_view = {o for o, at in game.loc.items() if _visible(game, at, bob_room)}
    lines = [
        style.format(name=name, obj=obj, fixture=apt.fixtures[at].name, fid=at)
        for k, (obj, name, at) in enumerate(game.task.objects)
        for style in HEARSAY[k % len(HEARSAY) :] + HEARSAY[: k % len(HEARSAY)]
    ]
    for line in lines:
        res = act(
            game, **{s: Decision(MESSAGE_ACTION, line if s == "Alice" else "ok") for s in obs}
        )
        obs = res.observations
        bob = obs["Bob"]
        grabs = {int(a.rsplit("(", 1)[1][:-1]) for a in bob.actions if a.startswith("[gograb]")}
        assert grabs <= in_view, line
        for action in bob.actions:
            if action.startswith(("[gocheck]", "[goput]")):
                fid = int(action.rsplit("(", 1)[1][:-1])
                assert apt.fixtures[fid].room == bob_room, line
        assert {g["id"] for g in bob.state["goal_objects"]} <= in_view
    assert game.tick == len(lines) and sum(game.summary()["messages"].values()) == 2 * len(lines)


def _visible(game: HouseholdGame, fixture: int, room: int) -> bool:
    """Whether what lies in/on ``fixture`` can be seen from ``room`` at the start (all closed)."""
    fx = game.apartment.fixtures[fixture]
    return fx.room == room and not fx.container


@pytest.mark.parametrize(
    "decision",
    [None, Decision(None), Decision("[dance] <sofa> (1)"), Decision(grab(303)), "missing"],
)
def test_invalid_decision_idles_one_tick(decision) -> None:
    game = HouseholdGame(TASK)
    game.reset(None)
    choices = {"Bob": Decision(MESSAGE_ACTION, "hi")}
    if decision != "missing":
        choices["Alice"] = decision
    res = game.step(choices)
    assert game.tick == 1 and "Alice" in res.observations
    assert res.infos["Alice"]["invalid"] is True and res.infos["Bob"]["invalid"] is False
    assert game.summary()["invalid"] == {"Alice": 1, "Bob": 0}
    assert game.summary()["decisions"]["Alice"] == 1
    assert res.observations["Alice"].state["holding"] == []


def test_format_invalid_decision_still_acts_but_is_flagged() -> None:
    game = HouseholdGame(TASK)
    game.reset(None)
    res = game.step({"Alice": Decision(grab(301), valid=False), "Bob": Decision(MESSAGE_ACTION)})
    assert res.infos["Alice"]["invalid"] is True
    run_until_pending(game, "Alice", res)
    assert game.holding[0] == [301]


def test_asynchronous_decision_points() -> None:
    game = HouseholdGame(TASK)
    obs = game.reset(None)
    bathroom = APT.room_named("bathroom").id
    far = f"[goexplore] <bathroom> ({bathroom})"
    assert far in obs["Alice"].actions
    res = act(game, Alice=far, Bob=Decision(MESSAGE_ACTION, "hi"))
    assert set(res.observations) == {"Bob"} and game.tick == 1
    travel = APT.travel[LIVING, bathroom]
    ticks_seen = []
    while "Alice" not in res.observations:
        res = act(game, Bob=Decision(MESSAGE_ACTION, "still here"))
        ticks_seen.append(game.tick)
    assert game.tick == travel + 2  # walk, then look around
    assert ticks_seen == list(range(2, travel + 3))
    assert game.rooms[0] == bathroom and bathroom in game.minds[0].explored


def test_goal_counts_success_and_steps() -> None:
    game = HouseholdGame(TASK, seats=("Solo",))
    obs = game.reset(None)
    assert MESSAGE_ACTION not in obs["Solo"].actions  # nobody to talk to
    fridge_check = f"[gocheck] <fridge> ({FRIDGE})"
    plan = [
        grab(301),
        grab(302),
        f"[goexplore] <kitchen> ({KITCHEN})",
        f"[goput] <fridge> ({FRIDGE})",
    ]
    for action in plan:
        assert action in game.offers[0], action
        res = game.step({"Solo": Decision(action)})
    assert fridge_check not in game.offers[0]  # opened when putting
    summary = game.summary()
    assert summary["goal_placed"] == {"apple": 2, "mug": 0} and not summary["success"]
    assert res.rewards["Solo"] == pytest.approx(0.4)
    for action in (
        f"[goexplore] <livingroom> ({LIVING})",
        f"[gocheck] <cabinet> ({CABINET})",
        grab(304, "mug"),
        f"[goput] <coffeetable> ({COFFEETABLE})",
    ):
        assert action in game.offers[0], action
        res = game.step({"Solo": Decision(action)})
    summary = game.summary()
    assert game.done and summary["success"] and res.terminations["Solo"]
    assert not res.truncations["Solo"] and res.observations == {}
    assert summary["steps"] == summary["ticks"] == game.tick < 250
    assert summary["goal_progress"] == 1.0


def test_time_limit_failure_reports_250_steps() -> None:
    game = HouseholdGame(TASK, max_decisions=10_000)
    obs = game.reset(None)
    rooms = [LIVING, KITCHEN]
    while not game.done:
        choice = {}
        for seat, o in obs.items():
            here = o.state["room"]
            other = rooms[1] if here == rooms[0] else rooms[0]
            choice[seat] = Decision(f"[goexplore] <{APT.rooms[other].name}> ({other})")
        res = game.step(choice)
        obs = res.observations
    summary = game.summary()
    assert not summary["success"] and summary["steps"] == 250 and summary["ticks"] == 250
    assert summary["outcome"] == "time limit" and res.truncations["Alice"]
    assert not res.terminations["Alice"]


def test_decision_cap_ends_the_episode_as_stalled() -> None:
    game = HouseholdGame(TASK, max_decisions=3)
    game.reset(None)
    assert game.summary()["stalled"] is False
    for _ in range(3):
        res = act(game, Alice=MESSAGE_ACTION, Bob=MESSAGE_ACTION)
    assert game.done and game.tick == 3 and res.truncations["Bob"]
    summary = game.summary()
    assert summary["outcome"] == "stalled" and summary["stalled"] is True
    assert not summary["success"] and summary["steps"] == 250
    assert summary["decisions"] == {"Alice": 3, "Bob": 3}
    with pytest.raises(RuntimeError):
        act(game, Alice=MESSAGE_ACTION)


@pytest.mark.parametrize("seed", range(4))
def test_every_decision_costs_at_least_one_tick(seed: int) -> None:
    """Random (also invalid) choices: each step moves the clock, so decisions never outrun ticks
    and the decision cap can only ever be a safety net."""
    rng = random.Random(seed)
    game = HouseholdGame(TEST_TASK_NAMES[seed], seats=3, max_decisions=10_000)
    obs = game.reset(seed)
    while not game.done:
        before = game.tick
        choices = {
            seat: Decision(rng.choice([*o.actions, "[dance] <sofa> (1)", None]), "hi")
            for seat, o in obs.items()
        }
        obs = game.step(choices).observations
        assert game.tick > before
    summary = game.summary()
    assert max(summary["decisions"].values()) <= summary["ticks"] <= game.max_ticks
    assert not summary["stalled"]


def test_anchor_ignores_tick_and_dialogue() -> None:
    game = HouseholdGame(TASK)
    before = game.reset(None)["Alice"]
    after = act(game, Alice=Decision(MESSAGE_ACTION, "hi"), Bob=Decision(MESSAGE_ACTION, "yo"))
    alice = after.observations["Alice"]
    assert alice.tick != before.tick and alice.text != before.text
    assert alice.anchor == before.anchor


def test_seats_one_three_and_default_names() -> None:
    assert HouseholdGame(TASK, seats=3).agents == ["Alice", "Bob", "Charlie"]
    assert HouseholdGame(TASK, seats=1).agents == ["Alice"]
    with pytest.raises(ValueError):
        HouseholdGame(TASK, seats=("A", "A"))
    game = HouseholdGame("0_read_book", seats=("Ann", "Ben", "Cy"))
    obs = game.reset(1)
    assert set(obs) == {"Ann", "Ben", "Cy"}
    assert set(obs["Ann"].state["partners"]) == {"Ben", "Cy"}
