"""The household game's recipe section and its entry in the game registry."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, field_validator, model_validator

from collabrl.envs.household.game import (
    DEFAULT_GATED,
    MOVE_KINDS,
    PAPER_TRAINING_TICKS,
    TIME_LIMIT,
    TRAINING_DECISIONS,
    VERSION,
    HouseholdGame,
    default_seats,
)
from collabrl.envs.household.tasks import get_task, load_tasks
from collabrl.envs.opening import Opening
from collabrl.envs.registry import GameSection, Split, known_task
from collabrl.envs.step_efficiency import step_efficiency
from collabrl.envs.structures import Structure, check_gate_owners
from collabrl.numbers import PositiveInt
from collabrl.sections import MAX_TICKS, SeatNames

FREE_STEPS = 40  # an episode this short earns the full efficiency reward (the paper's 40 steps)
EFFICIENCY_RATE = 0.025  # decay per step beyond FREE_STEPS (the paper's 0.025)
TRAINING_LIMITS: dict[str, dict[str, Any]] = {
    # the paper (D.1.3): "each episode allows up to 150 environment steps"; no decision cap
    # beyond that (every decision costs a tick, so 150 decisions never bind)
    "paper": {
        "max_ticks": PAPER_TRAINING_TICKS,
        "max_decisions": PAPER_TRAINING_TICKS,
        "capped_seat": None,
    },
    # the released CWAH training: 250 ticks, and verl-agent's env.max_steps=50 rollout rounds,
    # one policy generation each, so only the policy's (first seat's) decisions are counted
    "code": {"max_ticks": TIME_LIMIT, "max_decisions": TRAINING_DECISIONS, "capped_seat": 0},
}


class HouseholdSection(GameSection):
    """CWAH-MultiPlayer: one household task, played by ``len(seats)`` seats."""

    name: Literal["household"] = "household"
    """The game: household."""
    task: str = "0_read_book"
    """A household task name (collabrl tasks lists them)."""
    seats: SeatNames = Field(default_factory=lambda: ["Alice", "Bob"])
    """Seat names, one per player (any number)."""
    max_ticks: PositiveInt = Field(TIME_LIMIT, le=MAX_TICKS)
    """Ticks per episode."""
    max_decisions: PositiveInt = Field(TRAINING_DECISIONS, le=MAX_TICKS)
    """Decisions per seat and episode (training's limit; evaluation sets a safety cap instead)."""
    capped_seat: NonNegativeInt | None = None
    """Index of the one seat whose decisions max_decisions counts (the policy's, rollout.target_seat, as the released code counts only its policy's); None: every seat's, so any seat reaching the cap ends the episode, a chatty partner included."""
    limits: Literal["paper", "code"] | None = None
    """Training episode limits by source (sets max_ticks, max_decisions, capped_seat; naming them too is an error unless equal): paper = up to 150 ticks (D.1.3), no decision cap beyond them; code = the released CWAH training, 250 ticks and 50 decisions of the policy's seat (the first); None: the three fields as given."""
    free_steps: NonNegativeInt = FREE_STEPS
    """Steps a successful episode may take and still earn the full efficiency reward (collabrl.envs.step_efficiency)."""
    efficiency_rate: PositiveFloat = EFFICIENCY_RATE
    """Decay of the efficiency reward per step beyond free_steps."""
    structure: Structure = "default"
    """Collaboration structure: default, memory (group-memory board), gates (approval gates with preassigned owners) or scaffolded (board + gates whose owners the team chooses)."""
    gated: list[Literal[MOVE_KINDS]] = Field(default_factory=lambda: list(DEFAULT_GATED))  # type: ignore[valid-type]
    """Action kinds approval gates cover (explore, check, grab, put)."""
    gate_owners: dict[str, str] = Field(default_factory=dict)
    """Structure gates: gated kind -> the seat that approves it (default: the second seat)."""
    guidance: bool = False
    """Teammates (every seat but the trained or evaluated one, in seat order) hold the task's shipped private guidance, one pack each."""
    opening: Opening = "seeded"
    """How the conversation opens: seeded (the paper's two-line exchange, E.5/E.6: the first seat promises to report finds and finished subgoals and to ask for help, the others answer in kind; in the dialogue at tick 0, costing no time), first_decision (every simulated player greets with a message at its first decision, one tick: collabrl's earlier behaviour) or none."""

    title: ClassVar[str] = "CWAH-MultiPlayer (household)"
    description: ClassVar[str] = (
        "a household game: two players search the rooms and containers of an apartment for goal "
        "objects and carry them to target places; each holds at most two objects, every action "
        "takes game time, and sending a message costs one time step."
    )
    efficiency_metric: ClassVar[str] = "steps"
    lower_is_better: ClassVar[bool] = True
    efficiency_title: ClassVar[str | None] = "Step ↓"  # the paper's heading
    # CWAH evaluation has only the tick limit; the decision cap is a safety net that a decision
    # costing at least one tick cannot reach in an ordinary episode (it ends as "stalled")
    eval_options: ClassVar[dict[str, Any]] = {"max_ticks": TIME_LIMIT, "max_decisions": TIME_LIMIT}
    version: ClassVar[int] = VERSION
    paper_table: ClassVar[int | None] = 6
    board: ClassVar[str | None] = "collabrl.envs.household.board:BOARD"  # the room map
    expert: ClassVar[str | None] = "collabrl.envs.household.expert:HouseholdExpert"
    persona: ClassVar[str | None] = "collabrl.agents.persona.household:HouseholdPersona"
    events: ClassVar[str | None] = "collabrl.envs.household.events:own_events"
    speech: ClassVar[str | None] = "collabrl.envs.household.messages:speech_reader"
    profile_games: ClassVar[dict[str, Any] | None] = {"task": "1_read_book"}  # a training task
    profile_coefficients: ClassVar[tuple[float, float, float] | None] = (0.5, 0.1, 0.1)  # D.1.2
    profile_source: ClassVar[str | None] = "collabrl.envs.household.profile_source"

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        return known_task(get_task, task)

    @model_validator(mode="before")
    @classmethod
    def _training_limits(cls, data: Any) -> Any:
        """``limits`` fills max_ticks, max_decisions and capped_seat from its source; a value
        given beside it that differs would be silently overridden, so it is an error."""
        if not isinstance(data, dict) or data.get("limits") not in TRAINING_LIMITS:
            return data
        preset = TRAINING_LIMITS[data["limits"]]
        for key, value in preset.items():
            if key in data and data[key] != value:
                raise ValueError(
                    f"limits={data['limits']} sets {key}={value}; drop {key}, or set "
                    "limits: null to choose max_ticks, max_decisions and capped_seat yourself"
                )
        return {**data, **preset}

    @model_validator(mode="after")
    def _gate_owners_fit(self) -> HouseholdSection:
        check_gate_owners(self.gate_owners, self.gated, self.seats)
        if self.capped_seat is not None and self.capped_seat >= len(self.seats):
            raise ValueError(
                f"capped_seat {self.capped_seat} is not a seat index (seats: {self.seats})"
            )
        return self

    def make_game(self) -> HouseholdGame:
        return HouseholdGame(
            self.task,
            seats=self.seats,
            max_ticks=self.max_ticks,
            max_decisions=self.max_decisions,
            capped_seat=self.capped_seat,
            opening=self.opening,
            structure=self.structure,
            gated=self.gated,
            gate_owners=self.gate_owners,
        )

    def with_team(self, seats: int, structure: str) -> HouseholdSection:
        """Any team size: the first seats of this section, then Alice, Bob, ... names."""
        names = self.seats[:seats] if seats <= len(self.seats) else list(default_seats(seats))
        owners = {k: o for k, o in self.gate_owners.items() if o in names}
        data = {**self.model_dump(), "seats": names, "structure": structure, "gate_owners": owners}
        return type(self).model_validate(data)

    def efficiency(self, summary: dict[str, Any]) -> float:
        return step_efficiency(summary, free_steps=self.free_steps, rate=self.efficiency_rate)

    @classmethod
    def task_summary(cls, task: str) -> str:
        return get_task(task).goal_text

    @classmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        return tuple(t.name for t in load_tasks(split))
