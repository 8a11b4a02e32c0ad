"""The profile record: Big Five levels plus an observable play style, tied to one task and split."""

from __future__ import annotations

import unicodedata
from typing import Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from collabrl.profiles.guidance import Guidance
from collabrl.profiles.tasks import check_task

Level = Literal["low", "medium", "high", "unknown"]
Split = Literal["train", "test"]
PlayerType = Literal[
    "efficient_collaborator",
    "hesitant_laggard",
    "anxious_doubter",
    "proactive_leader",
    "independent_loner",
]
TRAITS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
PLAYER_TYPES: tuple[PlayerType, ...] = get_args(PlayerType)

# The traits that define each player type and the levels they may take; the other traits vary
# freely (and are the ones perturbation changes).
TYPE_ANCHORS: dict[str, dict[str, tuple[Level, ...]]] = {
    "efficient_collaborator": {"conscientiousness": ("high",), "agreeableness": ("high", "medium")},
    "hesitant_laggard": {"conscientiousness": ("low", "medium"), "extraversion": ("low", "medium")},
    "anxious_doubter": {"neuroticism": ("high",)},
    "proactive_leader": {"extraversion": ("high",), "conscientiousness": ("high", "medium")},
    "independent_loner": {"extraversion": ("low", "medium"), "agreeableness": ("low", "medium")},
}

# How each level shows up, in words a player or judge prompt can use directly.
_TRAIT_WORDS: dict[str, dict[str, str]] = {
    "openness": {
        "high": "curious and eager to try new routes and ideas",
        "medium": "open to new ideas when they look useful",
        "low": "attached to familiar routines",
    },
    "conscientiousness": {
        "high": "careful, organised and thorough",
        "medium": "fairly organised without being meticulous",
        "low": "casual about plans and details, easily sidetracked",
    },
    "extraversion": {
        "high": "talkative and quick to speak up",
        "medium": "speaks up when there is a reason to",
        "low": "quiet and reserved, keeping messages to a minimum",
    },
    "agreeableness": {
        "high": "warm, cooperative and accommodating",
        "medium": "cooperative but willing to push back",
        "low": "blunt and self-directed, slow to accommodate others",
    },
    "neuroticism": {
        "high": "easily worried and unsettled by setbacks",
        "medium": "sometimes tense under pressure",
        "low": "calm and steady under pressure",
    },
}


class BigFive(BaseModel):
    """Five trait levels; "unknown" means the source did not pin the trait down."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    openness: Level
    conscientiousness: Level
    extraversion: Level
    agreeableness: Level
    neuroticism: Level


class Profile(BaseModel):
    """One simulated partner: who they are (Big Five) and how they visibly play one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=120, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    game: str  # a registered game (checked with the task and split)
    task: str
    big_five: BigFive
    behavior: str = Field(min_length=20, max_length=420)
    player_type: PlayerType
    split: Split
    provenance: str = Field(pattern=r"^[a-z][a-z_-]*(:\S+)?$")
    guidance: Guidance | None = None  # private task knowledge (collabrl.profiles.guidance)

    @field_validator("task", "behavior", "provenance")
    @classmethod
    def _printable(cls, text: str) -> str:
        """Reject control characters other than newline and tab. Why: profile text goes
        verbatim into prompts, logs and terminals, where a NUL or an escape sequence silently
        truncates, hides or rewrites what a reader sees."""
        for position, char in enumerate(text):
            if char not in "\n\t" and unicodedata.category(char) == "Cc":
                raise ValueError(
                    f"control character U+{ord(char):04X} at position {position}; "
                    "only printable text is allowed"
                )
        return text

    @field_validator("behavior")
    @classmethod
    def _one_clean_line(cls, text: str) -> str:
        if text != text.strip() or "\n" in text:
            raise ValueError("behavior must be a single line without surrounding spaces")
        return text

    @model_serializer(mode="wrap")
    def _without_absent_guidance(self, handler: SerializerFunctionWrapHandler) -> dict:
        """A profile without guidance serialises as it did before the field existed, so shipped
        files and pipeline outputs stay byte-identical."""
        data = handler(self)
        if self.guidance is None:
            data.pop("guidance", None)
        return data

    @model_validator(mode="after")
    def _task_fits(self) -> Profile:
        check_task(self.game, self.task, self.split)
        return self

    def persona(self) -> str:
        """The profile as one paragraph for a player or judge prompt: traits, then play style,
        then any private guidance (so only the seat playing this profile reads it)."""
        levels = self.big_five.model_dump()
        known = [
            f"{trait} {level} ({_TRAIT_WORDS[trait][level]})"
            for trait, level in levels.items()
            if level != "unknown"
        ]
        unknown = [trait for trait, level in levels.items() if level == "unknown"]
        parts = [f"Personality (Big Five): {'; '.join(known)}."] if known else []
        if unknown:
            parts.append(f"Not specified: {', '.join(unknown)}.")
        parts.append(f"Observed play style: {self.behavior}")
        if self.guidance is not None:
            parts.append(self.guidance.private_text())
        return " ".join(parts)

    def with_guidance(self, guidance: Guidance | None) -> Profile:
        """This profile holding ``guidance`` (None: as it is)."""
        return self if guidance is None else self.model_copy(update={"guidance": guidance})


def interleaved_by_type(profiles: list[Profile]) -> list[Profile]:
    """Reorder so consecutive profiles differ in player type; any prefix then spans the types."""
    rank: dict[str, int] = {}
    keyed = []
    for p in profiles:
        rank[p.player_type] = rank.get(p.player_type, 0) + 1
        keyed.append(((rank[p.player_type], PLAYER_TYPES.index(p.player_type)), p))
    return [p for _, p in sorted(keyed, key=lambda item: item[0])]
