"""Turn a finished rollout into per-sample step rewards and per-episode returns for GiGPO.

step reward r_t = format + communication + judge (missing judge levels are left out and counted);
the episode's efficiency reward is added to its last policy decision, so with gamma > 0 it flows
back through the step returns; the episode return is efficiency + sum_t r_t, or efficiency alone
with ``reward.episode_level=efficiency``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from collabrl.config import RewardSpec
from collabrl.rewards.terms import (
    communication_reward,
    format_reward,
    household_efficiency,
    interactivity_reward,
    kitchen_efficiency,
)
from collabrl.training.rollout import EpisodeSlot, Sample

SampleKey = tuple[int, int, int]  # (group, episode, decision)


def sample_key(sample: Sample) -> SampleKey:
    return sample.group, sample.episode, sample.decision


def efficiency(summary: Mapping, spec: RewardSpec) -> float:
    """The episode-level efficiency reward of either game."""
    if "score" in summary:
        return kitchen_efficiency(summary["score"], scale=spec.kitchen_scale)
    return household_efficiency(
        bool(summary["success"]),
        int(summary["steps"]),
        free_steps=spec.household_free_steps,
        rate=spec.household_rate,
    )


@dataclass
class Scored:
    """What the advantage estimator and the logger need, aligned with ``samples``."""

    samples: list[Sample]  # trainable samples only (they have response tokens)
    step_rewards: list[float]
    episode_returns: list[float]
    judge_missing: int


def score_rollout(
    slots: Sequence[EpisodeSlot], judge_levels: Mapping[SampleKey, float | None], spec: RewardSpec
) -> Scored:
    """Fill each sample's ``rewards`` and gather GiGPO's inputs (untrainable samples dropped)."""
    samples, steps, returns = [], [], []
    missing = 0
    for slot in slots:
        eff = spec.efficiency * efficiency(slot.summary, spec)
        per_step = []
        for s in slot.samples:
            judge = None
            if spec.judge.kind != "none":
                judge = interactivity_reward(
                    judge_levels.get(sample_key(s)), s.valid, weight=spec.judge_weight
                )
                missing += judge is None
            s.rewards = {
                "format": format_reward(s.valid, penalty=spec.format_penalty),
                "communication": communication_reward(
                    s.valid, s.sent_message, bonus=spec.communication
                ),
                "judge": judge,
                "efficiency": 0.0,
            }
            per_step.append(sum(v for v in s.rewards.values() if v is not None))
        if slot.samples:
            slot.samples[-1].rewards["efficiency"] = eff
            per_step[-1] += eff
        episode_return = sum(per_step) if spec.episode_level == "total" else eff
        for s, r in zip(slot.samples, per_step, strict=True):
            if s.trainable:
                samples.append(s)
                steps.append(r)
                returns.append(episode_return)
    return Scored(samples, steps, returns, missing)
