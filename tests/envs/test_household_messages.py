"""Reading teammates' messages (player side): reported locations, claimed plans, requests."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from collabrl.envs.base import MESSAGE_ACTION, Decision
from collabrl.envs.household import game as game_module
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.hearsay import Hearsay, Said
from collabrl.envs.household.messages import MessageReader
from collabrl.envs.household.tasks import get_task
from collabrl.envs.household.world import load_apartments

TASK = get_task("30_put_fridge")
APT = load_apartments()[TASK.apartment]
READER = MessageReader(APT, {n for _, n, _ in TASK.objects})
OBJ, NAME, _ = TASK.objects[0]
FRIDGE = next(f.id for f in APT.fixtures.values() if f.name == "fridge")
TABLE = next(f.id for f in APT.fixtures.values() if f.name == "coffeetable")
KITCHEN = APT.room_named("kitchen").id
LIVING = APT.room_named("livingroom").id


def test_expert_template_locations_and_claims() -> None:
    info = READER.read(
        f"Found <{NAME}> ({OBJ}) in <fridge> ({FRIDGE}). I'll explore <kitchen> ({KITCHEN})."
    )
    assert info.locations == [(OBJ, FRIDGE)]
    assert info.claims == [("explore", KITCHEN)]
    assert FRIDGE in info.fixtures


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("I'll check the kitchen", [("explore", KITCHEN)]),
        ("I'm going to the Living Room.", [("explore", LIVING)]),
        ("let me check the fridge", [("check", FRIDGE)]),
        (f"I will grab {NAME} ({OBJ})", [("grab", OBJ)]),
        (f"I'll put <{NAME}> ({OBJ}) into the fridge", [("grab", OBJ), ("put", FRIDGE)]),
        ("I won't go to the kitchen", []),
        ("nice weather today", []),
    ],
)
def test_natural_language_claims(text: str, claims) -> None:
    assert READER.read(text).claims == claims


def test_free_text_location_and_ids_that_contradict_the_plan_are_ignored() -> None:
    info = READER.read(f"{NAME} ({OBJ}) is on the coffee table")
    assert info.locations == [(OBJ, TABLE)] and info.names == {OBJ: NAME}
    assert READER.read(f"found <{NAME}> ({FRIDGE}) in <fridge> ({FRIDGE})").locations == []
    assert READER.read(f"found <{NAME}> ({OBJ}) in <sofa> ({FRIDGE})").locations == []
    assert READER.read(f"found <unicorn> ({OBJ}) in <fridge> ({FRIDGE})").locations == []
    goal_only = MessageReader(APT, {p.object for p in TASK.goal})
    distractor = next(o for o in TASK.objects if o[1] not in goal_only.object_names)
    said = f"found <{distractor[1]}> ({distractor[0]}) in <fridge> ({FRIDGE})"
    assert goal_only.read(said).locations == []


def test_carrying_reports_mark_objects_as_held() -> None:
    info = READER.read(f"I have <{NAME}> ({OBJ}). I'll explore <kitchen> ({KITCHEN}).")
    assert info.held == [OBJ] and info.claims == [("explore", KITCHEN)]
    assert READER.read(f"I don't have {NAME} ({OBJ})").held == []


@pytest.mark.parametrize(
    ("text", "requests"),
    [
        ("can you check the kitchen", [("explore", KITCHEN)]),
        ("Could you look in the fridge?", [("check", FRIDGE)]),
        (f"please bring <{NAME}> ({OBJ}) to the coffee table", [("grab", OBJ), ("put", TABLE)]),
        ("you take the kitchen, I'll take the living room", [("explore", KITCHEN)]),
        ("please don't go to the kitchen", []),
        ("I'll check the kitchen", []),
    ],
)
def test_requests_addressed_to_the_listener(text: str, requests) -> None:
    assert READER.read(text).requests == requests


def test_request_sentence_keeps_the_speakers_own_claim() -> None:
    info = READER.read("you take the kitchen, and I'll take the living room")
    assert info.requests == [("explore", KITCHEN)] and info.claims == [("explore", LIVING)]


def test_objects_need_an_id_rooms_and_unique_fixtures_do_not() -> None:
    info = READER.read(f"could you grab the {NAME} from the fridge")
    assert info.requests == [("check", FRIDGE)]  # "the <name>" alone names no object


def test_the_game_never_reads_messages() -> None:
    """The engine module does not import the reader; requests stay plain dialogue."""
    tree = ast.parse(Path(game_module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {"collabrl.envs.household.messages", "collabrl.envs.household.hearsay"} & imported
    game = HouseholdGame(TASK)
    game.reset(0)
    said = "Could you check the kitchen?"
    result = game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, message=said),
            "Bob": Decision(MESSAGE_ACTION, message="ok"),
        }
    )
    bob = result.observations["Bob"]
    assert set(bob.state["partners"]["Alice"]) == {"room", "holding", "seen_tick"}
    assert f'Alice: "{said}"' in bob.text and "asked you" not in bob.text


def test_hearsay_keeps_leads_carriers_claims_and_requests() -> None:
    game = HouseholdGame(TASK)
    game.reset(0)
    result = game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, f"Found <{NAME}> ({OBJ}) in <fridge> ({FRIDGE})."),
            "Bob": Decision(
                MESSAGE_ACTION, "Could you check the kitchen? I'll explore the living room."
            ),
        }
    )
    alice, bob = Hearsay(), Hearsay()
    alice.listen(result.observations["Alice"].state)
    bob.listen(result.observations["Bob"].state)
    assert bob.reported == {OBJ: FRIDGE} and bob.names == {OBJ: NAME}
    assert bob.requests == {} and alice.reported == {}
    assert alice.requests == {"Bob": Said(0, (("explore", KITCHEN),))}
    assert alice.claims == {"Bob": Said(0, (("explore", LIVING),))}
    assert OBJ in alice.mentioned and OBJ not in alice.told and OBJ in bob.told
    result = game.step(
        {"Alice": Decision(MESSAGE_ACTION, f"I have <{NAME}> ({OBJ})."), "Bob": Decision(None)}
    )
    assert bob.listen(result.observations["Bob"].state) == [
        (1, "Alice", f"I have <{NAME}> ({OBJ}).")
    ]
    assert bob.reported == {} and bob.held == {OBJ: "Alice"}
    assert bob.listen(result.observations["Bob"].state) == []  # every line is heard once
