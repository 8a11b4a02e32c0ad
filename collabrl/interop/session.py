"""One episode of a recipe's game, played a reply at a time from the trained seat's side.

Why: OpenEnv, TRL and verifiers each drive an environment one reply at a time and ask for a
reward at the end. This is the one place that turns collabrl's episode loop, partner seats and
hybrid reward into that shape, through the trainer's own pieces (its group plans, slots, step
terms and judge), so every export scores an episode exactly as collabrl's trainer does.

An episode the outside trainer leaves unfinished (its model stopped replying) is played out with
empty replies, as collabrl's rollout plays a failed generation: each is an invalid step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from collabrl.agents.prompts import build_messages
from collabrl.agents.team import team_profiles
from collabrl.config import Recipe
from collabrl.envs.base import Observation, sends_message
from collabrl.episode import Episode, EpisodeRecord, Turn
from collabrl.errors import CollabrlError
from collabrl.factory import EngineCache, make_judge
from collabrl.interop.partners import EXPORT_PARTNERS
from collabrl.profiles import get_profile
from collabrl.rewards.judges.views import step_views
from collabrl.training.groups import GroupPlan, make_slots, partner_profiles, plan_groups
from collabrl.training.lockstep import EpisodeSlot, Sample
from collabrl.training.rewards import step_terms


@dataclass(frozen=True)
class EpisodeSpec:
    """What one episode plays (a dataset row of an export): task, partner profile and seed."""

    task: str
    profile: str | None
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def episode_specs(recipe: Recipe, count: int) -> list[EpisodeSpec]:
    """``count`` episodes drawn as collabrl's trainer draws its groups (iteration by iteration
    from the recipe seed), so an export trains on the tasks and partners the recipe states."""
    profiles = partner_profiles(recipe)
    specs: list[EpisodeSpec] = []
    iteration = 0
    while len(specs) < count:
        for plan in plan_groups(recipe, profiles, iteration):
            profile_id = getattr(plan.profile, "id", None)
            specs.append(EpisodeSpec(plan.task, profile_id, plan.seed))
        iteration += 1
    return specs[:count]


def openings(recipe: Recipe, count: int) -> Iterator[tuple[EpisodeSpec, str, str]]:
    """The first ``count`` episodes of :func:`episode_specs`, each with the trained seat's rules
    and first observation: the rows an outside trainer's dataset starts its episodes from."""
    session = CollabSession(recipe)
    try:
        for spec in episode_specs(recipe, count):
            observation = session.reset(spec)
            yield spec, session.system_prompt(), observation
    finally:
        session.close()


@dataclass
class _Step:
    """One decision of the trained seat: what it saw, what it replied, progress when asked."""

    observation: Observation
    turn: Turn
    progress: int


