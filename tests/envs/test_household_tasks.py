"""The shipped household task set: split, naming, content, and equality with the generator."""

from __future__ import annotations

import importlib.util
import math
import statistics
from importlib.resources import files
from pathlib import Path

import pytest

from collabrl.envs.household.tasks import FAMILIES, TEST_TASK_NAMES, get_task, load_tasks
from collabrl.envs.household.world import load_apartments

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_household_tasks.py"
EXPECTED_TEST = {
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
}


def test_split_and_names() -> None:
    tasks = load_tasks()
    assert [t.id for t in tasks] == list(range(50))
    assert all(t.name == f"{t.id}_{FAMILIES[t.id // 10]}" for t in tasks)
    assert {t.name for t in load_tasks("test")} == EXPECTED_TEST == set(TEST_TASK_NAMES)
    train = load_tasks("train")
    assert len(train) == 40 and not {t.name for t in train} & EXPECTED_TEST
    with pytest.raises(ValueError):
        load_tasks("dev")


def test_unknown_task_name_lists_valid_ones() -> None:
    assert get_task("26_prepare_food").id == 26
    with pytest.raises(KeyError, match="0_read_book"):
        get_task("26_read_book")


def test_apartments_have_required_rooms_and_fixtures() -> None:
    apartments = load_apartments()
    assert len(apartments) >= 6
    layouts = set()
    for apt in apartments.values():
        assert {r.name for r in apt.rooms.values()} == {
            "livingroom",
            "kitchen",
            "bedroom",
            "bathroom",
        }
        names = {f.name for f in apt.fixtures.values()}
        assert {"coffeetable", "kitchentable", "fridge", "dishwasher", "kitchencabinet"} <= names
        assert {f.name for f in apt.fixtures.values() if f.container} >= {"fridge", "stove"}
        layouts.add(tuple(sorted((r.name, r.cell) for r in apt.rooms.values())))
        assert max(apt.travel.values()) > min(v for v in apt.travel.values() if v)
        kitchen = apt.room_named("kitchen").id
        cabinets = [f for f in apt.fixtures.values() if f.name == "kitchencabinet"]
        assert len(cabinets) >= 3 and all(f.room == kitchen for f in cabinets)
        assert sum(f.container for f in apt.fixtures.values()) >= 9
    assert len(layouts) == len(apartments)


def test_test_tasks_of_a_family_live_in_different_apartments() -> None:
    tests = load_tasks("test")
    for family in FAMILIES:
        homes = [t.apartment for t in tests if t.family == family]
        assert len(homes) == 2 and homes[0] != homes[1], family
    assert {t.apartment for t in tests} == set(load_apartments())


@pytest.mark.parametrize("task", load_tasks(), ids=lambda t: t.name)
def test_task_content_is_consistent(task) -> None:
    apt = load_apartments()[task.apartment]
    ids = [o[0] for o in task.objects]
    assert len(ids) == len(set(ids))
    assert all(at in apt.fixtures for _, _, at in task.objects)
    assert all(r in apt.rooms for r in task.start_rooms)
    goal_names = {p.object for p in task.goal}
    goal_objects = [o for o in task.objects if o[1] in goal_names]
    for p in task.goal:
        assert p.relation == ("INSIDE" if apt.fixtures[p.target].container else "ON")
        starting = [o for o in goal_objects if o[1] == p.object]
        assert len(starting) >= p.count and all(at != p.target for *_, at in starting)
    assert len({apt.fixtures[at].room for *_, at in goal_objects}) >= 2
    assert len(task.objects) > len(goal_objects)  # distractors too


def _script():
    spec = importlib.util.spec_from_file_location("make_household_tasks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_data_equals_generator_output() -> None:
    module = _script()
    data = files("collabrl.data.household")
    for name, text in module.build().items():
        assert data.joinpath(name).read_text() == text, f"{name} is stale; rerun {SCRIPT.name}"
    assert module.build(seed=1) != module.build()


def test_calibration_table_lists_every_test_task_beside_mhp() -> None:
    module = _script()
    table = module.steps_table()
    assert set(module.MHP_STEPS) == set(TEST_TASK_NAMES)
    for name in TEST_TASK_NAMES:
        row = next(line for line in table.splitlines() if line.startswith(f"| {name} |"))
        assert f"| {module.MHP_STEPS[name][0]:.1f} |" in row
    assert "expert pair: mean" in table


def test_world_time_matches_the_mhp_baseline_scale() -> None:
    """Expert-pair steps over the test tasks and both seat orders sit where the paper's MHP
    baseline does (Table 4: 43-95 per task, mean about 67), so the efficiency reward
    exp(-0.025 * max(0, T - 40)) spreads instead of sitting near 1."""
    steps = [t for name in TEST_TASK_NAMES for t in _script().expert_pair_steps(name, seed=0)]
    efficiency = [math.exp(-0.025 * max(0, t - 40)) for t in steps]
    assert 55 <= statistics.mean(steps) <= 80 and min(steps) >= 35, steps
    assert 0.4 <= statistics.mean(efficiency) <= 0.8


def test_expert_pair_solves_every_train_task_in_both_seat_orders() -> None:
    pair_steps = _script().expert_pair_steps
    for task in load_tasks("train"):
        assert max(pair_steps(task, seed=0)) < 250, task.name
