"""Enumerate the evaluation episodes and play them, keeping what the judges and tables need.

One job = (game, task, test profile in the partner seat, evaluated seat, seed). Each episode gets
fresh players, so jobs are independent and may run on several threads (useful when the policy or
partner is a remote LLM; local engines should keep ``workers=1``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from collabrl.config import EvalSpec, eval_section
from collabrl.envs.registry import GameSection, get_game
from collabrl.errors import CollabrlError
from collabrl.eval.players import (
    OraclePlayer,
    PartnerFactory,
    PolicyFactory,
    RecordingPlayer,
    generated_tokens,
)
from collabrl.profiles import Profile, has_profiles, interleaved_by_type, load_profiles
from collabrl.rewards.judges import StepView, WindowJudgement, step_views
from collabrl.rollout.episode import EpisodeRecord, play_episode


@dataclass(frozen=True)
class Job:
    game: str
    task: str
    profile: Profile | None  # None: a game without test profiles, played by a profile-free partner
    seat: int  # 1 = Agent 1 (first seat), 2 = Agent 2
    seed: int

    @property
    def profile_id(self) -> str | None:
        return self.profile.id if self.profile is not None else None

    @property
    def player_type(self) -> str | None:
        return self.profile.player_type if self.profile is not None else None


@dataclass
class EpisodeOutcome:
    """One played episode from the evaluated seat's point of view; judge fields filled later."""

    job: Job
    seat_name: str
    record: EpisodeRecord
    views: list[StepView]
    efficiency: float  # the game's efficiency column (household: steps, failure = max ticks)
    tokens_per_step_k: float
    stalled: bool = False  # ended by the decision safety cap: reported apart, not as a failure
    windows: list[list[int]] = field(default_factory=list)  # decision indices per window
    judgements: list[dict[str, WindowJudgement]] = field(default_factory=list)
    scores: dict[str, float | None] = field(default_factory=dict)
    # seat -> the observation text of each of its decisions, in order (the prompts the viewer shows)
    observations: dict[str, list[str]] = field(default_factory=dict)

    @property
    def decisions(self) -> int:
        return len(self.views)

    @property
    def message_ratio(self) -> float:
        """rho: share of the evaluated seat's decisions that sent a message."""
        return sum(v.sent_message for v in self.views) / self.decisions if self.views else 0.0


def select_jobs(spec: EvalSpec) -> list[Job]:
    """Every requested task x test profile x seat x seed, in a stable order.

    A game without test profiles is played once per task and seed with ``profile=None``, by a
    partner that needs none (the expert, or the profile-free LLM)."""
    jobs = []
    for game in spec.games or ():
        library = has_profiles(game)
        tasks = [t for t in get_game(game).tasks("test") if spec.tasks is None or t in spec.tasks]
        for task in tasks:
            profiles = load_profiles(game=game, split="test", task=task) if library else []
            if spec.profiles is not None:
                profiles = [p for p in profiles if p.id in spec.profiles]
            if spec.max_profiles:  # a small sample still spans the player types
                profiles = interleaved_by_type(profiles)[: spec.max_profiles]
            if not profiles and spec.profiles is None:
                profiles = [_profile_free(spec, game)]
            jobs += [
                Job(game, task, p, seat, seed)
                for p in profiles
                for seat in spec.seats
                for seed in spec.seeds
            ]
    return jobs


def _profile_free(spec: EvalSpec, game: str) -> None:
    """The stand-in profile of a game that has no test profiles (its partner must need none)."""
    if spec.partner.kind == "persona" or (spec.partner.kind == "llm" and spec.partner.use_profile):
        raise CollabrlError(
            f"the {game} game has no test profiles: evaluate it with partner.kind=expert or an "
            "llm partner with partner.use_profile=false"
        )


def game_spec(spec: EvalSpec, job: Job) -> GameSection:
    """The game section of one job: the game's evaluation options for the job's task."""
    return eval_section(job.game, job.task, spec.game_options.get(job.game))


def efficiency(game: str, summary: dict[str, Any]) -> float:
    """The CB-Efficiency number: the game's efficiency column (household steps, failures
    counting as the tick limit; kitchen score)."""
    return float(summary[get_game(game).efficiency_metric])


def play_job(
    spec: EvalSpec, job: Job, make_policy: PolicyFactory, make_partner: PartnerFactory
) -> EpisodeOutcome:
    """Play one job with fresh players and return the evaluated seat's outcome."""
    from collabrl.factory import make_game

    gspec = game_spec(spec, job)
    game = make_game(gspec)
    me, other = game.agents[job.seat - 1], game.agents[2 - job.seat]
    policy = make_policy(game, gspec, job.seed)
    partner = RecordingPlayer(make_partner(job.profile, game, gspec, job.seed))
    oracle = spec.oracle and job.profile is not None
    seated = OraclePlayer(policy, job.profile, partner) if oracle else policy
    recorder = RecordingPlayer(seated)
    record = play_episode(game, {me: recorder, other: partner}, seed=job.seed)
    views = step_views(
        job.game,
        recorder.observations,
        recorder.decisions,
        message_action=game.message_action,
    )  # no partner profile: the evaluation judges see the interaction alone (paper E.4)
    tokens = generated_tokens(policy)
    return EpisodeOutcome(
        job=job,
        seat_name=me,
        record=record,
        views=views,
        efficiency=efficiency(job.game, record.summary),
        tokens_per_step_k=tokens / len(views) / 1000 if views else 0.0,
        stalled=bool(record.summary.get("stalled", False)),
        observations={p.seat: [o.text for o in p.observations] for p in (recorder, partner)},
    )


def play_all(
    spec: EvalSpec,
    jobs: Iterable[Job],
    make_policy: PolicyFactory,
    make_partner: PartnerFactory,
    progress: Callable[[], None] = lambda: None,
) -> list[EpisodeOutcome]:
    """Play every job (on ``spec.workers`` threads), calling ``progress`` after each episode."""

    def one(job: Job) -> EpisodeOutcome:
        outcome = play_job(spec, job, make_policy, make_partner)
        progress()
        return outcome

    if spec.workers == 1:
        return [one(job) for job in jobs]
    with ThreadPoolExecutor(spec.workers) as pool:
        return list(pool.map(one, jobs))
