"""Enumerate the evaluation episodes and play them, keeping what the judges and tables need.

One job = (game, task, test profile in the partner seat, evaluated seat, seed); in the team grid
(``eval.teams``) also the team size and collaboration structure, with one profile per teammate
(:mod:`collabrl.agents.team`). Each episode gets fresh players, so jobs are independent and may
run on several threads (``eval.workers``): concurrency for a remote LLM, and for a local model
batched decoding in reproducible rounds (:mod:`collabrl.engines.batching`). Every episode's
process metrics (:mod:`collabrl.eval.process`) are computed from the agent's seat.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from collabrl.agents.team import brief, guidance_packs, guided, team_profiles
from collabrl.config import EvalSpec, eval_section
from collabrl.config.roles import MOTION_PARTNERS
from collabrl.envs.registry import GameSection, get_game, human_partners_of
from collabrl.episode import EpisodeRecord, play_episode
from collabrl.errors import CollabrlError
from collabrl.eval.players import (
    OraclePlayer,
    PartnerFactory,
    PolicyFactory,
    RecordingPlayer,
    generated_tokens,
    partner_names,
)
from collabrl.eval.process import JUDGEMENT_KEYS, episode_process
from collabrl.eval.tokens import reply_tokens
from collabrl.profiles import Profile, has_profiles, interleaved_by_type, load_profiles
from collabrl.rewards.judges import Judge, LLMJudge, StepView, WindowJudgement, step_views
from collabrl.rewards.judges.hypothesis import judge_submissions
from collabrl.rewards.judges.trace import judge_episode_traces

if TYPE_CHECKING:
    from collabrl.engines.batching import LockstepBatcher


@dataclass(frozen=True)
class Job:
    game: str
    task: str
    profile: Profile | None  # None: a game without test profiles, played by a profile-free partner
    seat: int  # 1 = Agent 1 (first seat), 2 = Agent 2
    seed: int
    size: int | None = None  # team grid: seats in the team (None: the recipe's seats)
    structure: str | None = None  # team grid: the collaboration structure
    team: tuple[Profile | None, ...] = ()  # team grid: each teammate's profile, in seat order
    composition: tuple[str, ...] | None = None  # composition grid: the teammates' profile types

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
    efficiency_reward: float = 0.0  # the episode's training efficiency reward (R_e, the game's)
    partner: str | None = None  # a population member or human proxy (players.partner_names)
    windows: list[list[int]] = field(default_factory=list)  # decision indices per window
    judgements: list[dict[str, WindowJudgement]] = field(default_factory=list)
    scores: dict[str, float | None] = field(default_factory=dict)
    process: dict[str, Any] = field(default_factory=dict)  # collabrl.eval.process metrics
    # seat -> the observation text of each of its decisions, in order (the prompts the viewer shows)
    observations: dict[str, list[str]] = field(default_factory=dict)

    @property
    def decisions(self) -> int:
        return len(self.views)

    @property
    def message_ratio(self) -> float:
        """rho: share of the evaluated seat's decisions that sent a message."""
        return sum(v.sent_message for v in self.views) / self.decisions if self.views else 0.0

    @property
    def valid_rate(self) -> float:
        """Share of the evaluated seat's decisions that were usable replies."""
        return sum(v.valid for v in self.views) / self.decisions if self.views else 0.0


def select_jobs(spec: EvalSpec) -> list[Job]:
    """Every requested task x test profile x seat x seed, in a stable order (the team grid:
    :func:`team_jobs`).

    A game without test profiles is played once per task and seed with ``profile=None``, by a
    partner that needs none (the expert, or the profile-free LLM)."""
    if spec.teams is not None:
        return team_jobs(spec)
    jobs = []
    for game in spec.games or ():
        for task in _tasks(spec, game):
            jobs += [
                Job(game, task, p, seat, seed)
                for p in _profiles(spec, game, task)
                for seat in spec.seats
                for seed in spec.seeds
            ]
    return jobs


def team_jobs(spec: EvalSpec) -> list[Job]:
    """The team grid: structure x size x task x first teammate's profile x seat x seed.

    Sizes a game cannot field are skipped (the kitchen stays two chefs); a team of one plays
    each task once per seat and seed, with no profile; seats past the team size are skipped.
    A composition grid (``teams.compositions``): :func:`composition_jobs`."""
    assert spec.teams is not None
    jobs = []
    for game in spec.games or ():
        if spec.teams.compositions is not None and get_game(game).collaborator_profiles:
            jobs += composition_jobs(spec, game)
            continue
        for structure in spec.teams.structures:
            for size in spec.teams.sizes:
                for task in _tasks(spec, game):
                    section = eval_section(game, task, spec.game_options.get(game))
                    try:
                        section.with_team(size, structure)
                    except ValueError:
                        continue
                    pool = _pool(game, task, spec.split)
                    firsts = _profiles(spec, game, task) if size > 1 else [None]
                    jobs += [
                        Job(game, task, first, seat, seed, size, structure, team)
                        for first in firsts
                        for team in [team_profiles(first, pool, size - 1)]
                        for seat in spec.seats
                        if seat <= size
                        for seed in spec.seeds
                    ]
    return jobs


