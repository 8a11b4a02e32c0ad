"""The kitchen drawn for a person: terrain, chefs, pots and counter items, tick by tick.

The kitchen's :class:`collabrl.envs.registry.BoardDrawer` (``KitchenSection.board``). A page needs the
chefs' positions, which the agents' observation text deliberately leaves out, so frames are read
from the engine state the game keeps; :attr:`KitchenGame.tick_listeners` hands them over after
every tick, since one decision may run many ticks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.render import state_frame

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


BOARD = KitchenBoard()
