"""The relay game's recipe section: what collabrl learns about the game through the registry.

Registered in this package's ``pyproject.toml`` under the ``collabrl.games`` entry-point group,
so ``game: {name: relay, ...}`` in a recipe finds it without any edit to collabrl.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, field_validator, model_validator

from collabrl.envs.registry import GameSection, Split, known_task
from collabrl.envs.step_efficiency import step_efficiency
from collabrl.numbers import PositiveInt
from collabrl.sections import MAX_TICKS, SeatNames
from relay_game.game import MIN_SEATS, TIME_LIMIT, VERSION, RelayGame
from relay_game.tasks import DEFAULT_TASK, get_task, task_names

DEFAULT_SEATS = ("Ann", "Ben")
FREE_STEPS = 10  # an episode this short earns the full efficiency reward (experts need 10-20)
EFFICIENCY_RATE = 0.05  # decay per step beyond FREE_STEPS: 20 steps earn about 0.6


class RelaySection(GameSection):
    """Relay: couriers with half a map each carry parcels along a corridor, hand to hand."""

    name: Literal["relay"] = "relay"
    """The game: relay."""
    task: str = DEFAULT_TASK
    """A relay task name, e.g. "r5p2v0" (RelaySection.tasks lists them)."""
    seats: SeatNames = Field(default_factory=lambda: list(DEFAULT_SEATS))
    """2 to rooms-1 seats."""
    max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    """Ticks per episode."""
    free_steps: NonNegativeInt = FREE_STEPS
    """Steps a successful episode may take and still earn the full efficiency reward (collabrl.envs.step_efficiency)."""
    efficiency_rate: PositiveFloat = EFFICIENCY_RATE
    """Decay of the efficiency reward per step beyond free_steps."""

    title: ClassVar[str] = "Relay (couriers with half a map each)"
    description: ClassVar[str] = (
        "a relay game: couriers each walk their own stretch of a corridor and carry parcels to "
        "their destination rooms, handing them over where stretches meet; one courier's map "
        "shows where the parcels lie, the other's where they must go, each carries one parcel "
        "at a time, every action takes game time, and sending a message costs one time step."
    )
    efficiency_metric: ClassVar[str] = "steps"
    lower_is_better: ClassVar[bool] = True
    version: ClassVar[int] = VERSION
    eval_options: ClassVar[dict[str, Any]] = {}  # the benchmark plays the defaults
    expert: ClassVar[str | None] = "relay_game.expert:RelayExpert"
    persona: ClassVar[str | None] = None  # no persona player
    events: ClassVar[str | None] = None  # no judge-event detector

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return known_task(get_task, task)

    @model_validator(mode="after")
    def _seats_fit(self) -> RelaySection:
        """Every seat needs a zone of at least two rooms: a corridor of n rooms seats n - 1."""
        most = get_task(self.task).rooms - 1
        if not MIN_SEATS <= len(self.seats) <= most:
            raise ValueError(
                f"relay task {self.task!r} takes {MIN_SEATS}-{most} seats, got {len(self.seats)}"
            )
        return self

    def make_game(self) -> RelayGame:
        return RelayGame(self.task, seats=self.seats, max_ticks=self.max_ticks)

    def efficiency(self, summary: dict[str, Any]) -> float:
        return step_efficiency(summary, free_steps=self.free_steps, rate=self.efficiency_rate)

    @classmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        return task_names(split)
