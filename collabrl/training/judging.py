"""Judge the policy's steps while the rollout goes on, then hand back the interactivity levels.

After every policy round the round's new steps become judge inputs (``StepView``: the step plus
what the partner said since the seat last decided and what the seat itself achieved) and go to a
background thread as one batched judge call, so LLM judging overlaps the rest of the rollout. A
judge failure leaves the step's level missing (None), never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from collabrl.envs.base import Observation
from collabrl.rewards.judges.views import step_views
from collabrl.training.lockstep import EpisodeSlot, Sample
from collabrl.training.rewards import SampleKey, sample_key

if TYPE_CHECKING:
    from collabrl.profiles import Profile


class StepJudging:
    """Per-rollout judging state: each episode's history and the batches in flight."""

    def __init__(self, judge, profiles: Mapping[str, Profile], workers: int = 2) -> None:
        self.judge, self.profiles = judge, profiles
        self.pool = ThreadPoolExecutor(workers) if judge is not None else None
        # (group, episode, seat) -> that seat's observations and decisions so far
        self.history: dict[tuple[int, int, str], tuple[list[Observation], list[Sample]]] = {}
        self.batches: list[tuple[list[SampleKey], Future]] = []
        self.retries = 0  # further judge calls for unusable verdicts, once collected

    def submit(self, steps: Sequence[tuple[EpisodeSlot, Sample, Observation]]) -> None:
        """Queue one policy round's steps (invalid ones need no judge: their reward is 0)."""
        if self.pool is None:
            return
        keys, views = [], []
        for slot, sample, obs in steps:
            seen = (slot.group, slot.episode, sample.seat)
            observations, samples = self.history.setdefault(seen, ([], []))
            observations.append(obs)
            samples.append(sample)
            if not sample.valid:
                continue
            profile = self.profiles.get(slot.profile_id) if slot.profile_id else None
            view = step_views(
                slot.game.name,
                observations,
                samples,
                message_action=slot.game.message_action,
                partner_profile=profile.persona() if profile is not None else "",
            )[-1]
            keys.append(sample_key(sample))
            views.append(view)
        if views:
            self.batches.append((keys, self.pool.submit(self._judge, views)))

    def _judge(self, views: list) -> tuple[list[float | None], int]:
        """The batch's levels and the retries its unusable verdicts took."""
        try:
            judged = self.judge.judge_steps(views)
        except Exception:  # a judge failure is a missing reward, not a crashed run
            return [None] * len(views), 0
        return [j.level for j in judged], sum(j.attempts - 1 for j in judged)

    def collect(self) -> dict[SampleKey, float | None]:
        """Wait for every batch; sample key -> level (None where the judge failed). The
        retries the batches took are added to ``retries``."""
        levels: dict[SampleKey, float | None] = {}
        for keys, future in self.batches:
            batch, retries = future.result()
            levels.update(zip(keys, batch, strict=True))
            self.retries += retries
        if self.pool is not None:
            self.pool.shutdown()
        return levels
