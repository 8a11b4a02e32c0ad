"""A recipe's game for TRL's ``GRPOTrainer(environment_factory=...)``, through the OpenEnv server.

Why: TRL trains on an environment as a class whose ``reset`` opens an episode and whose public
methods are tools the model calls during generation; ``get_reward`` scores the finished episode.
The class here is a thin client of :mod:`collabrl.interop.openenv_server` (the pattern of TRL's
own OpenEnv examples): its one tool, ``act``, sends the seat's decision as a reply in collabrl's
format, so the episode is parsed, played and scored exactly as collabrl's trainer does. Each
dataset row is an episode (:func:`dataset_rows`); ``reset`` receives its columns.

An episode the model leaves unfinished (it stopped calling ``act``) is played out with empty
replies when the reward is asked for, as collabrl's rollout plays a failed generation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collabrl.config import Recipe
from collabrl.envs.base import format_response
from collabrl.errors import missing_extra
from collabrl.interop.session import episode_specs

try:
    import trl  # noqa: F401  (the trainer this class is for)

    from collabrl.interop.openenv_server import CollabAction, CollabClient
except ImportError as e:
    raise missing_extra(e.name or "trl", "trl") from None

INSTRUCTIONS = (
    "You play one seat of a cooperative game. Each turn, call the `act` tool with the letter of "
    "one available action (and a message for your partner when you send one)."
)
"""The user message each dataset row starts from; ``reset`` appends the game's rules and first
observation to it."""


def dataset_rows(recipe: Recipe, count: int) -> list[dict[str, Any]]:
    """``count`` training rows for TRL: each an episode collabrl's trainer would draw (task,
    partner profile, seed) and the prompt ``reset`` completes."""
    return [
        {"prompt": [{"role": "user", "content": INSTRUCTIONS}], **spec.to_dict()}
        for spec in episode_specs(recipe, count)
    ]


def environment_factory(base_url: str) -> Callable[[], CollabTRLEnv]:
    """What ``GRPOTrainer(environment_factory=...)`` takes: a fresh connection per environment
    to the collabrl OpenEnv server at ``base_url``."""
    return lambda: CollabTRLEnv(base_url)


class CollabTRLEnv:
    """One episode at a time of the game the server at ``base_url`` plays."""

    def __init__(self, base_url: str) -> None:
        self._client = CollabClient(base_url=base_url).sync()
        self._done, self._reward = False, 0.0

    def reset(
        self, task: str | None = None, profile: str | None = None, seed: int = 0, **_: Any
    ) -> str:
        result = self._client.reset(task=task, profile=profile, seed=seed)
        self._done, self._reward = result.done, 0.0
        return f"{result.observation.rules}\n\n{result.observation.prompt}"

    def act(self, action: str, message: str = "") -> str:
        """Take your next decision in the game.

        Args:
            action: The letter of one of the available actions.
            message: What to tell your partner (delivered when the action sends a message).

        Returns:
            What you observe when you are next asked to decide, or the episode's result.
        """
        if self._done:
            raise ValueError("the episode is over")
        return self._step(format_response("", message, action))

    def get_reward(self) -> float:
        """The episode's reward: efficiency plus the step terms (played out if unfinished)."""
        while not self._done:
            self._step("")
        return self._reward

    def _step(self, reply: str) -> str:
        result = self._client.step(CollabAction(reply=reply))
        self._done = result.done
        self._reward += result.reward or 0.0
        return result.observation.prompt
