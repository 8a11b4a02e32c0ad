"""Assemble the shipped library: handwritten test profiles plus training profiles perturbed from held-out ones.

Each game brings its handwritten library as the module its section's ``profile_source`` names
(``TEST``, ``HELDOUT``, ``PHRASES``, ``ID_PREFIX``, ``TRAIN_PROFILES``); nothing here names a
game. Deterministic (fixed seeds), so ``scripts/make_profiles.py`` output can be compared with
the shipped files byte for byte.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from types import ModuleType

from collabrl.envs.registry import get_game
from collabrl.profiles.loader import library_files, library_games, parse_records, validate_records
from collabrl.profiles.perturb import perturb
from collabrl.profiles.schema import TRAITS, Profile, interleaved_by_type
from collabrl.records import jsonl_line

TYPE_CODES = {
    "EC": "efficient_collaborator",
    "HL": "hesitant_laggard",
    "AD": "anxious_doubter",
    "PL": "proactive_leader",
    "IL": "independent_loner",
}
_LEVEL_CODES = {"h": "high", "m": "medium", "l": "low", "u": "unknown"}


def profile_source(game: str) -> ModuleType:
    """The module holding ``game``'s handwritten library (its section's ``profile_source``)."""
    source = get_game(game).profile_source
    if source is None:
        raise ValueError(f"the {game} game ships no handwritten profile library")
    return importlib.import_module(source)


def test_profiles(game: str) -> list[Profile]:
    """The handwritten evaluation profiles, numbered 01-15 per task."""
    return [
        _from_row(game, task, "test", n, row)
        for task, rows in profile_source(game).TEST.items()
        for n, row in enumerate(rows, 1)
    ]


def heldout_profiles(game: str) -> list[Profile]:
    """The handwritten perturbation sources; excluded from both test and train files."""
    return [
        _from_row(game, task, "heldout", n, row)
        for n, (task, *row) in enumerate(profile_source(game).HELDOUT, 1)
    ]


def training_tasks(game: str, sources: int, rng: random.Random) -> list[str]:
    """The task of each training profile, in order. ``TRAIN_PROFILES`` spreads that many over
    the training tasks (as evenly as it divides; the remainder goes to tasks ``rng`` draws);
    None puts one perturbed copy of every source on each training task."""
    tasks = get_game(game).tasks("train")
    total = profile_source(game).TRAIN_PROFILES
    if total is None:
        return [task for task in tasks for _ in range(sources)]
    each, rest = divmod(total, len(tasks))
    extra = set(rng.sample(tasks, rest))
    return [task for task in tasks for _ in range(each + (task in extra))]


def train_profiles(game: str) -> list[Profile]:
    """Training profiles: perturbed copies of the held-out sources, spread by :func:`training_tasks`."""
    library = profile_source(game)
    rng = random.Random(f"collabrl-profiles-{game}")
    sources = interleaved_by_type(heldout_profiles(game))
    tasks = training_tasks(game, len(sources), rng)
    taken = {p.behavior for p in sources}
    numbers: dict[str, int] = {}
    made = []
    for k, task in enumerate(tasks):
        numbers[task] = numbers.get(task, 0) + 1
        made.append(
            perturb(
                sources[k % len(sources)],
                phrases=library.PHRASES,
                new_id=f"{library.ID_PREFIX}-{task}-train-{numbers[task]:02d}",
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
        for game in library_games()
        for split, profiles in (("test", test_profiles(game)), ("train", train_profiles(game)))
    }
    assert sorted(texts) == sorted(library_files()), "library file names drifted"
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
        id=f"{profile_source(game).ID_PREFIX}-{task}-{kind}-{number:02d}",
        game=game,
        task=task,
        big_five=dict(zip(TRAITS, (_LEVEL_CODES[c] for c in trait_code), strict=True)),
        behavior=behavior,
        player_type=TYPE_CODES[type_code],
        split="test",  # held-out sources also sit on test scenarios, but ship in no file
        provenance="handwritten",
    )
