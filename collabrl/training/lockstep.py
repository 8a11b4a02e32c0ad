"""Lockstep rollout of G groups x N episodes for the trained seats of every game: many
:class:`collabrl.episode.Episode` loops driven together.

Each round, every trained seat that a game is waiting on contributes one prompt to a single
batched policy-engine call (one shared policy plays every trained seat: the prompt names the seat); partner seats answer in-process (scripted players) or in one batched
call per LLM engine. Every policy decision becomes a :class:`Sample`; step rewards that need a
judge are handed to ``on_steps`` as soon as the decision is known, so judging overlaps the rest
of the rollout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from collabrl.agents.llm_player import LLMPlayer, act_all
from collabrl.agents.player import Player
from collabrl.agents.prompts import build_messages
from collabrl.engines.types import Engine, GenerationResult, SamplingParams
from collabrl.envs.base import Game, Observation, sends_message
from collabrl.envs.registry import UnusableReply
from collabrl.episode import Episode, Turn
from collabrl.prompt_files import PromptLayout


class StepRewards(TypedDict, total=False):
    """The step-level reward terms of one decision (empty until the rollout is scored)."""

    format: float
    communication: float
    judge: float | None  # None: the judge call failed
    progress: float


@dataclass
class Sample:
    """One decision of a trained seat: what it saw, what it wrote, and how it was scored."""

    group: int
    episode: int
    decision: int  # index of this decision within its episode (time order)
    tick: int
    prompt_ids: list[int]
    response_ids: list[int]
    rollout_logprobs: list[float]  # what the sampling engine reported for each response token
    anchor: Hashable
    valid: bool
    sent_message: bool  # see collabrl.envs.base.sends_message
    text: str
    observation: str
    think: str = ""
    message: str = ""
    action: str | None = None
    progress_at: int = 0  # the game's goal units completed when this decision was asked for
    error: str | None = None  # why the engine produced no completion (e.g. prompt too long)
    rewards: StepRewards = field(default_factory=StepRewards)
    seat: str = ""  # the trained seat that decided (its groups and anchor groups are its own)

    @property
    def trainable(self) -> bool:
        """Has tokens to learn from (a failed generation has none)."""
        return bool(self.response_ids)


@dataclass
class EpisodeSlot:
    """One episode of the rollout: its game, players and what came out of it."""

    group: int
    episode: int
    game: Game
    players: dict[str, Player]  # partner seats only
    policy_seat: str  # the lead trained seat: records name it as the agent's
    profile_id: str | None
    player_type: str | None
    seed: int
    unusable_reply: UnusableReply = "idle"  # the game section's option
    play: Episode | None = None  # the episode loop, set when the rollout starts
    samples: list[Sample] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    final_progress: int = 0  # the game's goal units completed at the end
    efficiency: float = 0.0  # the episode-level reward, filled in by scoring
    prompt: PromptLayout = "paper"  # the policy's prompt layout (``policy.prompt``)
    more_seats: tuple[str, ...] = ()  # further seats the policy plays and learns from

    @property
    def trained_seats(self) -> tuple[str, ...]:
        """Every seat the policy plays, the lead seat first."""
        return (self.policy_seat, *self.more_seats)

    @property
    def running(self) -> Episode:
        """The episode loop, once :func:`run_rollout` has started it."""
        assert self.play is not None, "the rollout has not started this slot"
        return self.play


@dataclass
class RolloutTimes:
    """Wall time spent per part of the rollout (seconds)."""

    generation: float = 0.0
    partners: float = 0.0
    game: float = 0.0


def _policy_round(
    slots: Sequence[EpisodeSlot], engine: Engine, params: SamplingParams, round_index: int
) -> dict[tuple[int, str], GenerationResult]:
    """One batched policy call for every trained seat a slot is waiting on:
    (slot index, seat) -> result."""
    waiting = [
        (i, seat)
        for i, s in enumerate(slots)
        for seat in s.trained_seats
        if seat in s.running.waiting()
    ]
    if not waiting:
        return {}
    chats = [
        build_messages(slots[i].game, slots[i].running.pending[seat], layout=slots[i].prompt)
        for i, seat in waiting
    ]
    seed = None if params.seed is None else params.seed * 100_003 + round_index
    results = engine.generate(chats, SamplingParams(**{**params.__dict__, "seed": seed}))
    return dict(zip(waiting, results, strict=True))


def _sample(
    slot: EpisodeSlot, seat: str, obs: Observation, result: GenerationResult, turn: Turn
) -> Sample:
    """``seat``'s decision ``turn`` (generated as ``result`` from ``obs``) as a training sample."""
    completion = result.completions[0] if result.completions else None
    return Sample(
        group=slot.group,
        episode=slot.episode,
        decision=len(slot.samples),
        tick=obs.tick,
        prompt_ids=list(result.prompt_token_ids or []) if completion else [],
        response_ids=list(completion.token_ids or []) if completion else [],
        rollout_logprobs=list(completion.logprobs or []) if completion else [],
        anchor=obs.anchor,
        valid=turn.valid,
        sent_message=sends_message(turn.action, turn.message, slot.game.message_action),
        text=turn.response,
        observation=obs.text,
        think=turn.think,
        message=turn.message,
        action=turn.action,
        progress_at=slot.game.progress,
        error=result.error if completion is None else None,
        seat=seat,
    )


