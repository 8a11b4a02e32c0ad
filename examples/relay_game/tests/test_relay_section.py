"""The relay game's recipe section: found through the ``collabrl.games`` entry point, tasks per
split, validated options, the efficiency reward and the recipes shipped beside the package."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

pytest.importorskip("relay_game", reason="pip install ./examples/relay_game")
from relay_game.game import RelayGame
from relay_game.section import RelaySection
from relay_game.tasks import get_task

from collabrl.envs.registry import ENTRY_POINT_GROUP, GameSection

RECIPES = Path(__file__).resolve().parents[1] / "recipes"


def test_the_entry_point_names_the_section() -> None:
    points = {p.name: p for p in entry_points(group=ENTRY_POINT_GROUP)}
    assert "relay" in points, "pip install -e examples/relay_game registers the game"
    section = points["relay"].load()
    assert section is RelaySection and issubclass(section, GameSection)


def test_tasks_split_six_train_two_test_and_rebuild_identically() -> None:
    train, test = RelaySection.tasks("train"), RelaySection.tasks("test")
    assert len(train) == 6 and len(test) == 2 and not set(train) & set(test)
    for name in RelaySection.all_tasks():
        assert get_task(name) == get_task(name)
        assert RelaySection(task=name).make_game().task.name == name


def test_the_section_builds_the_game_it_describes() -> None:
    section = RelaySection(task="r7p2v0", seats=["Ann", "Ben", "Cat"], max_ticks=40)
    game = section.make_game()
    assert isinstance(game, RelayGame) and game.agents == ["Ann", "Ben", "Cat"]
    assert game.max_ticks == 40 and section.task == "r7p2v0"
    assert section.for_task("r5p2v0").task == "r5p2v0"


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"task": "r9p9v9"}, "unknown relay task"),
        ({"seats": ["Ann"]}, "takes 2-4 seats"),
        ({"seats": ["A", "B", "C", "D", "E"]}, "takes 2-4 seats"),
        ({"max_ticks": 0}, "greater than 0"),
        ({"colour": "red"}, "Extra inputs"),
    ],
)
def test_bad_options_are_refused(options: dict, error: str) -> None:
    with pytest.raises(ValidationError, match=error):
        RelaySection(**options)


def test_efficiency_decays_with_steps_and_is_zero_on_failure() -> None:
    section = RelaySection()
    scores = [section.efficiency({"success": True, "steps": steps}) for steps in (5, 10, 20, 60)]
    assert scores[0] == scores[1] == 1.0 and 1.0 > scores[2] > scores[3] > 0.0
    assert section.efficiency({"success": False, "steps": 60}) == 0.0


def test_the_expert_add_on_loads() -> None:
    module, _, name = RelaySection.expert.partition(":")
    expert = getattr(importlib.import_module(module), name)()
    assert expert.name == "relay-expert"
    assert RelaySection.persona is None and RelaySection.events is None


@pytest.mark.parametrize("recipe", ["relay_play.yaml", "relay_gigpo_cpu.yaml"])
def test_the_recipes_play_a_valid_relay_section(recipe: str) -> None:
    game = yaml.safe_load((RECIPES / recipe).read_text())["game"]
    section = RelaySection.model_validate(game)
    assert section.task in RelaySection.tasks("train")