def composition_jobs(spec: EvalSpec, game: str) -> list[Job]:
    """The composition grid of ``game``: (structure, composition) x task x first teammate's
    profile x seed, the agent in the first seat (it leads; ``eval.seats`` beyond 1 do not
    apply), the collaborators drawn from the task's test profiles like the team grid's."""
    assert spec.teams is not None
    jobs = []
    for structure, comp in spec.teams.variants():
        for task in _tasks(spec, game):
            pool = _pool(game, task, spec.split)
            firsts = _profiles(spec, game, task) if comp else [None]
            jobs += [
                Job(game, task, first, 1, seed, 1 + len(comp), structure, team, tuple(comp))
                for first in firsts
                for team in [team_profiles(first, pool, len(comp))]
                for seed in spec.seeds
            ]
    return jobs


def _tasks(spec: EvalSpec, game: str) -> list[str]:
    return [t for t in get_game(game).tasks(spec.split) if spec.tasks is None or t in spec.tasks]


def _pool(game: str, task: str, split: str = "test") -> list[Profile]:
    """A task's profiles of ``split`` (test; train when validating) spread over player types:
    the order teammates are drawn in."""
    return interleaved_by_type(_task_profiles(game, task, split))


def _task_profiles(game: str, task: str, split: str = "test") -> list[Profile]:
    """A task's profiles of ``split``; none for a task the library does not cover (a DiscoveryBench
    task joins an analysis library's test split unprofiled), which plays profile-free."""
    if not has_profiles(game):
        return []
    return [p for p in load_profiles(game=game, split=split) if p.task == task]


def _profiles(spec: EvalSpec, game: str, task: str) -> list[Profile | None]:
    """The profiles of ``eval.split`` a task is played with (the partner's, or the first
    teammate's)."""
    profiles = _task_profiles(game, task, spec.split)
    if spec.profiles is not None:
        profiles = [p for p in profiles if p.id in spec.profiles]
    if spec.max_profiles:  # a small sample still spans the player types
        profiles = interleaved_by_type(profiles)[: spec.max_profiles]
    if not profiles and spec.profiles is None:
        _check_profile_free(spec, game)
        return [None]  # the stand-in: a profile-free partner
    return list(profiles)


def _check_profile_free(spec: EvalSpec, game: str) -> None:
    """A game that has no test profiles is played profile-free: its partner must need none."""
    try:
        spec.check_partner_profiles([game])
    except ValueError as exc:
        raise CollabrlError(str(exc)) from None


def game_spec(spec: EvalSpec, job: Job) -> GameSection:
    """The game section of one job: the game's evaluation options for the job's task (and, in
    the team grid, the job's team size and structure)."""
    section = eval_section(job.game, job.task, spec.game_options.get(job.game))
    if job.size is None:
        return section
    assert job.structure is not None, "team_jobs gives every team-grid job its structure"
    if job.composition is not None:
        return section.with_teammates(list(job.composition), job.structure)
    return section.with_team(job.size, job.structure)


def efficiency(game: str, summary: dict[str, Any]) -> float:
    """The CB-Efficiency number: the game's efficiency column (household steps, failures
    counting as the tick limit; kitchen score)."""
    return float(summary[get_game(game).efficiency_metric])


def _llm(judge: Judge, option: str) -> LLMJudge:
    """The evaluation's judge as the LLM judge an ``option=llm`` pass needs (lint checks it;
    this guards programmatic specs)."""
    if not isinstance(judge, LLMJudge):
        raise CollabrlError(f"{option}=llm needs an LLM judge, not {judge.name}")
    return judge


def _summaries(outcomes: Sequence[EpisodeOutcome]) -> list[tuple[str, dict[str, Any]]]:
    return [(o.job.game, o.record.summary) for o in outcomes]


def rescore_hypotheses(spec: EvalSpec, outcomes: Sequence[EpisodeOutcome], judge: Judge) -> None:
    """With ``hypothesis_judge=llm`` (``llm_free_text``), rescore the written (free-text)
    submissions through the LLM judge
    (:func:`collabrl.rewards.judges.hypothesis.judge_submissions`) and recompute the numbers read
    from the score. Why after playing, not in :func:`play_job`: one batched judge call for every
    episode; and the journal keeps episodes as played, so a resumed run judges them again (the
    engine's cache answers) and scores what an uninterrupted one would."""
    if spec.hypothesis_judge == "exact":
        return
    judged = judge_submissions(
        _llm(judge, "hypothesis_judge"),
        _summaries(outcomes),
        structured=spec.hypothesis_judge == "llm",
    )
    for outcome, verdict in zip(outcomes, judged, strict=True):
        if verdict is not None and not verdict.failed:
            summary = outcome.record.summary
            outcome.efficiency = efficiency(outcome.job.game, summary)
            outcome.efficiency_reward = game_spec(spec, outcome.job).efficiency(summary)


