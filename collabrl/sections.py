"""The base of every settings section (recipe sections and each game's ``game:`` section).

It sits below the games so that a game can declare its own recipe section (see
:class:`collabrl.envs.registry.GameSection`) without importing the recipe module above it.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt

from collabrl.settings_files import clip

# Upper bounds on sizes: far above any real run, but finite, so that a typo such as
# rollout.groups=99999999999999999999999 is a one-line error at lint, not a run that allocates
# until the machine dies.
MAX_TICKS = 100_000  # ticks or decisions per episode (the paper: 250-400 ticks, 50 decisions)
MAX_SEATS = 64  # seats of one game (CollabBench: 1 agent + 0-3 teammates)
MAX_NEW_TOKENS = 131_072  # tokens per response: the longest context windows of today's models
MAX_PROMPT_TOKENS = 1_048_576  # prompt tokens
MAX_GROUPS = 4_096  # rollout groups, and episodes per group (the paper: 4 x 8)
MAX_ITERATIONS = 10**7  # training iterations, optimizer steps, checkpoint intervals
MAX_EPISODES = 10**6  # episodes of one ``collabrl play``
MAX_BATCH = 1_048_576  # samples per mini-batch or micro-batch
MAX_EPOCHS = 1_000  # passes over one iteration's samples
MAX_LORA_RANK = 65_536  # above every model's hidden size
MAX_SEED = 2**32 - 1  # numpy and torch take seeds in [0, 2**32)
MAX_EVAL_SEEDS = 1_000  # seeds per evaluation (CollabBench: 1)
MAX_EVAL_PROFILES = 10_000  # profiles per task (the shipped test split has a few dozen)
MAX_WORKERS = 1_024  # episodes played concurrently
MAX_POLICY_RETRIES = 5  # extra attempts after an unusable policy reply


class Strict(BaseModel):
    """Base for settings sections: unknown keys are errors, values are checked on assignment,
    no float may be NaN or infinite, and the docstring line under each field is its
    documentation (``collabrl lint --explain`` prints it beside the value)."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )


def _distinct(seats: list[str]) -> list[str]:
    """Seats are addressed by name (players, messages, records): two equal names would merge."""
    repeated = sorted(name for name, n in Counter(seats).items() if n > 1)
    if repeated:
        raise ValueError(f"seat names must be distinct; repeated: {clip(repr(repeated))}")
    return seats


SeatNames = Annotated[
    list[Annotated[str, Field(min_length=1)]],
    Field(min_length=1, max_length=MAX_SEATS),
    AfterValidator(_distinct),
]
"""A game's seat names: one to MAX_SEATS distinct, non-empty names."""

Seed = Annotated[StrictInt, Field(ge=0, le=MAX_SEED)]
"""A random seed: 0 <= seed < 2**32 (numpy and torch seed from it)."""

PolicySeat = Literal[1, 2]
"""A seat the evaluated policy plays: 1 (Agent 1) or 2 (Agent 2)."""
