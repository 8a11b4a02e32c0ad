"""The kitchen drawn for a person: terrain, chefs, pots and counter items, tick by tick.

The kitchen's :class:`collabrl.envs.registry.BoardDrawer` (``KitchenSection.board``). A page needs the
chefs' positions, which the agents' observation text deliberately leaves out, so frames are read
from the engine state the game keeps; :attr:`KitchenGame.tick_listeners` hands them over after
every tick, since one decision may run many ticks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collabrl.envs.kitchen.engine import KitchenState
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.render import item_name

Frame = dict[str, Any]


class KitchenBoard:
    """An Overcooked grid: the drawer ``overcooked-grid`` of the web pages."""

    kind = "overcooked-grid"

    def layout(self, game: KitchenGame) -> dict[str, Any]:
        """The static part of a drawing: terrain rows, cooking time and seat names."""
        return {
            "name": game.layout.name,
            "grid": list(game.layout.grid),
            "cook_time": game.engine.cook_time,
            "seats": list(game.agents),
        }

    def frame(self, game: KitchenGame) -> Frame:
        """The kitchen now: chefs (position, facing, held item), pots, counter items, score."""
        return state_frame(game.state)

    def watch(self, game: KitchenGame, sink: Callable[[Frame], None]) -> None:
        """Hand ``sink`` the frame now and after every tick of ``game`` from here on."""
        sink(self.frame(game))
        game.tick_listeners.append(lambda g: sink(self.frame(g)))


def state_frame(state: KitchenState) -> Frame:
    """A kitchen state as a frame: what the board draws and what recorded frames hold (a human
    session's, or a recorded trial's), so a frame can be read back into a state."""
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


BOARD = KitchenBoard()
