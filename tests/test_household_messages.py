"""Reading teammates' messages: reported locations and claimed plans."""

from __future__ import annotations

import pytest

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
