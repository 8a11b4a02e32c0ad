"""The kitchen game's recipe section and its entry in the game registry."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, PositiveFloat, ValidationInfo, field_validator, model_validator

from collabrl.envs.kitchen.game import (
    DEFAULT_GATED,
    EVAL_HORIZON,
    GATEABLE,
    TRAIN_HORIZON,
    VERSION,
    KitchenGame,
)
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, LayoutName, load_layout
from collabrl.envs.opening import Opening
from collabrl.envs.registry import GameSection, OverallStd, Split
from collabrl.envs.structures import Structure, check_gate_owners, replay_options
from collabrl.numbers import PositiveInt
from collabrl.sections import MAX_TICKS, SeatNames

EFFICIENCY_SCALE = 100.0  # score / scale is the efficiency reward (a 3-onion soup pays 20)


class KitchenSection(GameSection):
    """Cook-MultiPlayer: one Overcooked layout."""

    name: Literal["kitchen"] = "kitchen"
    """The game: kitchen."""
    layout: LayoutName = "cramped_room"
    """The Overcooked layout (the kitchen's task)."""
    seats: SeatNames = Field(default_factory=lambda: ["Player 0", "Player 1"])
    """One seat per chef start of the layout."""
    horizon: PositiveInt = Field(EVAL_HORIZON, le=MAX_TICKS)
    """Ticks per episode."""
    cooking: Literal["auto", "interact"] = "auto"
    """Auto: a full pot starts cooking by itself."""
    motion: Literal["reference", "cooperative"] = "reference"
    """Reference: the paper's skill controller (ProAgent's; chefs may block each other for good); cooperative: collabrl's (reserved paths, stepping aside, giving up, pickup(soup))."""
    action_set: Literal["paper", "released"] = "paper"
    """Paper: wait(x) offered on every layout (the Cook skills of the paper's prompts); released: the released ProAgent evaluation agent's per-layout action table, no wait(x) on cramped_room and counter_circuit (a wait chosen there is an action not offered: one idle tick, invalid)."""
    holdings: Literal["released", "always"] = "released"
    """Whether seats see their teammates' held items: released (the released ProAgent code; the paper is silent): hidden on forced_coordination, shown elsewhere; always: on every layout."""
    opening: Opening = "none"
    """How the chat opens: none (the paper's Cook prompts and the released code start with an empty chat and ask for no greeting), seeded (a two-line exchange at tick 0, costing no time, like the household's E.5/E.6 one) or first_decision (every simulated player greets with a message at its first decision, one tick: collabrl's earlier behaviour)."""
    motion_seats: list[str] = Field(default_factory=list)
    """Seats that choose a low-level move every tick (north, south, east, west, stay, interact) instead of a skill: the level the human proxy (partner.kind=human_proxy) plays at; empty: every seat decides skills."""
    efficiency_scale: PositiveFloat = EFFICIENCY_SCALE
    """Efficiency reward = score / this."""
    structure: Structure = "default"
    """Collaboration structure: default, memory (group-memory board), gates (approval gates with preassigned owners) or scaffolded (board + gates whose owners the team chooses)."""
    gated: list[Literal[GATEABLE]] = Field(default_factory=lambda: list(DEFAULT_GATED))  # type: ignore[valid-type]
    """Skills approval gates cover (e.g. deliver_soup())."""
    gate_owners: dict[str, str] = Field(default_factory=dict)
    """Structure gates: gated skill -> the seat that approves it (default: the second seat)."""

    title: ClassVar[str] = "Cook-MultiPlayer (kitchen)"
    description: ClassVar[str] = (
        "an Overcooked-style kitchen: two chefs put three onions in a pot, the soup cooks, then "
        "someone fills a dish and delivers it for points; each chef carries one item, and sending "
        "a message costs one time step."
    )
    task_key: ClassVar[str] = "layout"
    efficiency_metric: ClassVar[str] = "score"
    lower_is_better: ClassVar[bool] = False
    eval_options: ClassVar[dict[str, Any]] = {"horizon": EVAL_HORIZON}
    version: ClassVar[int] = VERSION
    paper_table: ClassVar[int | None] = 7
    task_std_ddof: ClassVar[int] = 1  # Table 7's per-layout Std. are sample stds
    overall_std: ClassVar[OverallStd] = "task_mean"  # Table 1's Cook Std.: their mean
    expert: ClassVar[str | None] = "collabrl.envs.kitchen.expert:KitchenExpert"
    persona: ClassVar[str | None] = "collabrl.agents.persona.kitchen:KitchenPersona"
    events: ClassVar[str | None] = "collabrl.envs.kitchen.events:own_events"
    board: ClassVar[str | None] = "collabrl.envs.kitchen.board:BOARD"
    speech: ClassVar[str | None] = "collabrl.agents.persona.kitchen_chat:speech_reader"
    profile_games: ClassVar[dict[str, Any] | None] = {"horizon": TRAIN_HORIZON}
    profile_coefficients: ClassVar[tuple[float, float, float] | None] = (0.1, 0.1, 0.01)  # D.1.2
    profile_source: ClassVar[str | None] = "collabrl.envs.kitchen.profile_source"
    human_partners: ClassVar[str | None] = "collabrl.envs.kitchen.human_partners:HUMAN_PARTNERS"

    @property
    def task(self) -> str:
        """The layout (the kitchen's task)."""
        return self.layout

    @field_validator("seats")
    @classmethod
    def _one_seat_per_start(cls, seats: list[str], info: ValidationInfo) -> list[str]:
        """A layout has one chef start per seat; any other count fails when the game starts."""
        if "layout" not in info.data:  # absent when the layout itself is invalid
            return seats
        layout = info.data["layout"]
        starts = len(load_layout(layout).starts)
        if len(seats) != starts:
            raise ValueError(
                f"layout {layout!r} has {starts} chef starts, so it needs {starts} seats, "
                f"got {len(seats)}"
            )
        return seats

    @model_validator(mode="after")
    def _gate_owners_fit(self) -> KitchenSection:
        check_gate_owners(self.gate_owners, self.gated, self.seats, kind="skill")
        return self

    @model_validator(mode="after")
    def _motion_seats_are_seats(self) -> KitchenSection:
        strangers = [s for s in self.motion_seats if s not in self.seats]
        if strangers:
            raise ValueError(f"motion_seats: {strangers[0]!r} is not one of the seats {self.seats}")
        return self

    def make_game(self) -> KitchenGame:
        return KitchenGame(
            self.layout,
            seats=self.seats,
            horizon=self.horizon,
            cook_mode=self.cooking,
            motion=self.motion,
            action_set=self.action_set,
            holdings=self.holdings,
            opening=self.opening,
            motion_seats=self.motion_seats,
            structure=self.structure,
            gated=self.gated,
            gate_owners=self.gate_owners,
        )

    def with_team(self, seats: int, structure: str) -> KitchenSection:
        """Any structure; the team stays one chef per start of the layout."""
        if seats != len(self.seats):
            raise ValueError(f"the kitchen layout {self.layout!r} seats {len(self.seats)} chefs")
        return type(self).model_validate({**self.model_dump(), "structure": structure})

    def efficiency(self, summary: dict[str, Any]) -> float:
        return summary["score"] / self.efficiency_scale

    @classmethod
    def tick_limit(cls, game: KitchenGame) -> int:  # type: ignore[override]
        return game.horizon

    @classmethod
    def from_summary(cls, summary: dict[str, Any]) -> KitchenSection:
        """The summary holds every option, and its per-seat counts name the seats in order."""
        return cls(
            layout=summary["layout"],
            seats=list(summary["decisions"]),
            horizon=summary["horizon"],
            cooking=summary["cook_mode"],
            motion=summary["motion"],
            # summaries of version 1 had neither option: wait everywhere, holdings always shown
            action_set=summary.get("action_set", "paper"),
            holdings=summary.get("holdings", "always"),
            opening=summary.get("opening", "first_decision"),  # earlier summaries: no seeded lines
            motion_seats=summary.get("motion_seats", []),
            **replay_options(summary),
        )

    @classmethod
    def tasks(cls, split: Split) -> tuple[str, ...]:
        """Every layout holds both train and test profiles (as in CollabBench)."""
        return tuple(LAYOUT_NAMES)