class CollabSession:
    """The trained seat's side of one episode at a time: :meth:`reset`, then :meth:`act` until
    :attr:`done`, then :meth:`reward` (efficiency plus the step terms, the judge included)."""

    def __init__(self, recipe: Recipe) -> None:
        if recipe.partner.kind in ("self", "none"):
            raise CollabrlError(
                f"partner.kind={recipe.partner.kind} has no partner an export can play: "
                f"use one of {', '.join(EXPORT_PARTNERS)}"
            )
        self.recipe = recipe
        self.profiles = partner_profiles(recipe)
        self.engines = EngineCache()
        self.judge = make_judge(recipe.reward.judge)
        self._slot: EpisodeSlot | None = None
        self._steps: list[_Step] = []

    @property
    def slot(self) -> EpisodeSlot:
        if self._slot is None:
            raise CollabrlError("no episode yet: call reset first")
        return self._slot

    @property
    def done(self) -> bool:
        return self.slot.running.done

    def reset(self, spec: EpisodeSpec) -> str:
        """Start ``spec``'s episode; the first observation of the trained seat."""
        profile = get_profile(spec.profile) if spec.profile else None
        partners = len(self.recipe.game.seats) - 1
        team = tuple(team_profiles(profile, self.profiles, partners)) if profile else ()
        plan = GroupPlan(spec.task, profile, spec.seed, team)
        self._slot = make_slots(self.recipe, [plan], self.engines.get(self.recipe.partner.engine))[
            0
        ]
        self._slot.play = Episode(
            self._slot.game, self._slot.players, spec.seed, self._slot.unusable_reply
        )
        self._steps = []
        self._play_partners()
        return self.observation()

    def system_prompt(self) -> str:
        """The rules the trained seat is given (the policy prompt's system message)."""
        return self._messages()[0]["content"]

    def observation(self) -> str:
        """What the trained seat is asked now (the policy prompt's user message), or the
        episode's result once it is over."""
        if self.done:
            return f"The episode is over: {self.slot.game.summary()}"
        return self._messages()[1]["content"]

    def act(self, reply: str) -> str:
        """The trained seat's reply (``<think>``, ``<message>``, ``<action>``, parsed as every
        seat's is); the game runs until the seat is asked again. The next observation."""
        slot = self.slot
        if self.done:
            raise CollabrlError("the episode is over: call reset for the next one")
        obs = slot.running.pending[slot.policy_seat]
        progress = slot.game.progress
        self._steps.append(_Step(obs, slot.running.answer(slot.policy_seat, reply), progress))
        slot.running.advance()
        self._play_partners()
        return self.observation()

    def finish(self) -> None:
        """Play the rest of the episode with empty replies (a failed generation's)."""
        while not self.done:
            self.act("")

    def reward_parts(self) -> dict[str, float]:
        """The finished episode's reward by term: the efficiency reward (weighted) and each step
        term summed over the trained seat's decisions (a failed judge call left out)."""
        self.finish()
        slot, spec = self.slot, self.recipe.reward
        levels = self._judge_levels()
        marks = [s.progress for s in self._steps[1:]] + [slot.game.progress]
        parts = {"efficiency": spec.efficiency * self.recipe.game.efficiency(slot.game.summary())}
        for i, (step, mark) in enumerate(zip(self._steps, marks, strict=True)):
            terms = step_terms(self._sample(i), levels[i], mark - step.progress, spec)
            for name, value in terms.items():
                parts[name] = parts.get(name, 0.0) + (
                    value if isinstance(value, (int, float)) else 0.0
                )
        return parts

    def reward(self) -> float:
        """The finished episode's scalar reward: efficiency plus every step reward r_t (one
        number per episode, what a GRPO trainer compares; :meth:`reward_parts` keeps the two
        levels apart, as collabrl's GiGPO does)."""
        return sum(self.reward_parts().values())

    def record(self) -> EpisodeRecord:
        """The episode's record (every seat's turns and the game's summary)."""
        return self.slot.running.record()

    def close(self) -> None:
        self.engines.close()

    def _messages(self) -> list[dict[str, str]]:
        slot = self.slot
        obs = slot.running.pending[slot.policy_seat]
        return build_messages(slot.game, obs, layout=slot.prompt)

    def _play_partners(self) -> None:
        """Partners answer and the game steps until the trained seat is owed a decision."""
        episode, seat = self.slot.running, self.slot.policy_seat
        while not episode.done:
            for other in episode.waiting():
                if other != seat:
                    episode.answer(other, self.slot.players[other].act(episode.pending[other]))
            if seat in episode.waiting():
                return
            episode.advance()

    def _sample(self, i: int) -> Sample:
        """Decision ``i`` as the trainer's sample (no tokens: only its scoring fields count)."""
        step, game = self._steps[i], self.slot.game
        turn = step.turn
        return Sample(
            group=0,
            episode=0,
            decision=i,
            tick=step.observation.tick,
            prompt_ids=[],
            response_ids=[],
            rollout_logprobs=[],
            anchor=step.observation.anchor,
            valid=turn.valid,
            sent_message=sends_message(turn.action, turn.message, game.message_action),
            text=turn.response,
            observation=step.observation.text,
            think=turn.think,
            message=turn.message,
            action=turn.action,
            progress_at=step.progress,
        )

    def _judge_levels(self) -> list[float | None]:
        """The judge's level of each decision (None: no judge, an invalid step or a failed call;
        the step terms score those as the trainer does)."""
        levels: list[float | None] = [None] * len(self._steps)
        if self.judge is None or not self._steps:
            return levels
        slot = self.slot
        profile = get_profile(slot.profile_id) if slot.profile_id else None
        views = step_views(
            slot.game.name,
            [s.observation for s in self._steps],
            [s.turn for s in self._steps],
            message_action=slot.game.message_action,
            partner_profile=profile.persona() if profile is not None else "",
        )
        valid = [i for i, s in enumerate(self._steps) if s.turn.valid]
        try:
            judged = self.judge.judge_steps([views[i] for i in valid]) if valid else []
        except Exception:  # a judge failure is a missing reward, as in training
            return levels
        for i, verdict in zip(valid, judged, strict=True):
            levels[i] = verdict.level
        return levels
