"""The shipped profile library: counts, type coverage, split hygiene, personas, reproducibility."""

from collections import Counter
from importlib.resources import files

import pytest

from collabrl.envs.registry import get_game
from collabrl.profiles import (
    PLAYER_TYPES,
    TYPE_ANCHORS,
    get_profile,
    load_profiles,
)
from collabrl.profiles.build import build_library, heldout_profiles

HOUSEHOLD_TEST_TASKS = get_game("household").tasks("test")
HOUSEHOLD_TRAIN_TASKS = get_game("household").tasks("train")
KITCHEN_LAYOUTS = get_game("kitchen").tasks("train")


def test_library_counts_per_game_and_split() -> None:
    counts = Counter((p.game, p.split) for p in load_profiles())
    assert counts == {
        ("household", "test"): 150,
        ("household", "train"): 94,
        ("kitchen", "test"): 75,
        ("kitchen", "train"): 75,
        ("analysis", "test"): 190,
        ("analysis", "train"): 144,
    }


@pytest.mark.parametrize(
    "game,tasks", [("household", HOUSEHOLD_TEST_TASKS), ("kitchen", KITCHEN_LAYOUTS)]
)
def test_every_test_task_has_three_profiles_of_each_type(game: str, tasks: tuple[str, ...]) -> None:
    for task in tasks:
        types = Counter(p.player_type for p in load_profiles(game=game, split="test", task=task))
        assert types == dict.fromkeys(PLAYER_TYPES, 3), task


def test_training_profiles_cover_every_training_task_with_mixed_types() -> None:
    household = load_profiles(game="household", split="train")
    per_task = Counter(p.task for p in household)
    assert set(per_task) == set(HOUSEHOLD_TRAIN_TASKS)
    assert set(per_task.values()) <= {2, 3}
    for task in per_task:
        types = [p.player_type for p in household if p.task == task]
        assert len(set(types)) == len(types), task
    kitchen = load_profiles(game="kitchen", split="train")
    for layout in KITCHEN_LAYOUTS:
        types = Counter(p.player_type for p in kitchen if p.task == layout)
        assert types == dict.fromkeys(PLAYER_TYPES, 3), layout


@pytest.mark.parametrize("game", ["household", "kitchen"])
def test_training_profiles_come_from_held_out_sources_only(game: str) -> None:
    held = {p.id: p for p in heldout_profiles(game)}
    test = load_profiles(game=game, split="test")
    assert len(held) == 15 and not set(held) & {p.id for p in test}
    assert not {p.behavior for p in held.values()} & {p.behavior for p in test}
    test_behaviors = {p.behavior for p in test}
    for p in load_profiles(game=game, split="train"):
        source = held[p.provenance.removeprefix("perturbed:")]
        assert p.behavior.startswith(source.behavior) and p.behavior != source.behavior
        assert p.behavior not in test_behaviors and p.player_type == source.player_type
        changed = [t for t, v in p.big_five if v != getattr(source.big_five, t)]
        assert 1 <= len(changed) <= 2, p.id


def test_ids_and_behaviours_are_unique_and_traits_fit_types() -> None:
    profiles = load_profiles()
    assert len({p.id for p in profiles}) == len(profiles)
    assert len({p.behavior for p in profiles}) == len(profiles)
    for p in profiles:
        for trait, allowed in TYPE_ANCHORS[p.player_type].items():
            assert getattr(p.big_five, trait) in allowed, p.id
    assert any(v == "unknown" for p in profiles for _, v in p.big_five)


def test_test_profiles_vary_trait_combinations() -> None:
    for game in ("household", "kitchen"):
        for kind in PLAYER_TYPES:
            combos = {
                p.big_five for p in load_profiles(game=game, split="test") if p.player_type == kind
            }
            assert len(combos) >= 10, (game, kind)


def test_persona_contains_traits_and_behaviour() -> None:
    p = get_profile("cwah-0_read_book-test-03")
    persona = p.persona()
    assert p.behavior in persona
    assert "conscientiousness high" in persona and "openness" in persona.split("Not specified")[1]
    assert "unknown" not in persona


def test_filters_and_get_profile() -> None:
    assert {p.task for p in load_profiles(game="kitchen", task="forced_coordination")} == {
        "forced_coordination"
    }
    assert get_profile("cook-cramped_room-test-01").game == "kitchen"


def test_shipped_files_equal_script_output() -> None:
    root = files("collabrl.data.profiles")
    for name, text in build_library().items():
        assert root.joinpath(name).read_text(encoding="utf-8") == text, name
