"""The recipe: every section of one run in one typed, printable object.

The ``game`` section is the section class the game registered (see
:mod:`collabrl.envs.registry`), chosen by its ``name``; the other sections are collabrl's own.
Cross-section checks live here: a policy seat that exists, training tasks the game can play,
a partner set that is not empty, evaluation settings that fit the games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

import yaml
from pydantic import Field, SerializeAsAny, model_validator

from collabrl.config.evaluation import EvalSpec
from collabrl.config.folders import OutputDir
from collabrl.config.roles import MOTION_PARTNERS, JudgeSpec, PartnerSpec, PlayerSpec, listing
from collabrl.config.sft import SFTSpec
from collabrl.config.training import (
    TRACKER_PACKAGES,
    AlgoSpec,
    PolicySpec,
    RewardSpec,
    RolloutSpec,
    TrainSpec,
)
from collabrl.envs.registry import GameSection, registered_games
from collabrl.errors import CollabrlError
from collabrl.numbers import PositiveInt
from collabrl.records import quoted
from collabrl.sections import MAX_EPISODES, Seed, Strict

if TYPE_CHECKING:
    from collabrl.profiles import Profile


if TYPE_CHECKING:  # to a type checker, any registered section is a GameSection
    GameSpec = GameSection
else:  # built at run time from the registry, which no static type can name

    def _game_union() -> Any:
        """The registered games' sections as one union told apart by ``name``."""
        sections = tuple(registered_games().values())
        if len(sections) == 1:
            return SerializeAsAny[sections[0]]
        return Annotated[Union[sections], Field(discriminator="name")]  # noqa: UP007

    GameSpec = _game_union()
    """A recipe's ``game`` section: the registered section class its ``name`` selects."""


