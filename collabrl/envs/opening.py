"""How an episode's conversation opens: the paper's seeded exchange, or a greeting that costs a
decision, or nothing.

CollabBench's household prompts (appendix E.5 and E.6, both roles) start the dialogue history
with two fixed lines: the first player promises to report goal objects it finds and subgoals it
finishes and to ask for help when needed, and the second thanks it and promises the same. They
are part of the prompt, so they cost no time. ``seeded`` puts such an exchange (in our words) in
the game's dialogue at tick 0, before any decision; ``first_decision`` has every simulated player
greet with a message at its first decision instead (one tick each: collabrl's behaviour before);
``none`` opens with an empty conversation and no greeting (the paper's kitchen prompts show an
empty chat and ask for no greeting). Games that offer the option take it as a section field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Opening = Literal["seeded", "first_decision", "none"]
OPENINGS: tuple[Opening, ...] = ("seeded", "first_decision", "none")
OPENING_TICK = 0  # the seeded lines are dialogue from before the first decision


def seeded_lines(seats: Sequence[str], greeting: str, reply: str) -> list[tuple[int, str, str]]:
    """The seeded exchange as dialogue lines (tick, seat, text): the first seat greets, every
    other seat answers in seat order."""
    return [(OPENING_TICK, seat, greeting if k == 0 else reply) for k, seat in enumerate(seats)]


def visible_dialogue(
    dialogue: Sequence[tuple[int, str, str]], opening: int, window: int
) -> list[tuple[int, str, str]]:
    """What a seat's prompt shows of ``dialogue``, whose first ``opening`` lines are the seeded
    exchange: those lines always, then the last ``window`` lines said since.

    Why: the paper's templates (E.5/E.6) print the seeded exchange as fixed text ahead of the
    dialogue history, so it stays in every prompt however long the conversation grows; a plain
    last-``window`` cut would scroll it out after a few messages.
    """
    said = list(dialogue[opening:])
    return [*dialogue[:opening], *(said[-window:] if window else [])]


def greets_at_first_decision(state: dict) -> bool:
    """Whether a simulated player should open with a greeting at its first decision (a game
    without the option, whose state carries no ``opening``, keeps that behaviour)."""
    return state.get("opening", "first_decision") == "first_decision"
