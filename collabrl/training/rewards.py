"""Turn a finished rollout into GiGPO's inputs: step rewards, episode-level scores, advantages.

The two levels never mix (paper 4.2.2-4.2.3):
- step reward r_t = format + communication + judge (+ progress when ``reward.progress`` > 0);
  a judge level that failed is left out (the loop counts it as a judge failure). It feeds the step-level advantage, compared
  within anchor groups. The efficiency reward is never part of it.
- episode-level score: the trajectory efficiency reward R_e of the episode (``efficiency``, the
  paper: one value per episode, normalised over the group's episodes), or R_e + r_t of each step
  sample (``efficiency_plus_step``, the released code: normalised over the group's samples).

With several trained seats each seat is compared with itself only: its groups are (group, seat),
its episodes (episode, seat) and its anchor groups are drawn within them, so one seat's
advantages are normalised over its own decisions, never against its teammate's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from collabrl.algos.gigpo import AdvantageParts, gigpo_parts
from collabrl.config import AlgoSpec, RewardSpec
from collabrl.envs.registry import GameSection
from collabrl.rewards.terms import communication_reward, format_reward, interactivity_reward
from collabrl.training.lockstep import EpisodeSlot, Sample, StepRewards

SampleKey = tuple[int, int, int]  # (group, episode, decision)

LIVE = 1e-9
"""An advantage of at most this size counts as zero (no gradient)."""


def sample_key(sample: Sample) -> SampleKey:
    return sample.group, sample.episode, sample.decision


def seat_group(sample: Sample) -> tuple[int, str]:
    """The advantage group of a sample: its rollout group, seen from its own seat."""
    return sample.group, sample.seat


@dataclass
class Scored:
    """What the advantage estimator and the logger need, aligned with ``samples``."""

    samples: list[Sample]  # trainable samples only (they have response tokens)
    step_rewards: list[float]
    episode_scores: list[float]  # what the episode-level advantage normalises
    per_sample_scores: bool  # True: normalise scores over samples, not episodes


def step_terms(
    sample: Sample, judge_level: float | None, progress: int, spec: RewardSpec
) -> StepRewards:
    """The step-level reward terms of one decision (judge None: the judge call failed)."""
    judged = spec.judge.kind != "none"
    return {
        "format": format_reward(sample.valid, penalty=spec.format_penalty),
        "communication": communication_reward(
            sample.valid, sample.sent_message, bonus=spec.communication
        ),
        "judge": (
            interactivity_reward(judge_level, sample.valid, weight=spec.judge_weight)
            if judged
            else 0.0
        ),
        "progress": spec.progress * progress,
    }


def step_reward(terms: StepRewards) -> float:
    """r_t of a decision: its step terms summed, a failed judge call left out."""
    parts = (terms["format"], terms["communication"], terms["judge"], terms["progress"])
    return sum(v for v in parts if v is not None)


def score_rollout(
    slots: Sequence[EpisodeSlot],
    judge_levels: Mapping[SampleKey, float | None],
    spec: RewardSpec,
    game: GameSection,
) -> Scored:
    """Fill each sample's ``rewards`` and each slot's ``efficiency``; gather GiGPO's inputs
    (untrainable samples dropped)."""
    per_sample = spec.episode_level == "efficiency_plus_step"
    samples, steps, scores = [], [], []
    for slot in slots:
        slot.efficiency = spec.efficiency * game.efficiency(slot.summary)
        for s, mark in _progress_marks(slot):
            s.rewards = step_terms(s, judge_levels.get(sample_key(s)), mark - s.progress_at, spec)
            step = step_reward(s.rewards)
            if s.trainable:
                samples.append(s)
                steps.append(step)
                scores.append(slot.efficiency + step if per_sample else slot.efficiency)
    return Scored(samples, steps, scores, per_sample)


def _progress_marks(slot: EpisodeSlot) -> list[tuple[Sample, int]]:
    """Each decision with the goal units completed until its seat's next decision (or the end)."""
    marks: list[tuple[Sample, int]] = []
    for seat in dict.fromkeys(s.seat for s in slot.samples):
        own = [s for s in slot.samples if s.seat == seat]
        ends = [s.progress_at for s in own[1:]] + [slot.final_progress]
        marks += zip(own, ends, strict=True)
    return sorted(marks, key=lambda pair: pair[0].decision)


def advantage_parts(scored: Scored, algo: AlgoSpec) -> AdvantageParts:
    """GiGPO (or GRPO: no step level) advantages of the scored samples, the two levels apart,
    each trained seat's within its own groups."""
    return gigpo_parts(
        [seat_group(s) for s in scored.samples],
        [(s.episode, s.seat) for s in scored.samples],
        [s.anchor for s in scored.samples],
        scored.step_rewards,
        scored.episode_scores,
        gamma=algo.gamma,
        omega=algo.omega if algo.name == "gigpo" else 0.0,
        mode=algo.norm,
        step_mode=algo.step_norm,
        episode_norm="samples" if scored.per_sample_scores else "episodes",
    )


def compute_advantages(scored: Scored, algo: AlgoSpec) -> np.ndarray:
    """GiGPO (or GRPO) advantages of the scored samples: the two levels summed."""
    return advantage_parts(scored, algo).total


def informative(scored: Scored, advantages: np.ndarray, drop_uniform: bool) -> list[int]:
    """Indices of the samples to train on. With dynamic sampling (``drop_uniform``), a group in
    which every advantage is zero (equal episode scores and no step-level contrast) teaches
    nothing and is dropped."""
    if not drop_uniform:
        return list(range(len(scored.samples)))
    live = {seat_group(s) for s, a in zip(scored.samples, advantages, strict=True) if abs(a) > LIVE}
    return [i for i, s in enumerate(scored.samples) if seat_group(s) in live]