class Recipe(Strict):
    """Everything one run needs; the resolved form is printed and recorded by every run."""

    name: str = "run"
    """Name of the run (logs, W&B)."""
    seed: Seed = 0
    """Seed of everything random: 0 <= seed < 2**32."""
    game: GameSpec
    """The game: name (a registered game) and that game's options."""
    players: list[PlayerSpec] = Field(default_factory=list)
    """collabrl play / demos / serve: one player per seat (training fills seats from policy and
    partner, and refuses this list)."""
    episodes: PositiveInt = Field(1, le=MAX_EPISODES)
    """collabrl play: episodes to play."""
    output_dir: OutputDir = "runs"
    """Run folder of train, sft, demos and play."""
    policy: PolicySpec = Field(default_factory=PolicySpec)
    """The trained model."""
    partner: PartnerSpec = Field(default_factory=PartnerSpec)
    """Who plays beside the policy in training."""
    rollout: RolloutSpec = Field(default_factory=RolloutSpec)
    """Rollout groups of one training iteration."""
    reward: RewardSpec = Field(default_factory=RewardSpec)
    """The hybrid reward."""
    algo: AlgoSpec = Field(default_factory=AlgoSpec)
    """GiGPO / GRPO and the PPO update."""
    train: TrainSpec = Field(default_factory=TrainSpec)
    """The outer training loop."""
    sft: SFTSpec = Field(default_factory=SFTSpec)
    """collabrl demos / sft: demonstrations and supervised fine-tuning."""
    eval: EvalSpec = Field(default_factory=EvalSpec)
    """collabrl eval: the CollabBench evaluation."""

    @model_validator(mode="after")
    def _seats_fit(self) -> Recipe:
        seats = len(self.game.seats)
        if self.players and len(self.players) != seats:
            raise ValueError(
                f"players has {len(self.players)} entries but game.seats has {seats}: "
                "give one player per seat"
            )
        trained = self.rollout.trained_seats
        for seat in trained:
            if seat >= seats:
                raise ValueError(
                    f"rollout.target_seat {seat} is not a seat index (game.seats has {seats})"
                )
        capped = getattr(self.game, "capped_seat", None)  # the household's decision cap
        if capped is not None and capped not in trained:
            raise ValueError(
                f"game.capped_seat={capped} counts another seat's decisions than the policy's "
                f"(rollout.target_seat={self.rollout.target_seat}); set game.capped_seat to it "
                "(game.limits=code counts the first seat: give the limits with limits: null)"
            )
        if capped is not None and len(trained) > 1:
            raise ValueError(
                f"game.capped_seat={capped} caps one of the trained seats "
                f"{list(trained)} only: the others would play uncapped; set "
                "game.capped_seat: null (the cap then counts every seat's decisions)"
            )
        return self

    @model_validator(mode="after")
    def _training_tasks_exist(self) -> Recipe:
        """A wrong task name would fail only when a group draws it, minutes into a run."""
        tasks = self.rollout.tasks
        if isinstance(tasks, str):
            return self
        if not tasks:
            raise ValueError("rollout.tasks: empty list; name at least one task, or use train/test")
        known = type(self.game).all_tasks()
        for task in tasks:
            if task not in known:
                noun = type(self.game).task_key
                raise ValueError(f"rollout.tasks: unknown {self.game.name} {noun} {quoted(task)}")
            try:
                self.game.for_task(task)
            except ValueError as exc:  # pydantic's ValidationError: keep its first message
                errors = getattr(exc, "errors", None)
                message = errors()[0]["msg"] if errors else str(exc)
                raise ValueError(
                    f"rollout.tasks: {message.removeprefix('Value error, ')}"
                ) from None
        return self

    @model_validator(mode="after")
    def _partners_available(self) -> Recipe:
        """The partner set is first drawn when training starts: an empty one must fail at lint."""
        if self.partner.kind == "none" and len(self.game.seats) > 1:
            raise ValueError(
                f"partner.kind=none needs a game with a single seat "
                f"(game.seats has {len(self.game.seats)})"
            )
        try:
            partner_profiles(self)
        except CollabrlError as exc:
            raise ValueError(str(exc)) from None
        return self

    @model_validator(mode="after")
    def _evaluation_fits(self) -> Recipe:
        """Only once the recipe knows its game: an eval section naming its games checked itself."""
        if self.eval.games:
            return self
        try:
            self.eval.check(self.game.name)
        except ValueError as exc:
            raise ValueError(f"eval.{exc}") from None
        return self

    def seat_players(self, command: str) -> list[PlayerSpec]:
        """The ``players`` list, which ``command`` (play, demos, serve) needs: one per seat."""
        if not self.players:
            raise CollabrlError(
                f"collabrl {command} seats a player per seat: give players: [...] with "
                f"{len(self.game.seats)} entries (e.g. players: [{{kind: expert}}, ...])"
            )
        return self.players

    def check_trainable(self) -> None:
        """Refuse keys training would ignore (its seats come from policy and partner), a
        validation whose partner the game cannot field, and a missing extra the recipe asks
        for."""
        if self.players:
            raise CollabrlError(
                "players: training fills the seats from policy (rollout.target_seat) and partner; "
                "remove the players list (it is for play, demos and serve)"
            )
        if self.train.validation.every:  # validation's partner must field the game's profiles
            partner, _ = validation_roles(self)
            try:
                self.eval.model_copy(update={"partner": partner}).check_partner_profiles(
                    [self.game.name]
                )
            except ValueError as exc:
                raise CollabrlError(f"train.validation needs eval.{exc}") from None
        self.check_extras()

    def check_extras(self) -> None:
        """A one-line error naming the extra to install when the recipe's trackers or rollout
        backend need a package this environment lacks. Trainers call it before any model loads;
        it only looks packages up, so linting a GPU recipe stays fast."""
        from collabrl.engines.factory import require, require_backend

        for tracker in self.train.trackers:
            if package := TRACKER_PACKAGES.get(tracker):
                hint = f"pip install 'collabrl[{tracker}]'"
                require((package,), hint, f"train.trackers=[{tracker}]", load=False)
        backend = self.policy.backend
        require_backend(backend, f"policy.backend={backend}", load=False)

    def evaluation(self) -> EvalSpec:
        """The ``eval`` section with its games resolved (the recipe's game when unset)."""
        return self.eval.model_copy(update={"games": self.eval.game_list(self.game.name)})

    def to_yaml(self) -> str:
        """The fully resolved recipe as YAML (what runs print and record)."""
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def task_names(recipe: Recipe) -> set[str]:
    """The tasks (household tasks, kitchen layouts, ...) the recipe trains on."""
    tasks = recipe.rollout.tasks
    if isinstance(tasks, list):
        return set(tasks)
    return set(type(recipe.game).tasks(tasks))


