"""Training profiles from held-out ones: shift one or two non-defining traits and add the habit that shift implies.

The held-out sentence describes only the player type's defining habits, so the added sentence
(from the game's phrase bank, ``PHRASES`` of its ``profile_source``) extends it without
contradicting it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from collabrl.profiles.schema import TRAITS, TYPE_ANCHORS, Profile

PhraseBank = Mapping[tuple[str, str], Sequence[str]]  # (trait, new level) -> verb phrases

_ONE = (
    "They also {a}.",
    "On top of that, they {a}.",
    "In addition, they {a}.",
    "Beyond that, they {a}.",
)
_TWO = (
    "They also {a}; on top of that, they {b}.",
    "In addition, they {a}; they also {b}.",
    "Beyond that, they {a}; they also tend to {b}.",
)
_NEIGHBOURS = {
    "low": ("medium",),
    "medium": ("low", "high"),
    "high": ("medium",),
    "unknown": ("low", "medium", "high"),
}


def perturb(
    source: Profile,
    *,
    phrases: PhraseBank,
    new_id: str,
    task: str,
    split: str,
    rng: random.Random,
    taken: set[str],
) -> Profile:
    """A new profile for ``task``: ``source`` with one or two free traits moved one level, the
    habit each move implies drawn from ``phrases``.

    ``taken`` holds behaviours already used; the result's behaviour is new and is added to it.
    """
    free = [t for t in TRAITS if t not in TYPE_ANCHORS[source.player_type]]
    levels = source.big_five.model_dump()
    for _ in range(200):
        changed = {
            t: rng.choice(_NEIGHBOURS[levels[t]]) for t in rng.sample(free, rng.choice((1, 2)))
        }
        added = [rng.choice(phrases[item]) for item in changed.items()]
        lead = rng.choice(_ONE if len(added) == 1 else _TWO)
        behavior = f"{source.behavior} {lead.format(a=added[0], b=added[-1])}"
        if behavior not in taken and len(behavior) <= 420:
            break
    else:
        raise RuntimeError(f"no fresh perturbation left for {source.id}")
    taken.add(behavior)
    return Profile.model_validate(
        {
            **source.model_dump(),
            "id": new_id,
            "task": task,
            "split": split,
            "big_five": {**levels, **changed},
            "behavior": behavior,
            "provenance": f"perturbed:{source.id}",
        }
    )
