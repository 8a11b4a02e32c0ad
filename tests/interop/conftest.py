"""Shared pieces of the export tests: collabrl's own rollout of the same episodes, to compare."""

from __future__ import annotations

from collections.abc import Iterator

from collabrl.config import Recipe
from collabrl.engines.types import SamplingParams
from collabrl.factory import make_expert, make_judge
from collabrl.interop.session import EpisodeSpec
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
    slot = make_slots(recipe, [_plan(recipe, spec)])[0]
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
