"""The analysis game's recipe section and its entry in the game registry."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from collabrl.envs.analysis.game import ROLES, TIME_LIMIT, VERSION, AnalysisGame
from collabrl.envs.analysis.tasks import Role, get_task, task_names
from collabrl.envs.registry import GameSection, Split, known_task
from collabrl.numbers import PositiveInt
from collabrl.sections import MAX_TICKS, SeatNames

DEFAULT_SEATS = ("Ada", "Bea", "Cy")


class AnalysisSection(GameSection):
    """Shared-workspace data analysis: a team turns distributed expertise into a hypothesis."""

    name: Literal["analysis"] = "analysis"
    """The game: analysis."""
    task: str = "arch-train-01"
    """An analysis task name (collabrl tasks --game analysis lists them)."""
    seats: SeatNames = Field(default_factory=lambda: list(DEFAULT_SEATS[:2]))
    """1 to 3 seats; the first leads the analysis in scripted play."""
    roles: list[Role] | None = None
    """The expertise of each seat (chronology, materials, statistics); default statistics, chronology, materials in seat order."""
    max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    """Ticks per episode (every decision takes one)."""
    pandas_code: bool = False
    """Also offer python(<code>): real pandas cells in a sandboxed subprocess (time, memory and output limits, no network, no files beyond the tables; a best-effort sandbox, Linux only). Off by default."""

    title: ClassVar[str] = "Shared-workspace data analysis (archaeology)"
    description: ClassVar[str] = (
        "a data-analysis game: team members with different expertise (chronology, materials, "
        "statistics) share a notebook of table operations, a hypothesis editor and a chat, and "
        "submit one hypothesis answering a research query, scored against the correct one; each "
        "member's notes can change the right answer, and every action, a message included, "
        "takes one time step."
    )
    efficiency_metric: ClassVar[str] = "score"
    lower_is_better: ClassVar[bool] = False
    efficiency_title: ClassVar[str | None] = "HMS ↑"
    extra_metrics: ClassVar[tuple[tuple[str, str], ...]] = (
        ("performance", "Performance ↑"),
        ("steps", "Steps ↓"),
    )
    version: ClassVar[int] = VERSION
    expert: ClassVar[str | None] = "collabrl.envs.analysis.expert:AnalysisExpert"

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return known_task(get_task, task)

    @model_validator(mode="after")
    def _team_fits(self) -> AnalysisSection:
        if not 1 <= len(self.seats) <= len(ROLES):
            raise ValueError(f"the analysis game takes 1-{len(ROLES)} seats, got {len(self.seats)}")
        if self.roles is not None and len(self.roles) != len(self.seats):
            raise ValueError(f"roles has {len(self.roles)} entries for {len(self.seats)} seats")
        return self

    def make_game(self) -> AnalysisGame:
        task = get_task(self.task)
        return AnalysisGame(task, self.seats, self.roles, self.max_ticks, self.pandas_code)

    def with_team(self, seats: int, structure: str) -> AnalysisSection:
        """Any team of 1-3 seats, default structure only (the workspace is the team's memory)."""
        if structure != "default":
            raise ValueError("the analysis game has only the default collaboration structure")
        names = self.seats[:seats] if seats <= len(self.seats) else list(DEFAULT_SEATS[:seats])
        roles = self.roles[:seats] if self.roles and seats <= len(self.roles) else None
        return type(self).model_validate({**self.model_dump(), "seats": names, "roles": roles})

    def efficiency(self, summary: dict[str, Any]) -> float:
        """The submission's hypothesis match score (0 when time ran out)."""
        return float(summary["score"])

    @classmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        return task_names(split)

    @classmethod
    def task_summary(cls, task: str) -> str:
        spec = get_task(task)
        traps = ", ".join(t.kind for t in spec.traps) or "no traps"
        return f"{spec.query} ({traps})"
