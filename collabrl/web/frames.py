"""What the pages draw: observation text split into sections, and the kitchen grid per tick.

Why here and not in the games: a page needs the kitchen's positions (the agent's observation
deliberately has none), so the grid is read from the engine state the game already keeps; the
household page shows exactly the agent's observation text, laid out for a person.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from collabrl.envs.base import Decision, Game, letter

Frame = dict[str, Any]


def sections(text: str) -> list[dict[str, Any]]:
    """The observation text as titled blocks of lines, without the lettered action list (the
    page shows buttons instead). A line such as ``Dialogue (last 5):`` opens a block."""
    blocks: list[dict[str, Any]] = [{"title": "", "lines": []}]
    for line in text.split("\n"):
        if line == "Available actions:":
            break
        heading = line.endswith(":") and not line.startswith(("-", " ")) and len(line) < 60
        if heading:
            blocks.append({"title": line[:-1], "lines": []})
        elif line.strip():
            blocks[-1]["lines"].append(line)
    return [b for b in blocks if b["title"] or b["lines"]]


def lettered_actions(actions: list[str], message_action: str) -> list[dict[str, str]]:
    """Buttons for the available actions with the letters the agent's prompt uses; the message
    action is the message box's Send button instead."""
    return [
        {"letter": letter(i), "action": a} for i, a in enumerate(actions) if a != message_action
    ]


def kitchen_layout(game: Any) -> dict[str, Any]:
    """The static part of a kitchen drawing: terrain rows and the cooking time."""
    return {
        "name": game.layout.name,
        "grid": list(game.layout.grid),
        "cook_time": game.engine.cook_time,
        "seats": list(game.agents),
    }


def kitchen_frame(game: Any) -> Frame:
    """The kitchen now: chefs (position, facing, held item), pots, counter items, score."""
    from collabrl.envs.kitchen.render import item_name

    state = game.state
    return {
        "tick": state.tick,
        "score": state.score,
        "chefs": [
            {"x": c.pos[0], "y": c.pos[1], "facing": list(c.facing), "held": item_name(c.held)}
            for c in state.chefs
        ],
        "pots": [
            {"x": p[0], "y": p[1], "onions": s.onions, "cooking": s.tick}
            for p, s in sorted(state.pots.items())
        ],
        "counters": [
            {"x": p[0], "y": p[1], "item": item_name(i)} for p, i in sorted(state.counters.items())
        ],
    }


def capture_frames(game: Game, sink: Callable[[Frame], None]) -> None:
    """Hand ``sink`` a frame after every tick of a kitchen game (the start frame included).

    The game runs several ticks inside one ``step``; wrapping its engine's tick function is the
    one way to see each of them without changing the game.
    """
    if game.name != "kitchen":
        return
    engine = game.engine  # type: ignore[attr-defined]
    tick = type(engine).step

    def step(state, actions):
        points = tick(engine, state, actions)
        sink(kitchen_frame(game))
        return points

    engine.step = step
    sink(kitchen_frame(game))


def replay_frames(game: Game, seed: int, turns: Iterable[dict[str, Any]]) -> list[Frame]:
    """The frames of a recorded kitchen episode, replayed from its seed and every seat's turns.

    The game is deterministic given seed and decisions, so a record holding all seats' turns
    (evaluation, ``collabrl play``) can be drawn tick by tick. Raises ValueError when the turns
    do not fit (a record of one seat only, such as a training dump).
    """
    frames: list[Frame] = []
    pending = game.reset(seed=seed)
    capture_frames(game, frames.append)
    by_tick: dict[int, dict[str, Decision]] = {}
    for t in turns:
        by_tick.setdefault(t["tick"], {})[t["seat"]] = Decision(
            t["action"], t.get("message", ""), t.get("think", ""), bool(t.get("valid", True))
        )
    while not game.done:
        decisions = by_tick.get(game.tick, {})
        if set(decisions) != set(pending):
            raise ValueError(f"the record has no decision of {sorted(pending)} at tick {game.tick}")
        pending = game.step(decisions).observations
    return frames
