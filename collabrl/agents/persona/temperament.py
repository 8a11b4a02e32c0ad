"""Big Five levels -> behaviour knobs, so scripted partners differ the way their profiles say.

Every knob is a probability (or a 0..1 degree) derived deterministically from the profile: a
level maps to 0 (low), 0.5 (medium) or 1 (high); an unknown level sits near medium with a small
jitter seeded from the profile id, so two "unknown" profiles still play a little differently.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

from collabrl.profiles.schema import TRAITS, Profile

LEVELS = {"low": 0.0, "medium": 0.5, "high": 1.0}
UNKNOWN_JITTER = 0.2  # an unknown trait is medium +- this much


def stable_seed(*parts: object) -> int:
    """A process-independent seed from ``parts`` (Python's ``hash`` is salted per process)."""
    return zlib.crc32("|".join(str(p) for p in parts).encode())


def trait_degree(profile: Profile, trait: str) -> float:
    """0..1 degree of ``trait``; an unknown level is medium with a seeded jitter."""
    level = getattr(profile.big_five, trait)
    if level in LEVELS:
        return LEVELS[level]
    jitter = random.Random(stable_seed(profile.id, trait)).uniform(-1.0, 1.0)
    return 0.5 + UNKNOWN_JITTER * jitter


def _lerp(low: float, high: float, x: float) -> float:
    return low + (high - low) * x


@dataclass(frozen=True)
class Temperament:
    """How a persona plays; each field is the probability of one kind of behaviour per decision."""

    talk: float  # pass on news and plans (extraversion; a little agreeableness: sharing)
    chatter: float  # speak up unprompted: instructions, encouragement (extraversion)
    leads: bool  # proposes who does what and hands out requests (extraversion + conscientiousness)
    wordiness: float  # 0..1: how much decoration a message carries (extraversion)
    doubt: float  # ask for reassurance about a teammate's report (neuroticism; less if quiet)
    recheck: float  # go back to a place already seen, just to be sure (neuroticism)
    hesitate: float  # stall before acting (neuroticism, low conscientiousness)
    dawdle: float  # waste a move on something off-task (low conscientiousness)
    slip: float  # choose an action that is not available (low conscientiousness only)
    comply: float  # honour a teammate's request or announced claim (agreeableness)
    initiative: float  # take on the task's work unasked (extraversion, conscientiousness)
    novelty: float  # -1..1: prefer unexplored places and new jobs (+) or familiar ones (-)

    @classmethod
    def from_profile(cls, profile: Profile) -> Temperament:
        """The knobs for ``profile`` (same profile, same knobs, in every process)."""
        o, c, e, a, n = (trait_degree(profile, t) for t in TRAITS)
        talk = _lerp(0.15, 1.0, 0.6 * e + 0.4 * a)
        return cls(
            talk=talk,
            chatter=_lerp(0.0, 0.3, e),
            leads=e >= 0.75 and c >= 0.4,
            wordiness=e,
            doubt=_lerp(0.0, 0.5, n * n) * talk,
            recheck=_lerp(0.0, 0.15, n),
            hesitate=_lerp(0.0, 0.12, n) + _lerp(0.12, 0.0, c),
            dawdle=_lerp(0.4, 0.0, c),
            slip=0.08 * (1.0 - c) ** 2,
            comply=_lerp(0.1, 0.95, a),
            initiative=_lerp(0.05, 0.5, 0.6 * e + 0.4 * c),
            novelty=_lerp(-0.3, 0.3, o),
        )
