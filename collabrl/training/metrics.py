"""What one training iteration reports: rewards, game outcomes, behaviour, process, optimisation,
timing. The process metrics (``process/<key>``, :mod:`collabrl.eval.process`) are means over the
iteration's episodes, measured from the policy's seat, as the evaluation's team table has them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from collabrl.agents.llm_player import LLMPlayer
from collabrl.algos.gigpo import AdvantageParts
from collabrl.eval.process import PROCESS_KEYS, episode_process
from collabrl.training.lockstep import EpisodeSlot
from collabrl.training.rewards import LIVE, SampleKey, Scored, seat_group
from collabrl.training.update import OldLogprobs, UpdateStats


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def _outcome(slots: Sequence[EpisodeSlot]) -> dict[str, float]:
    """Game results and the policy seat's behaviour over a set of episodes."""
    samples = [s for slot in slots for s in slot.samples]
    out = {
        "messages_per_step": _mean([s.sent_message for s in samples]),
        "valid_rate": _mean([s.valid for s in samples]),
        "reward/efficiency": _mean([slot.efficiency for slot in slots]),
    }
    if slots and "score" in slots[0].summary:
        out["score"] = _mean([slot.summary["score"] for slot in slots])
    elif slots:
        out["success_rate"] = _mean([bool(slot.summary["success"]) for slot in slots])
        out["steps"] = _mean([slot.summary["steps"] for slot in slots])
    return out


def process_means(slots: Sequence[EpisodeSlot]) -> dict[str, float]:
    """``process/<key>``: each process metric's mean over the episodes that have it."""
    per_episode = [
        episode_process(slot.game.name, slot.summary, slot.policy_seat) for slot in slots
    ]
    out = {}
    for key in PROCESS_KEYS:
        values = [m[key] for m in per_episode if m[key] is not None]
        if values:
            out[f"process/{key}"] = _mean(values)
    return out


def signal_metrics(scored: Scored, parts: AdvantageParts, keep: Sequence[int]) -> dict[str, float]:
    """Where this iteration's gradient comes from.

    - ``signal/live_groups``: share of groups whose episode-level advantage is non-zero (their
      episodes' efficiency rewards differ). At 0 the episode level, the paper's task signal,
      teaches nothing: e.g. when no training episode can end in success.
    - ``signal/live_step_groups``: the same for the step level (some anchor group's step rewards
      differ).
    - ``signal/episode_share`` and ``signal/step_share``: each level's share of the summed
      absolute advantage over the trained samples. The policy-gradient loss is linear in the
      advantage, so this is each level's share of the weight on the gradient (both 0 when no
      sample carries any advantage).
    """
    groups = [seat_group(s) for s in scored.samples]
    live_episode = {g for g, a in zip(groups, parts.episode, strict=True) if abs(a) > LIVE}
    live_step = {g for g, a in zip(groups, parts.step, strict=True) if abs(a) > LIVE}
    n_groups = len(set(groups))
    episode = float(np.abs(parts.episode[list(keep)]).sum()) if keep else 0.0
    step = float(np.abs(parts.step[list(keep)]).sum()) if keep else 0.0
    total = episode + step
    return {
        "signal/live_groups": len(live_episode) / n_groups if n_groups else 0.0,
        "signal/live_step_groups": len(live_step) / n_groups if n_groups else 0.0,
        "signal/episode_share": episode / total if total > 0 else 0.0,
        "signal/step_share": step / total if total > 0 else 0.0,
    }


def seat_metrics(scored: Scored, parts: AdvantageParts) -> dict[str, float]:
    """``seat/<name>/<key>`` per trained seat, where a run trains several (empty otherwise):
    how each seat plays (valid and message rates, step reward) and how much gradient its own
    groups give it (mean absolute advantage, each level apart)."""
    seats = dict.fromkeys(s.seat for s in scored.samples)
    if len(seats) < 2:
        return {}
    out: dict[str, float] = {}
    for seat in seats:
        mine = [i for i, s in enumerate(scored.samples) if s.seat == seat]
        samples = [scored.samples[i] for i in mine]
        out |= {
            f"seat/{seat}/valid_rate": _mean([s.valid for s in samples]),
            f"seat/{seat}/messages_per_step": _mean([s.sent_message for s in samples]),
            f"seat/{seat}/reward/step": _mean([scored.step_rewards[i] for i in mine]),
            f"seat/{seat}/adv/episode_abs_mean": _mean(np.abs(parts.episode[mine]).tolist()),
            f"seat/{seat}/adv/step_abs_mean": _mean(np.abs(parts.step[mine]).tolist()),
        }
    return out


