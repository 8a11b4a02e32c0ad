"""A stand-in for verifiers' agent in the export tests (imported after verifiers is found)."""

from __future__ import annotations

from contextlib import asynccontextmanager

import verifiers.v1 as vf
from verifiers.v1.agent import Segment
from verifiers.v1.types import AssistantMessage

from collabrl.config import Recipe
from collabrl.interop.session import CollabSession, EpisodeSpec
from tests.interop.conftest import ExpertReplies


class ExpertPlayer:
    """Stands in for verifiers' agent (``agents.player``): each turn answers with the expert's
    reply to the trained seat's observation, kept on a local copy of the episode."""

    def __init__(self, recipe: Recipe, spec: EpisodeSpec) -> None:
        self.local = CollabSession(recipe)
        self.local.reset(spec)
        self.reply = ExpertReplies(recipe, self.local.slot.policy_seat)
        self.trace = vf.Trace.model_construct()  # a bare trace: the env records onto it
        self.turns: list[str | None] = []

    @asynccontextmanager
    async def interaction(self, task):
        yield self

    async def turn(self, message: str | None = None) -> Segment:
        self.turns.append(message)
        if self.local.done:
            return Segment(messages=[], terminated=True)
        text = self.reply(self.local.slot.running.pending[self.local.slot.policy_seat])
        self.local.act(text)
        return Segment(messages=[AssistantMessage(content=text)])


class Agents:
    def __init__(self, player: ExpertPlayer) -> None:
        self.player = player
