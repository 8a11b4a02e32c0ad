"""Collaboration structures in both games: approval gates, the group-memory board, team-chosen
gate owners, what they add to observations, prompts and anchors, and conformance."""

from __future__ import annotations

import pytest

from collabrl.agents.prompts import build_messages
from collabrl.envs import check_game
from collabrl.envs.base import MESSAGE_ACTION, Decision, StepResult
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import Predicate, Task
from collabrl.envs.household.world import load_apartments
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import TRAIN_HORIZON, KitchenGame
from collabrl.envs.structures import STRUCTURES
from collabrl.episode import play_episode

APT = load_apartments()[0]
LIVING = APT.room_named("livingroom").id
KITCHEN = APT.room_named("kitchen").id
SOFA, TABLE = (
    next(f.id for f in APT.fixtures.values() if f.name == n and f.room == LIVING)
    for n in ("sofa", "coffeetable")
)
TASK = Task(
    id=98,
    name="98_gate_test",
    family="setup_table",
    split="train",
    apartment=APT.id,
    objects=((301, "apple", SOFA),),
    goal=(Predicate("ON", "apple", 1, TABLE),),
    start_rooms=(LIVING, KITCHEN, KITCHEN),
)
GRAB, PUT = "[gograb] <apple> (301)", f"[goput] <coffeetable> ({TABLE})"


def step(game: HouseholdGame, pending: dict, **choices: str | Decision) -> StepResult:
    """One step: the named seats choose, every other pending seat says "ok" (one tick)."""
    decisions = {seat: Decision(MESSAGE_ACTION, "ok") for seat in pending if seat not in choices}
    for seat, choice in choices.items():
        decisions[seat] = Decision(choice) if isinstance(choice, str) else choice
    return game.step(decisions)


def until(game: HouseholdGame, result: StepResult, seat: str) -> StepResult:
    """Let time pass (others say "ok") until ``seat`` must decide."""
    while seat not in result.observations:
        result = step(game, result.observations)
    return result


def holding_apple(structure: str, seats: int = 3) -> tuple[HouseholdGame, StepResult]:
    """Alice has grabbed the apple and must decide next; nothing is placed yet."""
    game = HouseholdGame(TASK, seats=seats, structure=structure)
    pending = game.reset()
    result = until(game, step(game, pending, Alice=GRAB), "Alice")
    assert game.holding[0] == [301] and game.placed == 0
    return game, result


def test_an_unapproved_put_has_no_effect_and_reaches_the_approver() -> None:
    game, result = holding_apple("gates")
    result = step(game, result.observations, Alice=PUT)
    assert result.infos["Alice"]["gate"] == "request" and not result.infos["Alice"]["invalid"]
    result = until(game, result, "Bob")
    assert game.holding[0] == [301] and game.placed == 0  # filed, not done
    bob = result.observations["Bob"]
    assert {"[approve] #1", "[deny] #1"} <= set(bob.actions)
    assert f"#1 from Alice: {PUT}" in bob.text
    assert bob.state["structure"]["to_decide"][0]["action"] == PUT
    charlie = until(game, result, "Charlie").observations["Charlie"]
    assert "[approve] #1" not in charlie.actions  # only the owner decides


def test_waiting_on_an_open_request_blocks_a_tick_and_the_approval_lets_it_run() -> None:
    game, result = holding_apple("gates", seats=2)
    result = until(game, step(game, result.observations, Alice=PUT), "Alice")
    tick = game.tick
    result = step(game, result.observations, Alice=PUT)
    assert result.infos["Alice"]["gate"] == "wait" and game.tick == tick + 1
    result = until(game, result, "Bob")
    result = step(game, result.observations, Bob="[approve] #1")
    result = until(game, result, "Alice")
    assert "approved by Bob" in result.observations["Alice"].text
    result = step(game, result.observations, Alice=PUT)
    assert result.infos["Alice"]["gate"] == "approved"
    while not game.done:
        result = step(game, result.observations)
    assert game.summary()["success"] and game.placed == 1
    kinds = [e["kind"] for e in game.summary()["trace"] if e["seat"] == "Alice"]
    assert kinds.count("request") == 1 and kinds.count("wait") == 1


def test_a_denial_is_visible_and_the_next_choice_asks_again() -> None:
    game, result = holding_apple("gates", seats=2)
    result = until(game, step(game, result.observations, Alice=PUT), "Bob")
    result = until(game, step(game, result.observations, Bob="[deny] #1"), "Alice")
    alice = result.observations["Alice"]
    assert "DENIED by Bob" in alice.text
    assert alice.state["structure"]["mine"][-1]["status"] == "denied"
    result = step(game, result.observations, Alice=PUT)
    assert result.infos["Alice"]["gate"] == "request" and game.holding[0] == [301]
    assert [r["status"] for r in game.summary()["gate_requests"]] == ["denied", "open"]


def test_approval_by_the_wrong_seat_is_an_invalid_decision() -> None:
    game, result = holding_apple("gates")
    result = until(game, step(game, result.observations, Alice=PUT), "Charlie")
    invalid_before = game.summary()["invalid"]["Charlie"]
    result = step(game, result.observations, Charlie="[approve] #1")
    assert result.infos["Charlie"]["invalid"] and result.infos["Charlie"]["action"] is None
    assert game.summary()["invalid"]["Charlie"] == invalid_before + 1
    assert game.summary()["gate_requests"][0]["status"] == "open"


