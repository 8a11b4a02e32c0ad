"""Which tasks each game has and which split they belong to, so profiles cannot leak across splits."""

from __future__ import annotations

from collabrl.envs.household.tasks import FAMILIES, TASKS_PER_FAMILY
from collabrl.envs.household.tasks import TEST_TASK_NAMES as HOUSEHOLD_TEST_TASKS
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES as KITCHEN_LAYOUTS

HOUSEHOLD_TASKS = tuple(f"{i}_{FAMILIES[i // TASKS_PER_FAMILY]}" for i in range(50))
HOUSEHOLD_TRAIN_TASKS = tuple(t for t in HOUSEHOLD_TASKS if t not in HOUSEHOLD_TEST_TASKS)
GAME_TASKS = {"household": HOUSEHOLD_TASKS, "kitchen": KITCHEN_LAYOUTS}


def check_task(game: str, task: str, split: str) -> None:
    """Raise ValueError unless ``task`` exists in ``game`` and may hold ``split`` profiles.

    Household test tasks are unseen in training, so they hold only test profiles and the
    training tasks only train profiles; kitchen layouts hold both (as in CollabBench).
    """
    tasks = GAME_TASKS.get(game, ())
    if task not in tasks:
        raise ValueError(f"unknown {game} task {task!r}")
    if game == "household":
        expected = "test" if task in HOUSEHOLD_TEST_TASKS else "train"
        if split != expected:
            raise ValueError(f"task {task} is a {expected} task but split is {split!r}")
