"""The analysis game's recipe section and its entry in the game registry."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from collabrl.envs.analysis.expertise import PROFILES, Profile
from collabrl.envs.analysis.game import (
    BUILD_TICKS,
    DEFAULT_GATED,
    GATE_KINDS,
    ROLES,
    TIME_LIMIT,
    VERSION,
    AnalysisGame,
    check_team,
)
from collabrl.envs.analysis.scoring import Scorer
from collabrl.envs.analysis.tasks import Role, get_task, task_names
from collabrl.envs.registry import GameSection, Split, known_task
from collabrl.envs.structures import Structure, check_gate_owners
from collabrl.numbers import NonNegativeInt, PositiveInt
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
    teammates: list[Profile] | None = None
    """Compose the team by collaborator profile instead of roles: the agent, then one seat per profile (D: data analysis, R: researcher; e.g. [D, R]); seats default to that many names."""
    structure: Structure = "default"
    """Collaboration structure: default, memory (group-memory board with a build phase), gates (approval gates with preassigned owners) or scaffolded (board + gates the team chooses in the build phase)."""
    gated: list[Literal[GATE_KINDS]] = Field(default_factory=lambda: list(DEFAULT_GATED))  # type: ignore[valid-type]
    """Action kinds a gate may cover: edit (the hypothesis), submit, run."""
    gate_owners: dict[str, str] = Field(default_factory=dict)
    """Structure gates: gated kind -> the seat that approves it (default: edits R, submit and runs D in a profiled team, else the second seat)."""
    build_ticks: NonNegativeInt = Field(BUILD_TICKS, le=MAX_TICKS)
    """Ticks of the group-memory build phase before the task (board structures; the board is fixed afterwards). 0: no build phase, the board stays writable (the household's rule)."""
    max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    """Ticks per episode (every decision takes one)."""
    reliability: dict[Profile, float] = Field(default_factory=dict)
    """Collaborator profile -> the chance that each trap note a collaborator of it holds is right (default 1.0): a wrong note, drawn per episode seed, endorses the trap's naive step, and its holder believes and tells it (e.g. {D: 0.7, R: 0.7})."""
    scorer: Scorer = "claims"
    """How a submission is scored against the gold: claims (facet by facet, a paraphrase of a claim matches, a changed number, direction, order or negation does not) or exact (normalised strings must be equal)."""
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
    collaborator_profiles: ClassVar[tuple[str, ...]] = PROFILES
    trace_judge: ClassVar[str | None] = "collabrl.envs.analysis.workflow:trace_judgements"
    trace_task: ClassVar[str | None] = "collabrl.envs.analysis.tasks:get_task"
    efficiency_metric: ClassVar[str] = "score"
    lower_is_better: ClassVar[bool] = False
    efficiency_title: ClassVar[str | None] = "HMS ↑"
    extra_metrics: ClassVar[tuple[tuple[str, str], ...]] = (
        ("performance", "Performance ↑"),
        ("steps", "Steps ↓"),
    )
    hypothesis_gold: ClassVar[str | None] = "collabrl.envs.analysis.tasks:get_task"
    version: ClassVar[int] = VERSION
    expert: ClassVar[str | None] = "collabrl.envs.analysis.expert:AnalysisExpert"
    persona: ClassVar[str | None] = "collabrl.agents.persona.analysis:AnalysisPersona"
    profile_source: ClassVar[str | None] = "collabrl.envs.analysis.profile_source"

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return known_task(get_task, task)

    @model_validator(mode="before")
    @classmethod
    def _seats_for_teammates(cls, data: Any) -> Any:
        """A profiled team names its profiles; its seats default to that many names."""
        if isinstance(data, dict) and data.get("teammates") is not None and "seats" not in data:
            teammates = data["teammates"]
            if isinstance(teammates, list):
                data = {**data, "seats": list(DEFAULT_SEATS[: 1 + len(teammates)])}
        return data

    @model_validator(mode="after")
    def _team_fits(self) -> AnalysisSection:
        if not 1 <= len(self.seats) <= len(ROLES):
            raise ValueError(f"the analysis game takes 1-{len(ROLES)} seats, got {len(self.seats)}")
        if self.roles is not None and len(self.roles) != len(self.seats):
            raise ValueError(f"roles has {len(self.roles)} entries for {len(self.seats)} seats")
        check_gate_owners(self.gate_owners, self.gated, self.seats)
        bad = {p: r for p, r in self.reliability.items() if not 0.0 <= r <= 1.0}
        if bad:
            raise ValueError(f"reliability must lie in 0..1, got {bad}")
        if self.teammates is not None:
            check_team(self.seats, self.teammates, self.roles)
        return self

    def make_game(self) -> AnalysisGame:
        return AnalysisGame(
            get_task(self.task),
            self.seats,
            self.roles,
            self.max_ticks,
            self.pandas_code,
            teammates=self.teammates,
            structure=self.structure,
            gated=self.gated,
            gate_owners=self.gate_owners,
            build_ticks=self.build_ticks,
            scorer=self.scorer,
            reliability=self.reliability,
        )

    def with_team(self, seats: int, structure: str) -> AnalysisSection:
        """Any team of 1-3 seats under any structure; a profiled team keeps its first
        ``seats - 1`` profiles."""
        names = self.seats[:seats] if seats <= len(self.seats) else list(DEFAULT_SEATS[:seats])
        roles = self.roles[:seats] if self.roles and seats <= len(self.roles) else None
        teammates = self.teammates[: seats - 1] if self.teammates is not None else None
        owners = {k: o for k, o in self.gate_owners.items() if o in names}
        data = {
            **self.model_dump(),
            "seats": names,
            "roles": roles,
            "teammates": teammates,
            "structure": structure,
            "gate_owners": owners,
        }
        return type(self).model_validate(data)

    def with_teammates(self, teammates: list[str], structure: str) -> AnalysisSection:
        """This section for the agent and collaborators of profiles ``teammates`` (the
        team-structures study's compositions: [], [D], [R], [D, R]) under ``structure``."""
        owners = {
            k: o for k, o in self.gate_owners.items() if o in DEFAULT_SEATS[: 1 + len(teammates)]
        }
        data = {**self.model_dump(), "roles": None, "teammates": teammates, "structure": structure}
        data.update(seats=list(DEFAULT_SEATS[: 1 + len(teammates)]), gate_owners=owners)
        return type(self).model_validate(data)

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
