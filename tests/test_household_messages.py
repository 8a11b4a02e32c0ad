"""Reading teammates' messages: reported locations, claimed plans and requests to the listener."""

from __future__ import annotations

import pytest

from collabrl.envs.base import MESSAGE_ACTION, Decision
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.knowledge import PartnerView, SeatMind
from collabrl.envs.household.messages import MessageReader
from collabrl.envs.household.tasks import get_task
from collabrl.envs.household.world import load_apartments

TASK = get_task("30_put_fridge")
APT = load_apartments()[TASK.apartment]
READER = MessageReader(APT, {o: n for o, n, _ in TASK.objects})
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


def test_free_text_location_and_invented_ids_are_ignored() -> None:
    info = READER.read(f"{NAME} ({OBJ}) is on the coffee table")
    assert info.locations == [(OBJ, TABLE)]
    assert READER.read(f"found <{NAME}> (9999) in <fridge> ({FRIDGE})").locations == []
    assert READER.read(f"found <unicorn> ({OBJ}) in <fridge> ({FRIDGE})").locations == []


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


def test_object_named_without_id_when_unique() -> None:
    names = [n for _, n, _ in TASK.objects]
    unique = next(n for n in names if names.count(n) == 1)
    oid = next(o for o, n, _ in TASK.objects if n == unique)
    assert READER.read(f"could you grab the {unique}").requests == [("grab", oid)]


def test_requests_reach_the_listeners_state_and_text() -> None:
    game = HouseholdGame(TASK)
    obs = game.reset(0)
    result = game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, message="Could you check the kitchen?"),
            "Bob": Decision(MESSAGE_ACTION, message="ok"),
        }
    )
    bob = result.observations["Bob"]
    assert bob.state["partners"]["Alice"]["requests"] == [["explore", KITCHEN]]
    assert bob.state["partners"]["Alice"]["request_tick"] == 0
    assert "asked you at step 0 to explore <kitchen>" in bob.text
    assert obs["Alice"].state["partners"]["Bob"]["requests"] == []


def test_a_stale_report_does_not_override_what_the_listener_holds() -> None:
    mind = SeatMind(partners={"Alice": PartnerView()})
    mind.where[OBJ] = "Bob"  # Bob (this mind) holds it
    mind.hear("Alice", READER.read(f"<{NAME}> ({OBJ}) is in the fridge"), 3)
    assert mind.where[OBJ] == "Bob"


def test_grab_of_an_object_a_teammate_just_said_they_hold_idles() -> None:
    game = HouseholdGame(TASK)
    game.reset(0)
    mind = game.minds[1]
    mind.where[OBJ] = FRIDGE
    game.offers[1] = {f"[gograb] <{NAME}> ({OBJ})": ("grab", OBJ)}
    game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, message=f"I have <{NAME}> ({OBJ})."),
            "Bob": Decision(f"[gograb] <{NAME}> ({OBJ})"),
        }
    )
    assert not game.holding[1] and game.invalid[1] == 0
