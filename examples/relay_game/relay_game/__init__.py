"""The relay game: a small cooperative collabrl game installed from its own package.

``RelayGame`` is the game, ``RelayExpert`` its rule-based expert, and
``relay_game.section:RelaySection`` its recipe section, registered under the ``collabrl.games``
entry-point group so that collabrl finds the game without any edit to collabrl.
"""

from relay_game.game import RelayGame
from relay_game.tasks import get_task, task_names

__all__ = ["RelayGame", "get_task", "task_names"]
