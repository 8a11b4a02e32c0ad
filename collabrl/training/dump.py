"""Sampled training episodes for ``collabrl view``: ``train.dump_rollouts`` (every N iterations,
how many episodes) appends them to ``<run_dir>/rollouts.jsonl``.

Each episode is one record in the trajectory schema evaluation writes (game, task, profile,
seat, summary, turns, ...), plus ``iteration``. Its turns are every seat's, in play order (the
episode loop keeps the partners' too, so the viewer shows both seats and can replay a board);
each policy decision also carries what training made of it: the prompt (observation text), the
reply and its parse, reward parts, the episode- and step-level advantages and the judge's level
with its rationale, and is marked ``trainable``: every trained seat's (several, where the recipe
trains several). A partner's turn is its reply and parse, labelled with its player and marked
untrainable. Records
are appended as whole lines and flushed, so a viewer reading the file while the run goes on never
sees half a record.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Hashable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.agents.protocol import parse_response
from collabrl.algos.gigpo import AdvantageParts
from collabrl.config import DumpSpec
from collabrl.envs.registry import get_game
from collabrl.episode import Turn
from collabrl.records import jsonl_line
from collabrl.rewards.judges import DIMENSIONS, StepView
from collabrl.training.lockstep import EpisodeSlot, Sample
from collabrl.training.rewards import Scored, sample_key

ROLLOUTS = "rollouts.jsonl"
_ACTION_LINE = re.compile(r"^[A-Z]+\. (.*)$")


def due(spec: DumpSpec, iteration: int) -> bool:
    """Whether iteration ``iteration`` (0-based) is dumped."""
    return spec.every > 0 and (iteration + 1) % spec.every == 0


def keep_rationales(judge: Any, spec: DumpSpec) -> Any:
    """``judge`` wrapped to keep its rationales when rollouts are dumped (else ``judge``)."""
    return RationaleKeeper(judge) if judge is not None and spec.every > 0 else judge


class RationaleKeeper:
    """Passes judge calls through and keeps each step verdict's level and rationale, keyed by
    what was judged, so the dump can show why a step got its judge reward."""

    def __init__(self, judge: Any) -> None:
        self.judge, self.name, self.proxy = judge, judge.name, judge.proxy
        self.verdicts: dict[Hashable, tuple[float | None, str]] = {}
        self._lock = threading.Lock()

    def judge_steps(self, steps: Sequence[StepView]) -> list:
        verdicts = self.judge.judge_steps(steps)
        with self._lock:
            for view, verdict in zip(steps, verdicts, strict=True):
                self.verdicts[_judged(view.tick, view.observation, view.think, view.message)] = (
                    verdict.level,
                    verdict.rationale or verdict.error or "",
                )
        return verdicts

    def judge_windows(self, windows, dimensions=DIMENSIONS):
        return self.judge.judge_windows(windows, dimensions)

    def pop(self) -> dict[Hashable, tuple[float | None, str]]:
        """The verdicts kept since the last call (one iteration's)."""
        with self._lock:
            verdicts, self.verdicts = self.verdicts, {}
        return verdicts


def _judged(tick: int, observation: str, think: str, message: str) -> Hashable:
    return tick, observation, think, message


def _offered(observation: str) -> list[str]:
    """The available actions, read back from the lettered list that ends every observation."""
    tail = observation.rpartition("Available actions:")[2]
    return [m.group(1) for line in tail.split("\n") if (m := _ACTION_LINE.match(line))]


def dump_rollouts(
    run_dir: Path,
    spec: DumpSpec,
    iteration: int,
    seed: int,
    slots: Sequence[EpisodeSlot],
    scored: Scored,
    advantages: AdvantageParts,
    judge: RationaleKeeper | Any | None,
) -> None:
    """Append ``spec.episodes`` episodes of this iteration (drawn with the run's seed) to
    ``run_dir/rollouts.jsonl``; does nothing on iterations that are not due."""
    verdicts = judge.pop() if isinstance(judge, RationaleKeeper) else {}
    if not due(spec, iteration) or not slots:
        return
    rng = np.random.default_rng([seed, iteration, 3])
    chosen = sorted(rng.choice(len(slots), size=min(spec.episodes, len(slots)), replace=False))
    index = {sample_key(s): i for i, s in enumerate(scored.samples)}
    lines = []
    for k in chosen:
        slot = slots[int(k)]
        policy = iter(
            _turn(slot, s, index.get(sample_key(s)), advantages, verdicts) for s in slot.samples
        )
        turns = [
            next(policy) if t.seat in slot.trained_seats else _partner_turn(slot, t)
            for t in slot.running.turns
        ]
        lines.append(jsonl_line(_record(slot, turns, iteration)) + "\n")
    with open(run_dir / ROLLOUTS, "a", encoding="utf-8") as f:
        f.writelines(lines)
        f.flush()
        os.fsync(f.fileno())


def _turn(
    slot: EpisodeSlot,
    s: Sample,
    i: int | None,
    advantages: AdvantageParts,
    verdicts: dict[Hashable, tuple[float | None, str]],
) -> dict[str, Any]:
    """One policy decision with its rewards and advantages (None where it was not trained on)."""
    parsed = parse_response(
        s.text, _offered(s.observation), message_action=slot.game.message_action
    )
    level, rationale = verdicts.get(_judged(s.tick, s.observation, s.think, s.message), (None, ""))
    total = float(advantages.total[i]) if i is not None else None
    episode = float(advantages.episode[i]) if i is not None else None
    return {
        "tick": s.tick,
        "seat": s.seat,
        "response": s.text,
        "think": s.think,
        "message": s.message,
        "action": s.action,
        "valid": s.valid,
        "errors": parsed.errors + ([f"engine: {s.error}"] if s.error else []),
        "player": "policy",
        "trainable": True,
        "observation": s.observation,
        "rewards": s.rewards,
        "advantage": total,
        "episode_advantage": episode,
        "step_advantage": None if total is None or episode is None else total - episode,
        "judge_level": level,
        "judge_rationale": rationale,
    }


def _partner_turn(slot: EpisodeSlot, turn: Turn) -> dict[str, Any]:
    """A partner's decision as the episode loop kept it (no prompt: only the policy's is kept);
    marked untrainable: frozen players and endpoints are never updated."""
    return {**asdict(turn), "player": slot.players[turn.seat].name, "trainable": False}


def _record(slot: EpisodeSlot, turns: list[dict[str, Any]], iteration: int) -> dict[str, Any]:
    summary = slot.summary
    seats = list(slot.game.agents)
    return {
        "game": slot.game.name,
        "task": get_game(slot.game.name).task_of(summary),
        "profile": slot.profile_id,
        "player_type": slot.player_type,
        "seat": f"Agent {seats.index(slot.policy_seat) + 1}",
        "seat_name": slot.policy_seat,
        "seed": slot.seed,
        "efficiency": slot.efficiency,
        "message_ratio": sum(s.sent_message for s in slot.samples) / max(1, len(slot.samples)),
        "tokens_per_step_k": 0.0,
        "scores": {},
        "summary": summary,
        "turns": turns,
        "windows": [],
        "iteration": iteration,
        "group": slot.group,
        "episode": slot.episode,
        "stamp": {"source": "train", "policy": "policy"},
    }
