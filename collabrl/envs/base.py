"""The small API every collabrl game follows (PettingZoo-style, with asynchronous decisions).

A game has named seats (``agents``). A high-level action runs over several ticks of one shared
clock, so at any moment only some seats are *pending* (idle and owed a decision). ``reset`` and
``step`` return an :class:`Observation` for each pending seat; ``step`` takes one
:class:`Decision` per pending seat and advances the clock until some seat is pending again or the
episode is over.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

MESSAGE_ACTION = "[send_message]"  # the household game's message action (CWAH vocabulary)
MAX_MESSAGE_CHARS = 500


EMPTY_MESSAGE = "the message action needs a non-empty <message>"


def message_text(message: str) -> str:
    """The text a message delivers: whitespace runs collapsed, trimmed, cut to 500 characters."""
    return " ".join(message.split())[:MAX_MESSAGE_CHARS]


def sends_message(action: str | None, message: str, message_action: str) -> bool:
    """Whether a decision sends a message: the game's message action with text left after
    trimming. The one definition games, rewards, training metrics and evaluation all use; a
    message action with an empty message is an invalid decision (the seat idles one tick)."""
    return action == message_action and bool(message_text(message))


def format_response(think: str, message: str, action: str) -> str:
    """A reply in the format every seat answers in (``<think>``, ``<message>``, ``<action>``), as
    scripted players write it; :func:`collabrl.agents.protocol.parse_response` reads it back."""
    return f"<think>{think}</think>\n<message>{message}</message>\n<action>{action}</action>"


@dataclass(frozen=True)
class Decision:
    """What a seat chose: an available action (or None when its response was unusable).

    The message text rides along with every decision but is only delivered when ``action`` is the
    game's message action, as in CollabBench (the model always writes a message, then chooses
    whether to send it).
    """

    action: str | None
    message: str = ""
    think: str = ""
    valid: bool = True


@dataclass
class Observation:
    """Everything a seat gets at a decision point."""

    seat: str
    tick: int
    text: str  # observation text (goal, progress, dialogue, history, lettered actions)
    actions: list[str]  # available actions, in the order they are lettered
    anchor: Hashable  # GiGPO anchor key: own state + known partner state, no dialogue/history
    state: dict[str, Any] = field(default_factory=dict)  # structured form of ``text``
    message_action: str = ""  # the game's message action (see :func:`sends_message`)


@dataclass
class StepResult:
    """What ``Game.step`` returns, PettingZoo-style, keyed by seat."""

    observations: dict[str, Observation]  # only the seats that must decide now
    rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    # per seat that decided: "invalid" (bool), "action" (what runs, or None) and, for an unusable
    # decision, "reason" (why it idles)
    infos: dict[str, dict[str, Any]]


@runtime_checkable
class Game(Protocol):
    """What every collabrl game implements (the whole contract: docs/game-contract.md;
    ``collabrl.envs.check_game`` checks a game against it)."""

    name: str  # the registered name (collabrl.envs.registry): selects the game's section
    agents: list[str]
    message_action: str  # the available action that delivers the <message> text

    @property
    def tick(self) -> int:
        """The shared clock: ticks played so far (the pages' clock runs to the section's
        ``tick_limit``, by default the game's ``max_ticks`` attribute)."""
        ...

    @property
    def progress(self) -> int:
        """Goal units the team has completed so far (household: goal objects in place; kitchen:
        soups served); the optional progress reward pays for increases."""
        ...

    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start an episode; observations only (seat -> Observation for the seats that decide
        first). The PettingZoo adapter (``collabrl.envs.to_parallel_env``) returns
        ``(observations, infos)``."""
        ...

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        """Apply one decision per pending seat; raises ``RuntimeError`` after the episode ends.
        ``collabrl.envs.check_game`` checks a game against this protocol."""
        ...

    @property
    def done(self) -> bool: ...

    def intro(self, seat: str) -> str:
        """Rules and goal for ``seat`` written for a player (used by the prompt builder)."""
        ...

    def summary(self) -> dict[str, Any]:
        """Episode result: success, steps or score, messages, invalid decisions, ..."""
        ...


def letter(index: int) -> str:
    """Letter label of the index-th available action: A..Z, then AA, AB, ..."""
    label = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        label = chr(ord("A") + rem) + label
    return label


def lettered(actions: list[str]) -> str:
    """Render available actions as the lettered list that prompts and parsers share."""
    return "\n".join(f"{letter(i)}. {a}" for i, a in enumerate(actions))