def spread(names: tuple[str, ...] | list[str], count: int | None) -> list[str]:
    """``count`` of ``names`` spaced evenly from the first (all of them when None or more)."""
    if count is None or count >= len(names):
        return list(names)
    return [names[i * len(names) // count] for i in range(count)]


def validation_tasks(recipe: Recipe) -> list[str]:
    """The tasks ``train.validation`` plays: ``tasks`` of its split's, spread evenly (the
    recipe's training tasks in the game's order, or the game's test tasks)."""
    settings, section = recipe.train.validation, type(recipe.game)
    if settings.split == "test":
        return spread(section.tasks("test"), settings.tasks)
    trained = task_names(recipe)
    return spread([t for t in section.all_tasks() if t in trained], settings.tasks)


def validation_profiles(recipe: Recipe) -> list[str] | None:
    """Ids of the training profiles ``train.validation`` holds out and plays: up to
    ``profiles_per_type`` of each player type, taken in turn from its tasks (one per task a
    round, each task's profiles interleaved by type) and never a task's last profile, so that
    every training task is still trained on and the arms of an ablation draw the same tasks.
    None with ``split=test`` (the evaluation picks test profiles itself); empty when the game
    ships no training profiles for those tasks (validation then plays profile-free)."""
    settings = recipe.train.validation
    if settings.split == "test":
        return None
    from collabrl.profiles import PLAYER_TYPES, has_profiles, interleaved_by_type, load_profiles

    game = recipe.game.name
    if not has_profiles(game):
        return []
    library = load_profiles(game=game, split="train")
    queues = [
        interleaved_by_type([p for p in library if p.task == task])
        for task in validation_tasks(recipe)
    ]
    left = {task: sum(p.task == task for p in library) for task in task_names(recipe)}
    quota = dict.fromkeys(PLAYER_TYPES, settings.profiles_per_type)
    held: list[str] = []
    taking = True
    while taking:
        taking = False
        for queue in queues:
            pick = next((p for p in queue if quota[p.player_type]), None)
            if pick is None or left[pick.task] <= 1:
                continue
            queue.remove(pick)
            quota[pick.player_type] -= 1
            left[pick.task] -= 1
            held.append(pick.id)
            taking = True
    return held


def held_out_profiles(recipe: Recipe) -> set[str]:
    """Training profiles kept out of the partners' draw: those a validating run plays."""
    if not recipe.train.validation.every or recipe.partner.split != "train":
        return set()
    return set(validation_profiles(recipe) or ())


def validation_roles(recipe: Recipe) -> tuple[PartnerSpec, JudgeSpec]:
    """The partner and judge ``train.validation`` plays with: by default (``against:
    training``) the run's own, so the best policy is chosen against whom it trains (an llm,
    persona or expert partner; the training judge's engine, or the heuristic judge, scoring the
    evaluation's dimensions with the evaluation judge's sampling); a self-play or partner-free
    run, a run without a judge, and ``against: eval`` take the ``eval`` section's."""
    base = recipe.evaluation()
    if recipe.train.validation.against == "eval":
        return base.partner, base.judge
    partner = recipe.partner
    if partner.kind in ("persona", "llm", "expert"):  # evaluation picks the profiles itself
        partner = partner.model_copy(update={"split": "train", "profiles": []})
    else:
        partner = base.partner
    trained = recipe.reward.judge
    if trained.kind == "none":
        return partner, base.judge
    return partner, base.judge.model_copy(update={"kind": trained.kind, "engine": trained.engine})


def training_set(recipe: Recipe) -> dict[str, Any]:
    """What the run trains on and what it holds out, for its records (``training_set.json``):
    the tasks groups draw, the partner profiles drawn, and validation's tasks, held-out
    profiles, partner and judge."""
    profiles = partner_profiles(recipe)
    tasks = sorted({p.task for p in profiles}) if profiles else sorted(task_names(recipe))
    settings = recipe.train.validation
    record: dict[str, Any] = {
        "tasks": tasks,
        "partner_profiles": [p.id for p in profiles],
        "held_out_profiles": sorted(held_out_profiles(recipe)),
    }
    if settings.every:
        partner, judge = validation_roles(recipe)
        held = validation_profiles(recipe)
        record["validation"] = {
            "split": settings.split,
            "tasks": validation_tasks(recipe),
            "profiles": held,
            "partner": partner.kind,
            "judge": judge.kind,
            "judge_model": judge.engine.model if judge.engine else None,
            "partner_model": partner.engine.model if partner.engine else None,
        }
    return record


def partner_profiles(recipe: Recipe) -> list[Profile]:
    """The profiles partners are drawn from (empty when partners play without one); a split's
    draw leaves out the training profiles validation holds out (:func:`held_out_profiles`), an
    explicit ``partner.profiles`` list is used as given.

    An explicit id that does not fit the game and the training tasks is an error, not dropped:
    the run would otherwise train against another partner set than the recipe states.
    """
    partner = recipe.partner
    if partner.kind in ("expert", *MOTION_PARTNERS, "self", "none") or not partner.use_profile:
        return []
    if partner.kind == "mix" and "persona" not in partner.mix:
        return []
    from collabrl.profiles import get_profile, load_profiles

    game, tasks = recipe.game.name, task_names(recipe)
    if partner.profiles:
        chosen = [get_profile(p) for p in partner.profiles]
        misfit = next((p for p in chosen if p.game != game or p.task not in tasks), None)
        if misfit is not None:
            raise CollabrlError(
                f"partner.profiles: {misfit.id!r} is a {misfit.game} profile for task "
                f"{misfit.task!r}, not for a training task of this {game} recipe "
                f"(rollout.tasks: {listing(tasks)})"
            )
        return chosen
    chosen = [p for p in load_profiles(game=game, split=partner.split) if p.task in tasks]
    if not chosen:
        raise CollabrlError(
            f"partner.split={partner.split}: no {game} profiles for the training tasks "
            f"({listing(tasks)})"
        )
    held = held_out_profiles(recipe)
    validation = recipe.train.validation
    if (
        validation.every
        and validation.split == "validation"
        and partner.split == "train"
        and not held
    ):
        raise CollabrlError(
            f"train.validation: each of its {game} training tasks has a single training profile, "
            "so none can be held out without removing the task from training; validate on "
            "other tasks (train.validation.tasks) or with train.validation.split=test"
        )
    return [p for p in chosen if p.id not in held]
