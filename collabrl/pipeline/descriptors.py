"""Big Five descriptor personas that drive trajectory generation (CollabBench 4.1.1).

Why: descriptors only induce behavioural diversity; the final profiles come from clustering what
the players actually did. One descriptor per (trait, level) covers each trait in isolation, and
seeded random combinations add mixed personalities.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from typing import Any

from collabrl.pipeline.prompting import load_data
from collabrl.profiles.schema import TRAITS

LEVELS = ("low", "medium", "high")


@dataclass(frozen=True)
class Descriptor:
    """A persona for generation: trait levels ("unknown" = not specified) and its prompt text."""

    id: str
    levels: dict[str, str]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def describe(levels: dict[str, str]) -> str:
    """The persona paragraph for the specified traits, in trait order."""
    wording = load_data("descriptors.yaml")
    lines = [wording["traits"][t][levels[t]] for t in TRAITS if levels[t] != "unknown"]
    return " ".join([wording["intro"], *lines])


def make_descriptors(random_combinations: int, seed: int) -> list[Descriptor]:
    """15 single-trait descriptors (3 levels x 5 traits) then ``random_combinations`` mixes."""
    out = []
    for trait in TRAITS:
        for level in LEVELS:
            levels = {t: (level if t == trait else "unknown") for t in TRAITS}
            out.append(Descriptor(f"{trait}-{level}", levels, describe(levels)))
    rng = random.Random(f"descriptors-{seed}")
    for n in range(1, random_combinations + 1):
        levels = {t: rng.choice(LEVELS) for t in TRAITS}
        out.append(Descriptor(f"mix-{n:02d}", levels, describe(levels)))
    return out


def descriptors_version() -> str:
    return str(load_data("descriptors.yaml")["version"])