def test_the_owners_own_moves_and_a_team_of_one_are_never_gated() -> None:
    game = HouseholdGame(TASK, seats=1, structure="gates")
    result = until(game, step(game, game.reset(), Alice=GRAB), "Alice")
    assert "gate" not in step(game, result.observations, Alice=PUT).infos["Alice"]
    owner = HouseholdGame(TASK, seats=2, structure="gates", gate_owners={"put": "Alice"})
    result = until(owner, step(owner, owner.reset(), Alice=GRAB), "Alice")
    assert "gate" not in step(owner, result.observations, Alice=PUT).infos["Alice"]


def test_a_board_entry_costs_one_tick_and_every_seat_sees_it() -> None:
    game = HouseholdGame(TASK, seats=3, structure="memory")
    pending = game.reset()
    entry = Decision("[update_memory] plan", "Alice takes the sofa, Bob the kitchen.")
    result = step(game, pending, Alice=entry)  # Bob and Charlie say "ok" (one tick too)
    assert game.tick == 1 and set(result.observations) == {"Alice", "Bob", "Charlie"}
    for obs in result.observations.values():
        assert "[step 0] Alice: Alice takes the sofa, Bob the kitchen." in obs.text
        assert obs.state["structure"]["board"][0]["section"] == "plan"
    assert game.summary()["board"][0] == {
        "tick": 0,
        "author": "Alice",
        "section": "plan",
        "text": "Alice takes the sofa, Bob the kitchen.",
    }
    assert game.summary()["messages"]["Alice"] == 0  # a board entry is not a message


def test_an_empty_board_entry_is_invalid() -> None:
    game = HouseholdGame(TASK, seats=2, structure="memory")
    result = step(game, game.reset(), Alice=Decision("[update_memory] evidence", "  "))
    assert result.infos["Alice"]["invalid"] and not game.summary()["board"]


def test_scaffolded_gates_wait_for_the_team_to_choose_an_owner() -> None:
    game, result = holding_apple("scaffolded")
    assert "[assign_gate] put: Bob" in result.observations["Alice"].actions
    result = step(game, result.observations, Alice="[assign_gate] put: Bob")
    assert game.summary()["gate_owners"] == {"put": "Bob"}
    assert game.summary()["board"][-1]["text"] == "Gate: [goput] needs Bob's approval."
    result = until(game, result, "Alice")
    assert step(game, result.observations, Alice=PUT).infos["Alice"]["gate"] == "request"
    game, result = holding_apple("scaffolded")  # nobody chose: the put runs freely
    assert "gate" not in step(game, result.observations, Alice=PUT).infos["Alice"]


def test_structure_rules_reach_the_prompt_and_the_anchor() -> None:
    game = HouseholdGame(TASK, seats=2, structure="scaffolded")
    obs = game.reset()["Alice"]
    prompt = build_messages(game, obs)[0]["content"]
    assert "[update_memory] <section>" in prompt and "[assign_gate] <kind>: <name>" in prompt
    before = obs.anchor
    result = step(game, game.reset(), Alice=Decision("[update_memory] plan", "split"))
    assert result.observations["Alice"].anchor[-1] != before[-1]  # the board is in the anchor
    plain = HouseholdGame(TASK, seats=2)
    plain_obs = plain.reset()["Alice"]
    assert len(plain_obs.anchor) == len(before) - 1
    assert "update_memory" not in plain.intro("Alice") + plain_obs.text
    assert "structure" not in plain_obs.state and "board" not in plain.summary()


@pytest.mark.parametrize("structure", STRUCTURES[1:])
@pytest.mark.parametrize("seats", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_household_structures_pass_the_checker(structure: str, seats: int) -> None:
    check_game(
        lambda: HouseholdGame("10_put_dishwasher", seats=seats, structure=structure),
        seeds=(0, 1),
    )


@pytest.mark.parametrize(
    "structure",
    # a kitchen's check takes seconds: gates in the inner loop, the others in the full run only
    [pytest.param(s, marks=[] if s == "gates" else [pytest.mark.slow]) for s in STRUCTURES[1:]],
)
def test_kitchen_structures_pass_the_checker(structure: str) -> None:
    check_game(
        lambda: KitchenGame("cramped_room", horizon=TRAIN_HORIZON, structure=structure),
        seeds=(0, 1),
    )


def test_kitchen_deliveries_wait_for_approval_and_experts_give_it() -> None:
    game = KitchenGame("cramped_room", structure="gates", motion="cooperative")
    record = play_episode(game, {s: KitchenExpert() for s in game.agents}, seed=0)
    requests = record.summary["gate_requests"]
    assert requests and all(r["action"] == "deliver_soup()" for r in requests)
    assert all(r["owner"] == "Player 1" and r["seat"] == "Player 0" for r in requests)
    assert record.summary["score"] > 0
    approvals = [t for t in record.turns if t.action and t.action.startswith("approve(")]
    assert approvals and all(t.seat == "Player 1" for t in approvals)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_expert_teams_of_one_to_three_finish_under_every_structure(structure: str) -> None:
    for seats in (1, 2, 3):
        game = HouseholdGame("0_read_book", seats=seats, structure=structure, max_decisions=250)
        record = play_episode(game, {s: HouseholdExpert() for s in game.agents}, seed=0)
        assert record.summary["success"], (structure, seats)
        assert not any(not t.valid for t in record.turns)
