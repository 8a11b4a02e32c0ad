"""Which tasks each game has and which split they belong to, so profiles cannot leak across splits."""

from __future__ import annotations

FAMILIES = ("read_book", "put_dishwasher", "prepare_food", "put_fridge", "setup_table")
HOUSEHOLD_TASKS = tuple(f"{i}_{FAMILIES[i // 10]}" for i in range(50))
HOUSEHOLD_TEST_TASKS = (
    "0_read_book",
    "5_read_book",
    "10_put_dishwasher",
    "16_put_dishwasher",
    "20_prepare_food",
    "26_prepare_food",
    "30_put_fridge",
    "32_put_fridge",
    "40_setup_table",
    "49_setup_table",
)
HOUSEHOLD_TRAIN_TASKS = tuple(t for t in HOUSEHOLD_TASKS if t not in HOUSEHOLD_TEST_TASKS)
KITCHEN_LAYOUTS = (
    "cramped_room",
    "asymmetric_advantages",
    "coordination_ring",
    "forced_coordination",
    "counter_circuit",
)
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
