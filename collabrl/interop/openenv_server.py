"""A recipe's game as an OpenEnv environment server, and the client that talks to it.

Why: OpenEnv is the protocol TRL's ``environment_factory`` examples, verifiers' OpenEnv taskset
and other trainers reach environments through (a FastAPI server, one session per WebSocket).
The server holds a :class:`collabrl.interop.session.CollabSession` per connection: ``reset``
starts an episode (``task``, ``profile`` and ``seed``; with no task, the ``seed``-th episode
collabrl's trainer would draw), each ``step`` takes the trained seat's reply, and the step that
ends the episode carries its whole reward (earlier steps carry 0, so a trainer that sums step
rewards gets the episode's), with the reward's parts and the game's summary.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from collabrl.config import Recipe
from collabrl.errors import missing_extra
from collabrl.interop.session import CollabSession, EpisodeSpec, episode_specs

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server import (
        Action,
        Environment,
        Observation,
        State,
        create_fastapi_app,
    )
except ImportError:
    raise missing_extra("openenv-core", "openenv") from None


class CollabAction(Action):
    """The trained seat's reply, in the format every seat answers in (``<think>``,
    ``<message>``, ``<action>``: :func:`collabrl.envs.base.format_response`)."""

    reply: str


class CollabObservation(Observation):
    """What the trained seat is asked (``prompt``: the policy prompt's user message; ``rules``:
    its system message), or the episode's result once ``done`` (OpenEnv keeps ``metadata`` off
    the wire, so the result has fields of its own)."""

    prompt: str
    rules: str = ""
    reward_parts: dict[str, float] = Field(default_factory=dict)
    """Once done: the reward by term (efficiency, format, communication, judge, progress)."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """Once done: the game's summary of the episode."""


class CollabState(State):
    """The episode being played: its task, partner profile and seed."""

    task: str = ""
    profile: str | None = None
    seed: int = 0


class CollabEnvironment(Environment[CollabAction, CollabObservation, CollabState]):
    """One episode session per connection (so concurrent sessions are isolated)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, recipe: Recipe) -> None:
        super().__init__()
        self.session = CollabSession(recipe)
        self._state = CollabState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        profile: str | None = None,
        **kwargs: Any,
    ) -> CollabObservation:
        seed = seed or 0
        if task is None:
            spec = episode_specs(self.session.recipe, seed + 1)[seed]
        else:
            spec = EpisodeSpec(task, profile, seed)
        prompt = self.session.reset(spec)
        self._state = CollabState(
            episode_id=episode_id, task=spec.task, profile=spec.profile, seed=spec.seed
        )
        return CollabObservation(prompt=prompt, rules=self.session.system_prompt(), reward=0.0)

    def step(
        self, action: CollabAction, timeout_s: float | None = None, **kwargs: Any
    ) -> CollabObservation:
        prompt = self.session.act(action.reply)
        self._state.step_count += 1
        if not self.session.done:
            return CollabObservation(prompt=prompt, reward=0.0)
        parts = self.session.reward_parts()
        return CollabObservation(
            prompt=prompt,
            done=True,
            reward=sum(parts.values()),
            reward_parts=parts,
            summary=self.session.record().summary,
        )

    @property
    def state(self) -> CollabState:
        return self._state

    def close(self) -> None:
        self.session.close()


def make_app(recipe: Recipe):
    """The FastAPI app serving ``recipe``'s game (run it with uvicorn)."""
    return create_fastapi_app(
        lambda: CollabEnvironment(recipe), CollabAction, CollabObservation, max_concurrent_envs=64
    )


class CollabClient(EnvClient[CollabAction, CollabObservation, CollabState]):
    """The OpenEnv client of :func:`make_app`'s server (``CollabClient(base_url=...).sync()``
    for a blocking one)."""

    def _step_payload(self, action: CollabAction) -> dict[str, Any]:
        return {"reply": action.reply}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[CollabObservation]:
        observation = CollabObservation(
            **payload.get("observation", {}),
            done=payload.get("done", False),
            reward=payload.get("reward"),
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=payload.get("done", False)
        )

    def _parse_state(self, payload: dict[str, Any]) -> CollabState:
        return CollabState(**payload)
