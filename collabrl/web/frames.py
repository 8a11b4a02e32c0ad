"""What the pages draw: observation text split into sections, and a game's board per tick.

A page shows exactly the agent's observation text, laid out for a person; a game that declares a
board (:class:`collabrl.envs.registry.BoardDrawer`) is drawn too, its frames taken after every tick.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from collabrl.envs.base import Decision, Game, Observation, letter
from collabrl.envs.registry import BoardDrawer, Frame, GameSection, load_addon

# Headings of the games' recent-messages blocks: the page's chat panel shows every message, so
# these blocks are marked ``chat`` for the page to leave out (one chat, not two).
CHAT_HEADINGS = ("Dialogue", "Messages", "Recent chat")


def sections(text: str) -> list[dict[str, Any]]:
    """The observation text as titled blocks, without the lettered action list (the page shows
    buttons instead): ``{title, start, end}`` with lines ``start`` to ``end`` (exclusive) of the
    text split at newlines, blank ones left out. A line such as ``Dialogue (last 5):`` opens a
    block. Ranges, not the lines again: a push holds the text once."""
    lines = text.split("\n")
    blocks: list[dict[str, Any]] = [{"title": "", "start": 0}]
    for i, line in enumerate(lines):
        if line == "Available actions:":
            lines = lines[:i]
            break
        if line.endswith(":") and not line.startswith(("-", " ")) and len(line) < 60:
            blocks[-1]["end"] = i
            chat = line.startswith(CHAT_HEADINGS)
            blocks.append({"title": line[:-1], "start": i + 1, "chat": chat})
    blocks[-1]["end"] = len(lines)
    return [
        b
        for b in blocks
        if b["title"] or any(line.strip() for line in lines[b["start"] : b["end"]])
    ]


def lettered_actions(actions: list[str], message_action: str) -> list[dict[str, str]]:
    """Buttons for the available actions with the letters the agent's prompt uses; the message
    action is the message box's Send button instead."""
    return [
        {"letter": letter(i), "action": a} for i, a in enumerate(actions) if a != message_action
    ]


def observation_view(obs: Observation) -> dict[str, Any]:
    """An observation as the pages get it: ``{tick, text, sections, actions, message_action}``."""
    return {
        "tick": obs.tick,
        "text": obs.text,
        "sections": sections(obs.text),
        "actions": lettered_actions(obs.actions, obs.message_action),
        "message_action": obs.message_action,
    }


def board_of(section: type[GameSection]) -> BoardDrawer | None:
    """The board that draws a game for people (its section's ``board``), or None: text only."""
    if section.board is None:
        return None
    return load_addon(section.board, "board", section.model_fields["name"].default)


def drawing(board: BoardDrawer, game: Game) -> dict[str, Any]:
    """What a page needs to pick the drawer and draw the static part: ``{kind, layout}``."""
    return {"kind": board.kind, "layout": board.layout(game)}


def seat_frame(board: BoardDrawer, frame: Frame, seat: str) -> Frame:
    """The part of ``frame`` the page of ``seat`` is sent: the drawer's optional ``for_seat``
    (a room map holds every seat's knowledge; each page sees only its own), else all of it."""
    for_seat = getattr(board, "for_seat", None)
    return for_seat(frame, seat) if for_seat is not None else frame


def take_frame(board: BoardDrawer, game: Game, frames: list[Frame]) -> None:
    """A frame of ``game`` now, unless the board's ``watch`` gave one at this tick: called where a
    person is owed a decision and at the end, so a board without a per-tick hook is still drawn
    at every moment a page shows (and costs nothing on the steps between)."""
    if not frames or frames[-1]["tick"] != game.tick:
        frames.append(board.frame(game))


def final_view(game: Game, seat: str) -> dict[str, Any] | None:
    """The finished state ``seat`` sees once the episode is over, laid out like an observation
    (``{tick, text, sections}``), from the game's optional ``final_observation(seat)``; None for
    a game without it (the page then keeps the last observation it showed)."""
    final = getattr(game, "final_observation", None)
    if final is None:
        return None
    obs = final(seat)
    return {"tick": obs.tick, "text": obs.text, "sections": sections(obs.text)}


def replay_frames(
    game: Game, board: BoardDrawer, seed: int, turns: Iterable[dict[str, Any]]
) -> list[Frame]:
    """The frames of a recorded episode, replayed from its seed and every seat's turns.

    Games are deterministic given seed and decisions, so a record holding all seats' turns can be
    drawn tick by tick. Raises ValueError when the turns do not fit (a record of one seat only).
    """
    frames: list[Frame] = []
    pending = game.reset(seed=seed)
    board.watch(game, frames.append)
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
