"""Regenerate the household game data (apartments + 50 tasks) reproducibly from one seed.

Usage: ``python scripts/make_household_tasks.py [--seed 0] [--out DIR] [--check] [--table]``.
The shipped files in ``collabrl/data/household`` must equal what this writes (a test checks it).
``--table`` writes nothing and prints the world-time calibration of the shipped data instead:
expert-pair steps per test task (both seat orders) beside the MHP baseline of the paper's Table 4.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from dataclasses import replace
from pathlib import Path

from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.section import HouseholdSection
from collabrl.envs.household.tasks import (
    FAMILIES,
    TASKS_PER_FAMILY,
    TEST_TASK_NAMES,
    Task,
    family_of,
    get_task,
    load_tasks,
    task_name,
)
from collabrl.envs.household.world import load_apartments
from collabrl.episode import play_experts

DEFAULT_SEED = 0
# CollabBench Table 4: steps of the MHP (non-LLM) baseline per test task, as Agent 1 / Agent 2
MHP_STEPS = {
    "0_read_book": (82.17, 94.80),
    "5_read_book": (71.00, 65.97),
    "10_put_dishwasher": (74.67, 67.33),
    "16_put_dishwasher": (63.13, 66.93),
    "20_prepare_food": (67.10, 68.90),
    "26_prepare_food": (63.47, 55.63),
    "30_put_fridge": (43.17, 47.30),
    "32_put_fridge": (86.45, 90.57),
    "40_setup_table": (60.70, 71.30),
    "49_setup_table": (50.17, 49.10),
}
DATA_DIR = Path(__file__).resolve().parent.parent / "collabrl" / "data" / "household"
CONTAINERS = {"cabinet", "kitchencabinet", "bathroomcabinet", "fridge", "stove", "dishwasher",
              "microwave"}  # fmt: skip
APPLIANCES = ["fridge", "stove", "dishwasher", "microwave"]


def kitchen(cabinets: int, *surfaces: str) -> list[str]:
    """A kitchen: table, appliances, ``cabinets`` kitchen cabinets and any extra surfaces."""
    return ["kitchentable", *APPLIANCES, *["kitchencabinet"] * cabinets, *surfaces]


# name -> rooms as (room name, grid cell, fixture names). A grid cell is about one room across
# (TICKS_PER_ROOM_STEP of walking); empty cells between rooms are hallways. Kitchens hold several
# cabinets and most rooms a closed cabinet, as in CWAH's apartments, so searching takes looking.
LAYOUTS = {
    "two_by_two": [
        ("livingroom", (0, 0), ["coffeetable", "sofa", "cabinet", "desk", "bookshelf"]),
        ("kitchen", (2, 0), kitchen(4, "kitchencounter")),
        ("bedroom", (0, 2), ["nightstand", "bookshelf", "cabinet", "cabinet"]),
        ("bathroom", (2, 2), ["bathroomcounter", "bathroomcabinet"]),
    ],
    "corridor": [
        ("bedroom", (0, 0), ["desk", "nightstand", "cabinet", "cabinet"]),
        ("livingroom", (2, 0), ["coffeetable", "sofa", "bookshelf"]),
        ("kitchen", (3, 0), kitchen(5, "kitchencounter")),
        ("bathroom", (5, 0), ["bathroomcounter", "bathroomcabinet", "bathroomcabinet"]),
    ],
    "l_shape": [
        ("kitchen", (0, 0), kitchen(3)),
        ("livingroom", (2, 0), ["coffeetable", "sofa", "cabinet", "bookshelf"]),
        ("bedroom", (2, 2), ["desk", "nightstand", "cabinet"]),
        ("bathroom", (2, 3), ["bathroomcounter", "bathroomcabinet"]),
    ],
    "split_level": [
        ("bathroom", (0, 0), ["bathroomcounter", "bathroomcabinet", "bathroomcabinet"]),
        ("bedroom", (1, 0), ["bookshelf", "nightstand", "cabinet"]),
        ("livingroom", (1, 2), ["coffeetable", "desk", "cabinet", "cabinet"]),
        ("kitchen", (3, 2), kitchen(4, "kitchencounter")),
    ],
    "townhouse": [
        ("kitchen", (0, 0), kitchen(6, "kitchencounter")),
        ("livingroom", (1, 1), ["coffeetable", "sofa", "cabinet", "bookshelf"]),
        ("bathroom", (0, 3), ["bathroomcounter", "bathroomcabinet"]),
        ("bedroom", (2, 3), ["desk", "nightstand", "bookshelf", "cabinet", "cabinet"]),
    ],
    "courtyard": [
        ("livingroom", (0, 0), ["coffeetable", "sofa", "desk", "cabinet"]),
        ("bedroom", (3, 0), ["nightstand", "bookshelf", "cabinet", "cabinet"]),
        ("kitchen", (0, 2), kitchen(5, "kitchencounter")),
        ("bathroom", (3, 2), ["bathroomcounter", "bathroomcabinet", "cabinet"]),
    ],
}

# object name -> fixture names where it may start
PLACES = {
    "apple": ["fridge", "kitchentable", "kitchencounter", "kitchencabinet", "coffeetable", "desk"],
    "cupcake": ["fridge", "kitchencounter", "kitchencabinet", "microwave", "stove", "nightstand",
                "desk"],
    "pudding": ["fridge", "kitchencabinet", "kitchencounter", "cabinet", "microwave"],
    "juice": ["fridge", "kitchencabinet", "kitchentable", "cabinet", "coffeetable"],
    "salmon": ["fridge", "stove", "microwave", "kitchencounter"],
    "milk": ["fridge", "kitchencabinet", "kitchentable"],
    "chips": ["kitchencabinet", "cabinet", "coffeetable", "sofa", "desk"],
    "plate": ["kitchencabinet", "kitchencounter", "dishwasher", "kitchentable", "cabinet",
              "coffeetable"],
    "wineglass": ["kitchencabinet", "cabinet", "kitchencounter", "coffeetable", "bookshelf",
                  "dishwasher"],
    "waterglass": ["kitchencabinet", "dishwasher", "bathroomcounter", "nightstand", "kitchentable"],
    "fork": ["kitchencabinet", "dishwasher", "kitchencounter", "kitchentable", "coffeetable"],
    "knife": ["kitchencabinet", "dishwasher", "kitchencounter", "stove"],
    "book": ["bookshelf", "nightstand", "desk", "sofa", "cabinet", "kitchentable",
             "bathroomcabinet"],
    "glasses": ["nightstand", "desk", "bathroomcounter", "bathroomcabinet", "cabinet"],
    "remotecontrol": ["sofa", "coffeetable", "desk", "cabinet", "nightstand"],
    "mug": ["kitchencabinet", "kitchencounter", "desk", "coffeetable", "dishwasher"],
    "towel": ["bathroomcabinet", "bathroomcounter", "cabinet"],
    "toothbrush": ["bathroomcounter", "bathroomcabinet"],
    "soap": ["bathroomcounter", "bathroomcabinet"],
    "pillow": ["sofa", "nightstand", "cabinet", "bookshelf"],
    "cellphone": ["desk", "nightstand", "coffeetable", "sofa", "kitchentable"],
    "candle": ["coffeetable", "bookshelf", "bathroomcounter", "cabinet"],
    "cereal": ["kitchencabinet", "kitchencounter"],
    "wallet": ["desk", "nightstand", "cabinet"],
}  # fmt: skip
DISTRACTORS = ["mug", "towel", "toothbrush", "soap", "pillow", "cellphone", "candle", "cereal",
               "wallet"]  # fmt: skip
DISHES = ["plate", "wineglass", "waterglass", "fork", "knife"]
# family -> (relation, target fixture name, candidate objects, how many kinds)
FAMILY_GOALS = {
    "read_book": ("ON", "coffeetable", ["glasses", "remotecontrol"], 1),
    "put_dishwasher": ("INSIDE", "dishwasher", DISHES, 3),
    "prepare_food": ("ON", "coffeetable", ["apple", "cupcake", "pudding", "juice", "chips"], 3),
    "put_fridge": ("INSIDE", "fridge", ["apple", "cupcake", "pudding", "juice", "salmon", "milk"],
                   3),
    "setup_table": ("ON", "kitchentable", DISHES, 3),
}  # fmt: skip


def make_apartments(rng: random.Random) -> list[dict]:
    """Give every layout ids: rooms 10-99, fixtures 100-299 (shuffled, so ids carry no hint)."""
    apartments = []
    for index, (name, rooms) in enumerate(LAYOUTS.items()):
        room_ids = rng.sample(range(10, 100), len(rooms))
        n_fixtures = sum(len(fixtures) for _, _, fixtures in rooms)
        fixture_ids = iter(rng.sample(range(100, 300), n_fixtures))
        apartments.append(
            {
                "id": index,
                "name": name,
                "rooms": [
                    {"id": rid, "name": room, "cell": list(cell)}
                    for rid, (room, cell, _) in zip(room_ids, rooms, strict=True)
                ],
                "fixtures": [
                    {"id": next(fixture_ids), "name": f, "room": rid, "container": f in CONTAINERS}
                    for rid, (_, _, fixtures) in zip(room_ids, rooms, strict=True)
                    for f in fixtures
                ],
            }
        )
    return apartments


def make_goal(family: str, target: int, rng: random.Random) -> list[dict]:
    relation, _, candidates, kinds = FAMILY_GOALS[family]
    names = rng.sample(candidates, kinds)
    counts = [rng.choice([1, 1, 2]) for _ in names]
    if sum(counts) < 4:
        counts[0] = 2
    if family == "read_book":  # books always, plus one reading companion
        names, counts = ["book", *names], [rng.choice([2, 3]), 1]
    return [
        {"relation": relation, "object": n, "count": c, "target": target}
        for n, c in zip(names, counts, strict=True)
    ]


def place(name: str, fixtures: list[dict], target: int, rng: random.Random) -> int:
    """A plausible starting fixture for an object, never the goal target."""
    options = [f["id"] for f in fixtures if f["name"] in PLACES[name] and f["id"] != target]
    return rng.choice(options or [f["id"] for f in fixtures if f["id"] != target])


def make_task(task_id: int, family: str, split: str, apartment: dict, rng: random.Random) -> dict:
    """One task: goal, goal objects spread over at least two rooms, distractors, start rooms."""
    fixtures = apartment["fixtures"]
    target_name = FAMILY_GOALS[family][1]
    target = next(f["id"] for f in fixtures if f["name"] == target_name)
    goal = make_goal(family, target, rng)
    names = [p["object"] for p in goal for _ in range(p["count"])]
    if rng.random() < 0.3:
        names.append(rng.choice(names))  # one spare goal object
    room_of = {f["id"]: f["room"] for f in fixtures}
    while True:
        spots = [place(n, fixtures, target, rng) for n in names]
        if len({room_of[s] for s in spots}) >= 2:
            break
    for name in rng.sample(DISTRACTORS, rng.randint(6, 9)):
        names.append(name)
        spots.append(place(name, fixtures, target, rng))
    ids = rng.sample(range(300, 500), len(names))
    objects = sorted(
        ({"id": i, "name": n, "at": s} for i, n, s in zip(ids, names, spots, strict=True)),
        key=lambda o: o["id"],
    )
    room_ids = [r["id"] for r in apartment["rooms"]]
    return {
        "id": task_id,
        "name": task_name(task_id),
        "family": family,
        "split": split,
        "apartment": apartment["id"],
        "objects": objects,
        "goal": goal,
        "start_rooms": [rng.choice(room_ids), rng.choice(room_ids)],
    }


def assign_apartments(n_apartments: int, rng: random.Random) -> list[int]:
    """Apartment of every task id. Test tasks take turns through shuffled rounds of all
    apartments (so every apartment hosts some, and the two of a family never share one); each
    family's training tasks cycle through all apartments in a shuffled order of their own."""
    names = [task_name(i) for i in range(len(FAMILIES) * TASKS_PER_FAMILY)]
    tests = [i for i, name in enumerate(names) if name in TEST_TASK_NAMES]
    n_rounds = -(-len(tests) // n_apartments)
    while True:
        rounds = [a for _ in range(n_rounds) for a in rng.sample(range(n_apartments), n_apartments)]
        home = dict(zip(tests, rounds, strict=False))
        by_family = [[home[i] for i in tests if family_of(i) == f] for f in FAMILIES]
        if all(len(set(homes)) == len(homes) for homes in by_family):
            break
    for first in range(0, len(names), TASKS_PER_FAMILY):
        cycle = iter(rng.sample(range(n_apartments), n_apartments) * TASKS_PER_FAMILY)
        for i in range(first, first + TASKS_PER_FAMILY):
            home.setdefault(i, next(cycle))
    return [home[i] for i in range(len(names))]


def build(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """File name -> JSON text of the whole data set for ``seed``."""
    rng = random.Random(seed)
    apartments = make_apartments(rng)
    tasks = []
    for task_id, home in enumerate(assign_apartments(len(apartments), rng)):
        split = "test" if task_name(task_id) in TEST_TASK_NAMES else "train"
        tasks.append(make_task(task_id, family_of(task_id), split, apartments[home], rng))
    return {
        "apartments.json": json.dumps(apartments, indent=1) + "\n",
        "tasks.json": json.dumps(tasks, indent=1) + "\n",
    }


def expert_pair_steps(task: str | Task, seed: int = 0) -> tuple[int, int]:
    """Steps of two experts in both seat orders: as dealt by ``seed``, then with the two start
    rooms swapped between the seats (two experts are alike, so only where each starts matters).

    This is the world-time yardstick the shipped tasks are calibrated against (paper Table 4).
    """
    task = get_task(task) if isinstance(task, str) else task
    swapped = replace(task, start_rooms=task.start_rooms[::-1])
    first, second = (
        play_experts(HouseholdGame(t), HouseholdExpert, seed)["steps"] for t in (task, swapped)
    )
    return first, second


def steps_table(seed: int = 0) -> str:
    """Markdown table: expert-pair steps per test task in both seat orders (game seed ``seed``),
    their efficiency reward exp(-0.025 * max(0, T - 40)), and Table 4's MHP steps; mean row."""
    apartments = load_apartments()
    lines = [
        "| task | apartment | expert order 1 | expert order 2 | efficiency | MHP Agent 1 | MHP Agent 2 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    steps: list[int] = []
    efficiency: list[float] = []
    for task in load_tasks("test"):
        pair = expert_pair_steps(task, seed)
        eff = statistics.mean(
            HouseholdSection().efficiency({"success": True, "steps": t}) for t in pair
        )
        steps += pair
        efficiency.append(eff)
        mhp = MHP_STEPS[task.name]
        lines.append(
            f"| {task.name} | {apartments[task.apartment].name} | {pair[0]} | {pair[1]} | "
            f"{eff:.2f} | {mhp[0]:.1f} | {mhp[1]:.1f} |"
        )
    mhp_means = [statistics.mean(m[k] for m in MHP_STEPS.values()) for k in (0, 1)]
    lines.append(
        f"| mean | | {statistics.mean(steps[0::2]):.1f} | {statistics.mean(steps[1::2]):.1f} | "
        f"{statistics.mean(efficiency):.2f} | {mhp_means[0]:.1f} | {mhp_means[1]:.1f} |"
    )
    lines.append(f"\nexpert pair: mean {statistics.mean(steps):.1f} steps over both orders")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    parser.add_argument("--check", action="store_true", help="only compare with --out")
    parser.add_argument(
        "--table", action="store_true", help="print the shipped data's calibration table only"
    )
    args = parser.parse_args()
    if args.table:
        print(steps_table())
        return 0
    stale = []
    for name, text in build(args.seed).items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; rerun without --check")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