def iteration_metrics(
    slots: Sequence[EpisodeSlot],
    scored: Scored,
    parts: AdvantageParts,
    keep: Sequence[int],
    stats: UpdateStats,
    old: OldLogprobs,
    timings: dict[str, float],
    failures: Mapping[str, int],
) -> dict[str, Any]:
    """A flat dict of everything worth plotting for this iteration (``keep``: the indices of
    the samples trained on; ``failures``: see :func:`failure_counts`)."""
    advantages = parts.total
    samples = [s for slot in slots for s in slot.samples]
    judged = [j for s in samples if (j := s.rewards.get("judge")) is not None]
    lengths = [len(s.response_ids) for s in samples]
    metrics: dict[str, Any] = {
        **_outcome(slots),
        **process_means(slots),
        "reward/format": _mean([s.rewards["format"] for s in samples]),
        "reward/communication": _mean([s.rewards["communication"] for s in samples]),
        "reward/judge": _mean(judged),
        "reward/progress": _mean([s.rewards["progress"] for s in samples]),
        "reward/episode_score": _mean(scored.episode_scores),
        "response_length": _mean(lengths),
        "tokens_per_step": _mean([len(s.prompt_ids) + len(s.response_ids) for s in samples]),
        "decisions": len(samples),
        **failures,
        "trained_samples": len(keep),
        **signal_metrics(scored, parts, keep),
        **seat_metrics(scored, parts),
        "adv/mean": float(advantages.mean()) if advantages.size else 0.0,
        "adv/std": float(advantages.std()) if advantages.size else 0.0,
        "adv/abs_max": float(np.abs(advantages).max()) if advantages.size else 0.0,
        "loss": stats.loss,
        "pg_loss": stats.pg_loss,
        "kl": stats.kl,
        "entropy": stats.entropy,
        "clip_fraction": stats.clip_fraction,
        "approx_kl": stats.approx_kl,
        "grad_norm": stats.grad_norm,
        "skipped_steps": stats.skipped_steps,
        **{f"time/{k}": v for k, v in timings.items()},
    }
    if old.mismatch_mean is not None:  # sampler vs trainer logprobs, |difference| per token
        metrics["logprob_mismatch"] = old.mismatch_mean
        metrics["logprob_mismatch_max"] = old.mismatch_max
    by_type: dict[str, list[EpisodeSlot]] = defaultdict(list)
    for slot in slots:
        if slot.player_type:
            by_type[slot.player_type].append(slot)
    for player_type, group in sorted(by_type.items()):
        for key, value in _outcome(group).items():
            metrics[f"type/{player_type}/{key}"] = value
    return metrics


ROLES = ("policy", "partner", "judge")


def failure_counts(
    slots: Sequence[EpisodeSlot],
    judge_levels: Mapping[SampleKey, float | None],
    judge_retries: int = 0,
) -> dict[str, int]:
    """Failed and sent requests per role, as ``failures/<role>`` and ``requests/<role>``, and
    the judge's further calls for unusable verdicts (``retries/judge``).

    Why: a partner or judge server that fails every request otherwise shows only as a lower
    reward; counted, it is logged each iteration and can stop the run (``train.max_failure_rate``).
    Policy: decisions its engine produced no completion for (e.g. a prompt over the limit);
    partner: LLM partners' engine requests; judge: judged steps left without a level.
    """
    samples = [s for slot in slots for s in slot.samples]
    calls = [
        c
        for slot in slots
        for player in slot.players.values()
        if isinstance(player, LLMPlayer)
        for c in player.calls
    ]
    return {
        "failures/policy": sum(s.error is not None for s in samples),
        "requests/policy": len(samples),
        "failures/partner": sum(c.failures for c in calls),
        "requests/partner": sum(c.attempts for c in calls),
        "failures/judge": sum(level is None for level in judge_levels.values()),
        "requests/judge": len(judge_levels),
        "retries/judge": judge_retries,
    }


def failure_rates(m: Mapping[str, Any]) -> dict[str, float]:
    """Role -> share of its requests that failed, for the roles that sent any."""
    return {
        role: m[f"failures/{role}"] / m[f"requests/{role}"]
        for role in ROLES
        if m.get(f"requests/{role}")
    }


SUMMED = (
    "decisions",
    "trained_samples",
    *(f"{count}/{role}" for count in ("failures", "requests") for role in ROLES),
    "retries/judge",
)


def combine_ranks(per_rank: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One iteration's metrics over all processes: counts add up, a time or a maximum is the
    largest rank's, everything else is the mean over the ranks that report it (every rank plays
    as many groups)."""
    keys = dict.fromkeys(k for m in per_rank for k in m)
    combined: dict[str, Any] = {}
    for key in keys:
        values = [m[key] for m in per_rank if key in m]
        if key in SUMMED:
            combined[key] = sum(values)
        elif key.startswith("time/") or key.endswith("_max"):
            combined[key] = max(values)
        else:
            combined[key] = float(np.mean(values))
    return combined


def summary_line(iteration: int, m: dict[str, Any]) -> str:
    """One human-readable line per iteration."""
    outcome = (
        f"score {m['score']:.1f}"
        if "score" in m
        else f"success {m.get('success_rate', 0):.2f} steps {m.get('steps', 0):.1f}"
    )
    failed = [
        f"{role} {m[f'failures/{role}']}/{m[f'requests/{role}']}"
        for role in ROLES
        if m.get(f"failures/{role}")
    ]
    return (
        f"iter {iteration}: {outcome} | eff {m['reward/efficiency']:.3f} "
        f"fmt {m['reward/format']:.3f} msg/step {m['messages_per_step']:.2f} "
        f"valid {m['valid_rate']:.2f} | kl {m['kl']:.4f} clip {m['clip_fraction']:.2f} "
        f"| {m['time/iteration']:.1f}s" + (f" | failed {' '.join(failed)}" if failed else "")
    )
