"""PettingZoo view of a collabrl game: :func:`to_parallel_env` wraps any
:class:`~collabrl.envs.base.Game` as a ``pettingzoo.ParallelEnv``, so PettingZoo tooling (its API
tests, wrappers, RL libraries that speak the parallel API) can drive the household and kitchen
games.

Spaces (the same for every seat):
    observation: ``{"text": Text, "offered": MultiBinary(max_actions)}``: the seat's latest
        observation text, and a 0/1 mask over action indices; index ``i`` is the ``i``-th offered
        action, shown with letter ``collabrl.envs.base.letter(i)`` in the text. The mask is all
        zero while the seat is busy. (Not named ``action_mask``: PettingZoo samplers read that key
        as a mask for the whole action space, which here also holds the message.)
    action: ``{"action": Discrete(max_actions), "message": Text}``: an index into the offered
        actions and the message text, delivered only when the action is the game's message action.
        An index beyond the offered list is an invalid decision: the seat idles one tick.

Asynchronous decisions: collabrl games ask only *pending* (idle) seats for a decision, while the
parallel API expects an action from every live agent at every step. Actions of seats that are not
pending are ignored; those seats get their last observation again with an all-zero ``offered``
mask, and ``infos[seat]["pending"]`` says whether the seat's next action counts. A pending seat
without an action idles one tick (invalid), as a missing decision does in the game.

Unlike collabrl's own ``reset`` (observations only), ``reset`` here returns
``(observations, infos)``, as PettingZoo requires. Once the episode is over ``agents`` is empty.
The text spaces declare printable ASCII: game text stays within it, free-form chat from players
may not. Observations longer than ``max_text_chars`` or more offered actions than ``max_actions``
raise ``ValueError`` rather than being cut.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

import numpy as np

from collabrl.envs.base import MAX_MESSAGE_CHARS, Decision, Game, Observation
from collabrl.errors import missing_extra

try:
    from gymnasium import spaces
    from pettingzoo import ParallelEnv
except ImportError:
    raise missing_extra("pettingzoo", "pettingzoo") from None

MAX_ACTIONS = 64  # the shipped games offer at most about 20 actions at once
MAX_TEXT_CHARS = 16_384  # observation texts of the shipped games stay under about 3,000 chars
CHARSET = string.printable


def to_parallel_env(
    game: Game, *, max_actions: int = MAX_ACTIONS, max_text_chars: int = MAX_TEXT_CHARS
) -> CollabParallelEnv:
    """A ``pettingzoo.ParallelEnv`` playing ``game`` (see the module docstring for the spaces)."""
    return CollabParallelEnv(game, max_actions=max_actions, max_text_chars=max_text_chars)


class CollabParallelEnv(ParallelEnv):
    """A collabrl game behind PettingZoo's parallel API; ``game`` is the wrapped game."""

    def __init__(self, game: Game, *, max_actions: int, max_text_chars: int) -> None:
        self.game = game
        self.metadata = {"name": f"collabrl_{game.name}", "render_modes": []}
        self.possible_agents = list(game.agents)
        self.agents: list[str] = []
        self.max_actions = max_actions
        self.max_text_chars = max_text_chars
        # one space object per seat: PettingZoo seeds each seat's space separately
        self._observation_spaces = {seat: self._observation_space() for seat in game.agents}
        self._action_spaces = {seat: self._action_space() for seat in game.agents}
        self._pending: dict[str, Observation] = {}
        self._last: dict[str, Observation] = {}

    def _observation_space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                "text": spaces.Text(self.max_text_chars, min_length=0, charset=CHARSET),
                "offered": spaces.MultiBinary(self.max_actions),
            }
        )

    def _action_space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                "action": spaces.Discrete(self.max_actions),
                "message": spaces.Text(MAX_MESSAGE_CHARS, min_length=0, charset=CHARSET),
            }
        )

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Dict:
        return self._action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """Start an episode (``options`` is accepted for the API and unused)."""
        self.agents = list(self.possible_agents)
        self._last = {}
        self._pending = self.game.reset(seed)
        return self._views(), {seat: self._info({}, seat) for seat in self.agents}

    def step(self, actions: Mapping[str, Mapping[str, Any]]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the pending seats' actions (others are ignored) until some seat is pending again."""
        decisions = {
            seat: self._decision(obs, actions[seat])
            for seat, obs in self._pending.items()
            if seat in actions
        }
        result = self.game.step(decisions)
        self._pending = result.observations
        observations = self._views()
        infos = {seat: self._info(result.infos[seat], seat) for seat in self.agents}
        if self.game.done:
            self.agents = []
        return observations, result.rewards, result.terminations, result.truncations, infos

    def _decision(self, obs: Observation, action: Mapping[str, Any]) -> Decision:
        """The game decision for an action; an index past the offered list is unusable."""
        index = int(action["action"])
        chosen = obs.actions[index] if 0 <= index < len(obs.actions) else None
        return Decision(chosen, message=str(action["message"]))

    def _info(self, info: dict[str, Any], seat: str) -> dict[str, Any]:
        return {**info, "pending": seat in self._pending}

    def _views(self) -> dict[str, dict[str, Any]]:
        """Every live seat's view: the pending seats' new observations, the others' last ones."""
        self._last.update(self._pending)
        return {seat: self._view(seat) for seat in self.agents}

    def _view(self, seat: str) -> dict[str, Any]:
        obs = self._last.get(seat)
        text = obs.text if obs else ""
        if len(text) > self.max_text_chars:
            raise ValueError(
                f"{seat}'s observation has {len(text)} characters, more than "
                f"max_text_chars={self.max_text_chars}; pass a larger max_text_chars"
            )
        offered = np.zeros(self.max_actions, dtype=np.int8)
        if seat in self._pending:
            count = len(self._pending[seat].actions)
            if count > self.max_actions:
                raise ValueError(
                    f"{seat} is offered {count} actions, more than max_actions="
                    f"{self.max_actions}; pass a larger max_actions"
                )
            offered[:count] = 1
        return {"text": text, "offered": offered}
