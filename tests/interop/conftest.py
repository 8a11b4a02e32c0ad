"""Shared pieces of the export tests: collabrl's own rollout of the same episodes, to compare."""

from __future__ import annotations

from collections.abc import Iterator

from collabrl.config import Recipe
from collabrl.engines.types import SamplingParams
from collabrl.factory import make_judge
from collabrl.testing.scripted import ScriptedEngine
from collabrl.training.groups import make_slots, partner_profiles, plan_groups
from collabrl.training.judging import StepJudging
from collabrl.training.lockstep import run_rollout
from collabrl.training.rewards import score_rollout, step_reward


def collabrl_reward(recipe: Recipe, plan_index: int, replies: list[str]) -> tuple[float, dict]:
    """collabrl's own reward and summary of group plan ``plan_index`` (iteration 0) with the
    trained seat replying ``replies`` in order (then empty replies, as failed generations):
    the trainer's lockstep rollout, step judging and scoring, none of the export's code."""
    plan = plan_groups(recipe, partner_profiles(recipe), 0)[plan_index]
    slot = make_slots(recipe, [plan])[0]
    queue: Iterator[str] = iter(replies)
    engine = ScriptedEngine(lambda _conversation: next(queue, ""))
    judging = StepJudging(make_judge(recipe.reward.judge), {p.id: p for p in partner_profiles(recipe)})
    run_rollout([slot], engine, SamplingParams(seed=0), on_steps=judging.submit)
    score_rollout([slot], judging.collect(), recipe.reward, recipe.game)
    return slot.efficiency + sum(step_reward(s.rewards) for s in slot.samples), slot.summary