def judge_traces(spec: EvalSpec, outcomes: Sequence[EpisodeOutcome], judge: Judge) -> None:
    """With ``trace_judge=llm``, replace each outcome's trace judgements (the process keys
    :data:`~collabrl.eval.process.JUDGEMENT_KEYS` the game's rules gave while playing) with the
    LLM judge's (:func:`collabrl.rewards.judges.trace.judge_episode_traces`), every episode of
    a game with a ``trace_task`` in one batched call; a failed judgement leaves that episode's
    three None. After playing, like :func:`rescore_hypotheses`, and for the same reasons."""
    if spec.trace_judge != "llm":
        return
    verdicts = judge_episode_traces(_llm(judge, "trace_judge"), _summaries(outcomes))
    for outcome, verdict in zip(outcomes, verdicts, strict=True):
        if verdict is not None:
            scores = verdict.scores()
            outcome.process.update({key: scores.get(key) for key in JUDGEMENT_KEYS})


def play_job(
    spec: EvalSpec, job: Job, make_policy: PolicyFactory, make_partner: PartnerFactory
) -> EpisodeOutcome:
    """Play one job with fresh players and return the evaluated seat's outcome."""
    from collabrl.factory import make_game

    gspec = game_spec(spec, job)
    if spec.partner.kind in MOTION_PARTNERS:  # the game may seat them at another level
        seats = [s for i, s in enumerate(gspec.seats) if i != job.seat - 1]
        gspec = human_partners_of(gspec).for_proxies(gspec, seats)
    game = make_game(gspec)
    me = game.agents[job.seat - 1]
    mates = [seat for seat in game.agents if seat != me]
    profiles = job.team or (job.profile,) * len(mates)
    packs = guidance_packs(gspec, len(mates))
    partners = {
        seat: RecordingPlayer(
            brief(make_partner(guided(p, pack), game, gspec, job.seed), pack, p is not None)
        )
        for seat, p, pack in zip(mates, profiles, packs, strict=True)
    }
    policy = make_policy(game, gspec, job.seed)
    seated = (
        OraclePlayer(policy, job.profile, partners[mates[0]])
        if spec.oracle and job.profile is not None
        else policy
    )
    recorder = RecordingPlayer(seated)
    record = play_episode(game, {me: recorder, **partners}, job.seed, gspec.unusable_reply)
    views = step_views(
        job.game,
        recorder.observations,
        recorder.decisions,
        message_action=game.message_action,
    )  # no partner profile: the evaluation judges see the interaction alone (paper E.4)
    if spec.tokens == "cl100k_base":
        tokens = reply_tokens([t.response for t in record.turns if t.seat == me])
    else:
        tokens = generated_tokens(policy)
    return EpisodeOutcome(
        job=job,
        seat_name=me,
        record=record,
        views=views,
        efficiency=efficiency(job.game, record.summary),
        efficiency_reward=gspec.efficiency(record.summary),
        tokens_per_step_k=tokens / len(views) / 1000 if views else 0.0,
        stalled=bool(record.summary.get("stalled", False)),
        observations={
            p.seat: [o.text for o in p.observations] for p in (recorder, *partners.values())
        },
        process=episode_process(job.game, record.summary, me),
        partner=partner_names(spec.partner.kind, partners.values()),
    )


def play_all(
    spec: EvalSpec,
    jobs: Iterable[Job],
    make_policy: PolicyFactory,
    make_partner: PartnerFactory,
    progress: Callable[[EpisodeOutcome], None] = lambda _outcome: None,
    batcher: LockstepBatcher | None = None,
) -> list[EpisodeOutcome]:
    """Play every job, in job order, calling ``progress`` with each episode's outcome as it ends
    (from the worker's thread: the journal records it there).

    With ``spec.workers`` above 1 the jobs play on that many threads, each taking the next job
    when its episode ends; ``batcher`` (the one the factories' local engines answer through) is
    told which job each thread plays and when a thread has none left."""
    todo = list(jobs)

    def one(job: Job) -> EpisodeOutcome:
        outcome = play_job(spec, job, make_policy, make_partner)
        progress(outcome)
        return outcome

    if spec.workers == 1 or len(todo) <= 1:
        return [one(job) for job in todo]
    outcomes: list[EpisodeOutcome | None] = [None] * len(todo)
    queue = iter(enumerate(todo))
    lock, failed = threading.Lock(), threading.Event()

    def worker() -> None:
        try:
            while not failed.is_set():  # after an error, the other workers take no new job
                with lock:
                    index, job = next(queue, (-1, None))
                if job is None:
                    return
                with batcher.job(index) if batcher else nullcontext():
                    outcomes[index] = one(job)
        except BaseException:
            failed.set()
            raise
        finally:
            if batcher:
                batcher.leave()

    workers = min(spec.workers, len(todo))
    if batcher:
        batcher.enrol(workers)
    with ThreadPoolExecutor(workers) as pool:
        for running in [pool.submit(worker) for _ in range(workers)]:
            running.result()  # a worker's error reaches the caller
    return [o for o in outcomes if o is not None]
