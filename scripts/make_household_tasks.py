"""Regenerate the household game data (apartments + 50 tasks) reproducibly from one seed.

Usage: ``python scripts/make_household_tasks.py [--seed 0] [--out DIR] [--check]``.
The shipped files in ``collabrl/data/household`` must equal what this writes (a test checks it).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from collabrl.envs.household.tasks import FAMILIES, TASKS_PER_FAMILY, TEST_TASK_NAMES

DEFAULT_SEED = 0
DATA_DIR = Path(__file__).resolve().parent.parent / "collabrl" / "data" / "household"
CONTAINERS = {"cabinet", "kitchencabinet", "bathroomcabinet", "fridge", "stove", "dishwasher",
              "microwave"}  # fmt: skip
KITCHEN = ["kitchentable", "kitchencabinet", "kitchencabinet", "fridge", "stove", "dishwasher",
           "microwave"]  # fmt: skip

# name -> rooms as (room name, grid cell, fixture names)
LAYOUTS = {
    "two_by_two": [
        ("livingroom", (0, 0), ["coffeetable", "sofa", "cabinet", "desk"]),
        ("kitchen", (1, 0), KITCHEN + ["kitchencounter"]),
        ("bedroom", (0, 1), ["nightstand", "bookshelf", "cabinet"]),
        ("bathroom", (1, 1), ["bathroomcounter", "bathroomcabinet"]),
    ],
    "corridor": [
        ("bedroom", (0, 0), ["desk", "nightstand", "cabinet"]),
        ("livingroom", (1, 0), ["coffeetable", "sofa", "bookshelf"]),
        ("kitchen", (2, 0), KITCHEN + ["kitchencabinet", "kitchencounter"]),
        ("bathroom", (3, 0), ["bathroomcounter", "bathroomcabinet"]),
    ],
    "l_shape": [
        ("kitchen", (0, 0), KITCHEN),
        ("livingroom", (1, 0), ["coffeetable", "sofa", "cabinet", "bookshelf"]),
        ("bedroom", (1, 1), ["desk", "nightstand", "cabinet"]),
        ("bathroom", (1, 2), ["bathroomcounter", "bathroomcabinet"]),
    ],
    "split_level": [
        ("bathroom", (0, 0), ["bathroomcounter", "bathroomcabinet", "bathroomcabinet"]),
        ("bedroom", (1, 0), ["bookshelf", "nightstand", "cabinet"]),
        ("livingroom", (1, 1), ["coffeetable", "desk", "cabinet"]),
        ("kitchen", (2, 1), KITCHEN + ["kitchencounter"]),
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
        "name": f"{task_id}_{family}",
        "family": family,
        "split": split,
        "apartment": apartment["id"],
        "objects": objects,
        "goal": goal,
        "start_rooms": [rng.choice(room_ids), rng.choice(room_ids)],
    }


def build(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """File name -> JSON text of the whole data set for ``seed``."""
    rng = random.Random(seed)
    apartments = make_apartments(rng)
    tasks = []
    for task_id in range(len(FAMILIES) * TASKS_PER_FAMILY):
        family = FAMILIES[task_id // TASKS_PER_FAMILY]
        split = "test" if f"{task_id}_{family}" in TEST_TASK_NAMES else "train"
        tasks.append(make_task(task_id, family, split, rng.choice(apartments), rng))
    return {
        "apartments.json": json.dumps(apartments, indent=1) + "\n",
        "tasks.json": json.dumps(tasks, indent=1) + "\n",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    parser.add_argument("--check", action="store_true", help="only compare with --out")
    args = parser.parse_args()
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