def _partner_round(slots: Sequence[EpisodeSlot]) -> None:
    """Every waiting partner seat answers: LLM partners batched, scripted ones in-process."""
    llm_requests: list[tuple[LLMPlayer, Observation]] = []
    llm_keys: list[tuple[EpisodeSlot, str]] = []
    for slot in slots:
        for seat in slot.running.waiting():
            if seat in slot.trained_seats:
                continue
            player, obs = slot.players[seat], slot.running.pending[seat]
            if isinstance(player, LLMPlayer):
                llm_requests.append((player, obs))
                llm_keys.append((slot, seat))
            else:
                slot.running.answer(seat, player.act(obs))
    for (slot, seat), text in zip(llm_keys, act_all(llm_requests), strict=True):
        slot.running.answer(seat, text)


def run_rollout(
    slots: Sequence[EpisodeSlot],
    engine: Engine,
    params: SamplingParams,
    on_steps: Callable[[list[tuple[EpisodeSlot, Sample, Observation]]], None] | None = None,
) -> RolloutTimes:
    """Play every slot to the end in lockstep; fills ``slot.samples`` and ``slot.summary``.

    Each round: one batched policy call for the trained seats the slots wait on (their
    decisions go to ``on_steps`` at once, so judging overlaps the rest of the round), then the
    partners, then one step of every game (:class:`collabrl.episode.Episode`)."""
    times = RolloutTimes()
    for slot in slots:
        slot.play = Episode(slot.game, slot.players, slot.seed, slot.unusable_reply)
    round_index = 0
    while any(not s.running.done for s in slots):
        t0 = time.perf_counter()
        generated = _policy_round(slots, engine, params, round_index)
        new_steps = []
        for (i, seat), result in generated.items():
            slot = slots[i]
            obs = slot.running.pending[seat]
            completion = result.completions[0] if result.completions else None
            turn = slot.running.answer(seat, completion.text if completion else "")
            slot.samples.append(_sample(slot, seat, obs, result, turn))
            new_steps.append((slot, slot.samples[-1], obs))
        if on_steps is not None and new_steps:
            on_steps(new_steps)
        t1 = time.perf_counter()
        _partner_round(slots)
        t2 = time.perf_counter()
        for slot in slots:
            if slot.running.advance() and slot.running.done:
                slot.summary = slot.game.summary()
                slot.final_progress = slot.game.progress
        times.generation += t1 - t0
        times.partners += t2 - t1
        times.game += time.perf_counter() - t2
        round_index += 1
    return times
