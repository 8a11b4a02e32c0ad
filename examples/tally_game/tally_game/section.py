"""The tally game's recipe section: everything collabrl learns about the game (its registry entry)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, field_validator

from collabrl.envs.registry import GameSection, Split, known_task
from collabrl.envs.step_efficiency import step_efficiency
from collabrl.sections import SeatNames
from tally_game.game import TIME_LIMIT, VERSION, TallyGame
from tally_game.tasks import DEFAULT_TASK, TEST_TASKS, TRAIN_TASKS, get_task

FREE_STEPS = 4  # two experts need 3-7 ticks: messages, the counting, the finish
EFFICIENCY_RATE = 0.1  # decay per step beyond FREE_STEPS


class TallySection(GameSection):
    """Tally: two seats count a shared tally up to the sum of their secret numbers."""

    name: Literal["tally"] = "tally"
    """The game: tally."""
    task: str = DEFAULT_TASK
    """A tally task, e.g. "s3-5" (the seats' secrets); TallySection.tasks lists them."""
    seats: SeatNames = Field(default_factory=lambda: ["Ann", "Bo"])
    """The two seats, in turn order."""
    max_ticks: PositiveInt = TIME_LIMIT
    """Ticks per episode (one decision per tick)."""
    free_steps: NonNegativeInt = FREE_STEPS
    """Steps a successful episode may take and still earn the full efficiency reward (collabrl.envs.step_efficiency)."""
    efficiency_rate: PositiveFloat = EFFICIENCY_RATE
    """Decay of the efficiency reward per step beyond free_steps."""

    title: ClassVar[str] = "Tally (count to a hidden total)"
    description: ClassVar[str] = (
        "a turn-taking counting game: each player holds a secret number, and the team must bring "
        "a shared tally to exactly the sum of all secrets by adding 1 or 2 per turn, then say "
        "finish; a message uses the player's turn."
    )
    efficiency_metric: ClassVar[str] = "steps"
    lower_is_better: ClassVar[bool] = True
    version: ClassVar[int] = VERSION
    expert: ClassVar[str | None] = "tally_game.expert:TallyExpert"

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return known_task(get_task, task)

    @field_validator("seats")
    @classmethod
    def _two_seats(cls, seats: list[str]) -> list[str]:
        if len(seats) != 2:
            raise ValueError(f"tally takes 2 seats, got {len(seats)}")
        return seats

    def make_game(self) -> TallyGame:
        return TallyGame(self.task, seats=self.seats, max_ticks=self.max_ticks)

    def efficiency(self, summary: dict[str, Any]) -> float:
        return step_efficiency(summary, free_steps=self.free_steps, rate=self.efficiency_rate)

    @classmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        return TRAIN_TASKS if split == "train" else TEST_TASKS

    @classmethod
    def task_summary(cls, task: str) -> str:
        secrets = get_task(task).secrets
        return f"secrets {' and '.join(map(str, secrets))}: count to {sum(secrets)}"
