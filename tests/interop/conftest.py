"""Shared pieces of the export tests: collabrl's own rollout of the same episodes, to compare,
and a fake OpenAI-compatible server for the LLM partner."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

import pytest

from collabrl.config import Recipe
from collabrl.engines.types import SamplingParams
from collabrl.factory import EngineCache, make_expert, make_judge
from collabrl.interop.session import EpisodeSpec
from collabrl.testing.fake_openai import FakeOpenAIServer
from collabrl.testing.scripted import ScriptedEngine
from collabrl.training.groups import GroupPlan, make_slots, partner_profiles, plan_groups
from collabrl.training.judging import StepJudging
from collabrl.training.lockstep import run_rollout
from collabrl.training.rewards import score_rollout, step_reward

RECIPE = "cwah_gigpo_cpu"


def _plan(recipe: Recipe, spec: EpisodeSpec) -> GroupPlan:
    """The trainer's own group plan with ``spec``'s seed (the first ten iterations' draws)."""
    profiles = partner_profiles(recipe)
    for iteration in range(10):
        for plan in plan_groups(recipe, profiles, iteration):
            if plan.seed == spec.seed:
                return plan
    raise AssertionError(f"no group plan has seed {spec.seed}")


def collabrl_reward(recipe: Recipe, spec: EpisodeSpec, replies: list[str]) -> tuple[float, dict]:
    """collabrl's own reward and summary of ``spec``'s episode with the trained seat replying
    ``replies`` in order (then empty replies, as failed generations): the trainer's lockstep
    rollout, step judging and scoring, none of the export's code."""
    partner_engine = EngineCache().get(recipe.partner.engine)  # an llm partner's, else None
    slot = make_slots(recipe, [_plan(recipe, spec)], partner_engine)[0]
    queue: Iterator[str] = iter(replies)
    engine = ScriptedEngine(lambda _conversation: next(queue, ""))
    profiles = {p.id: p for p in partner_profiles(recipe)}
    judging = StepJudging(make_judge(recipe.reward.judge), profiles)
    run_rollout([slot], engine, SamplingParams(seed=0), on_steps=judging.submit)
    score_rollout([slot], judging.collect(), recipe.reward, recipe.game)
    return slot.efficiency + sum(step_reward(s.rewards) for s in slot.samples), slot.summary


class ExpertReplies:
    """The expert's replies for the trained seat, every ``every_bad``-th one unparsable (so the
    format term is exercised); ``replies`` keeps what was sent."""

    def __init__(self, recipe: Recipe, seat: str, every_bad: int = 4) -> None:
        self.expert = make_expert(recipe.game)
        self.expert.reset(seat, 0)
        self.every_bad = every_bad
        self.replies: list[str] = []

    def __call__(self, observation) -> str:
        bad = len(self.replies) % self.every_bad == self.every_bad - 1
        reply = "no tags at all" if bad else self.expert.act(observation)
        self.replies.append(reply)
        return reply


LLM_PARTNER = "partner.engine={backend: openai, model: fake-partner}"
"""The override that points an llm partner at :func:`fake_partner_server`."""


def offered_action(messages: list[dict[str, str]]) -> str:
    """A fake LLM partner's reply: one of the actions its last prompt offers, picked by a hash
    of the prompt (the same prompt, the same action), with a short message."""
    prompt = messages[-1]["content"] if messages else ""
    offered = re.findall(r"^[A-Z]{1,2}\. (.+)$", prompt.split("Available actions:")[-1], re.M)
    action = offered[zlib.crc32(prompt.encode()) % len(offered)] if offered else ""
    return (
        f"<think>pick one</think>\n<message>I will do {action}</message>\n<action>{action}</action>"
    )


@pytest.fixture
def fake_partner_server(monkeypatch) -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server answering the LLM partner (:func:`offered_action`), the
    base URL collabrl's HTTP engine reads pointed at it."""
    with FakeOpenAIServer(responder=offered_action) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        yield server
