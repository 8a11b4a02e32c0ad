"""Regenerate the shipped private guidance (collabrl/data/profiles/guidance.json) from the tasks.

Usage: python scripts/make_guidance.py [--check]
Deterministic. For every household task it writes ``PACKS`` packs, one per possible teammate:
the goal objects that start out of place are split between the first two ("locator" and
"surveyor"; together they place every one), the second also names containers that hold nothing
the goal needs, and the third ("checker") names the remaining such containers. A team that
surfaces both first packs can walk straight to every goal object. --check exits 1 on drift.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

from collabrl.envs.household.tasks import Task, load_tasks
from collabrl.envs.household.world import Apartment, load_apartments
from collabrl.profiles.guidance import GUIDANCE_FILE, GUIDANCE_PACKAGE

SKIPS = 3  # empty containers named by each of the last two packs


def _object_fact(apartment: Apartment, obj: int, name: str, at: int) -> dict[str, Any]:
    fixture = apartment.fixtures[at]
    where = "in" if fixture.container else "on"
    return {
        "kind": "object_at",
        "fixture": at,
        "fixture_name": fixture.name,
        "where": where,
        "object": obj,
        "name": name,
    }


def _empty_fact(apartment: Apartment, fid: int) -> dict[str, Any]:
    return {"kind": "nothing_in", "fixture": fid, "fixture_name": apartment.fixtures[fid].name}


def packs(task: Task) -> list[dict[str, Any]]:
    """The task's packs, in the order teammates receive them."""
    apartment = load_apartments()[task.apartment]
    target = {p.object: p.target for p in task.goal}
    needed = [(o, n, at) for o, n, at in task.objects if n in target and at != target[n]]
    holding = {at for o, n, at in task.objects if n in target}
    empty = sorted(f.id for f in apartment.fixtures.values() if f.container and f.id not in holding)
    half = (len(needed) + 1) // 2
    facts = [_object_fact(apartment, *o) for o in needed]
    return [
        {"role": "locator", "facts": facts[:half]},
        {
            "role": "surveyor",
            "facts": facts[half:] + [_empty_fact(apartment, f) for f in empty[:SKIPS]],
        },
        {"role": "checker", "facts": [_empty_fact(apartment, f) for f in empty[SKIPS : 2 * SKIPS]]},
    ]


def build() -> str:
    data = {"household": {t.name: [p for p in packs(t) if p["facts"]] for t in load_tasks()}}
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    path = Path(str(files(GUIDANCE_PACKAGE))) / GUIDANCE_FILE
    text = build()
    if args.check:
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        print("guidance up to date" if same else f"stale: {path}")
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
