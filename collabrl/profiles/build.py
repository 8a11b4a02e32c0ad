"""Assemble the shipped library: handwritten test profiles plus training profiles perturbed from held-out ones.

Deterministic (fixed seeds), so ``scripts/make_profiles.py`` output can be compared with the
shipped files byte for byte.
"""

from __future__ import annotations

import random
from pathlib import Path

from collabrl.profiles import authored_household, authored_kitchen
from collabrl.profiles.loader import LIBRARY_FILES, parse_records, validate_records
from collabrl.profiles.perturb import perturb
from collabrl.profiles.schema import TRAITS, Profile, interleaved_by_type
from collabrl.profiles.tasks import HOUSEHOLD_TRAIN_TASKS, KITCHEN_LAYOUTS
from collabrl.records import jsonl_line

HOUSEHOLD_TRAIN_SIZE = 94  # CollabBench Table 3: 94 training profiles over the 40 training tasks
TYPE_CODES = {
    "EC": "efficient_collaborator",
    "HL": "hesitant_laggard",
    "AD": "anxious_doubter",
    "PL": "proactive_leader",
    "IL": "independent_loner",
}
_LEVEL_CODES = {"h": "high", "m": "medium", "l": "low", "u": "unknown"}
_PREFIX = {"household": "cwah", "kitchen": "cook"}
_AUTHORED = {"household": authored_household, "kitchen": authored_kitchen}


def test_profiles(game: str) -> list[Profile]:
    """The handwritten evaluation profiles, numbered 01-15 per task."""
    return [
        _from_row(game, task, "test", n, row)
        for task, rows in _AUTHORED[game].TEST.items()
        for n, row in enumerate(rows, 1)
    ]


def heldout_profiles(game: str) -> list[Profile]:
    """The handwritten perturbation sources; excluded from both test and train files."""
    return [
        _from_row(game, task, "heldout", n, row)
        for n, (task, *row) in enumerate(_AUTHORED[game].HELDOUT, 1)
    ]


def train_profiles(game: str) -> list[Profile]:
    """Training profiles: household spreads 94 over the 40 training tasks, kitchen 15 per layout."""
    rng = random.Random(f"collabrl-profiles-{game}")
    sources = interleaved_by_type(heldout_profiles(game))
    if game == "household":
        extra = set(
            rng.sample(HOUSEHOLD_TRAIN_TASKS, HOUSEHOLD_TRAIN_SIZE - 2 * len(HOUSEHOLD_TRAIN_TASKS))
        )
        tasks = [t for t in HOUSEHOLD_TRAIN_TASKS for _ in range(3 if t in extra else 2)]
    else:
        tasks = [layout for layout in KITCHEN_LAYOUTS for _ in sources]
    taken = {p.behavior for p in sources}
    numbers: dict[str, int] = {}
    made = []
    for k, task in enumerate(tasks):
        numbers[task] = numbers.get(task, 0) + 1
        new_id = f"{_PREFIX[game]}-{task}-train-{numbers[task]:02d}"
        made.append(
            perturb(
                sources[k % len(sources)],
                new_id=new_id,
                task=task,
                split="train",
                rng=rng,
                taken=taken,
            )
        )
    return made


def build_library() -> dict[str, str]:
    """File name -> JSONL text for every shipped file, validated as one library."""
    texts = {
        f"{game}_{split}.jsonl": "".join(
            jsonl_line(p.model_dump(mode="json")) + "\n" for p in profiles
        )
        for game in _PREFIX
        for split, profiles in (("test", test_profiles(game)), ("train", train_profiles(game)))
    }
    assert tuple(sorted(texts)) == tuple(sorted(LIBRARY_FILES)), "library file names drifted"
    validate_records(r for name, text in texts.items() for r in parse_records(name, text))
    return texts


def write_library(directory: Path) -> list[Path]:
    """Write every shipped file into ``directory``; returns the paths written."""
    written = []
    for name, text in build_library().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _from_row(game: str, task: str, kind: str, number: int, row: tuple[str, ...]) -> Profile:
    type_code, trait_code, behavior = row
    return Profile(
        id=f"{_PREFIX[game]}-{task}-{kind}-{number:02d}",
        game=game,
        task=task,
        big_five=dict(zip(TRAITS, (_LEVEL_CODES[c] for c in trait_code), strict=True)),
        behavior=behavior,
        player_type=TYPE_CODES[type_code],
        split="test",  # held-out sources also sit on test scenarios, but ship in no file
        provenance="handwritten",
    )
