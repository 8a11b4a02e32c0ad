"""The practice round: one episode a group plays before its real rounds, recorded apart.

A conditions page's ``tutorial`` section (:class:`~collabrl.study.spec.schema.Tutorial`) makes every
group start with a practice episode beside the tutorial's partner (a condition's agent, or the
rule-based expert) on the tutorial's task. It runs through the same
:class:`~collabrl.study.live.rounds.GroupRun` machinery as a real round (write-ahead decisions,
stand-ins, idle timers, replay after a restart) at the group position :data:`PRACTICE`, which
no condition has: so its decisions never count for a real round, and the export's rows, the
report, its statistics and the bonus, which walk the positions of the group's conditions, never
see it. What marks it apart: the events ``practice_start`` and ``practice_end`` (instead of
``episode_start`` / ``episode_end``), the page node ``<page>.practice``, no questionnaire, and
``practice: true`` in its trajectory record. When it ends, the group goes straight on to its
first real round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collabrl.config import PlayerSpec
from collabrl.errors import RecipeError
from collabrl.study.spec.schema import Condition, ConditionsPage, Study, Tutorial

if TYPE_CHECKING:
    from collabrl.envs.registry import GameSection

PRACTICE = -1
"""The group (and member) position of the practice round: before round 1, and no condition's."""

PRACTICE_SEED = 1_000_003
"""Practice seeds are ``study.seed + PRACTICE_SEED + unit``: apart from every real round's."""


def tutorial_of(study: Study) -> Tutorial | None:
    """The study's practice round (None: it has none)."""
    page = next((p for p in study.pages if isinstance(p, ConditionsPage)), None)
    return page.tutorial if page is not None else None


def required_tutorial(study: Study) -> Tutorial:
    tutorial = tutorial_of(study)
    assert tutorial is not None, "only a study with a tutorial plays a practice round"
    return tutorial


def opening_position(study: Study, position: int) -> int:
    """Where a group waiting to play at ``position`` goes next: the practice round first (when
    the study has one and the group has not played it), else round 1."""
    practiced = position == PRACTICE
    return PRACTICE if tutorial_of(study) is not None and not practiced else 0


def practice_condition(study: Study) -> Condition:
    """Who partners the practice, as a condition: the named condition's agent and game options
    under the tutorial's name (the expert without one); the tutorial's options come on top."""
    tutorial = required_tutorial(study)
    base = study.condition(tutorial.condition) if tutorial.condition else None
    agent = base.agent if base is not None else PlayerSpec(kind="expert")
    options = {**(base.game_options if base is not None else {}), **tutorial.game_options}
    return Condition(
        id=tutorial.condition or "practice",
        name=tutorial.name,
        agent=agent,
        game_options=options,
    )


def practice_task(study: Study) -> str:
    tutorial = required_tutorial(study)
    return tutorial.task or getattr(study.played_game, type(study.played_game).task_key)


def practice_section(study: Study) -> GameSection:
    """The game section of the practice round: its task, with its options."""
    base = study.played_game.for_task(practice_task(study))
    options = practice_condition(study).game_options
    if not options:
        return base
    return type(base).model_validate({**base.model_dump(), **options})


def practice_seed(study: Study, unit: int) -> int:
    return study.seed + PRACTICE_SEED + unit


def practice_names(study: Study) -> dict[str, str]:
    """The names participants see for the agent seats in the practice round."""
    name, seats = required_tutorial(study).name, study.game_seats.agents
    return {seat: name if len(seats) == 1 else f"{name} ({seat})" for seat in seats}


def practice_node(page_id: str) -> str:
    """The graph node of the practice round on conditions page ``page_id``."""
    return f"{page_id}.practice"


def mark_practice(record: dict[str, Any], study: Study) -> dict[str, Any]:
    """A practice round's trajectory record: ``practice: true`` (also in its stamp), no round
    position, the tutorial's condition (if it named one)."""
    record["practice"] = True
    record["stamp"].update(
        practice=True, position=None, condition=required_tutorial(study).condition
    )
    return record


def check_tutorial(study: Study) -> None:
    """Raise RecipeError (one line) for a practice round that cannot be played: an unknown
    condition, a task the game does not have, options that change the task, seats or game, or
    options the game refuses."""
    page = next((p for p in study.pages if isinstance(p, ConditionsPage)), None)
    tutorial = page.tutorial if page is not None else None
    if page is None or tutorial is None:
        return
    where = f"page {page.id}: tutorial"
    if study.game is None or any(c.round != "game" for c in study.conditions):
        raise RecipeError(
            f"{where}: a practice round is a game episode, so it needs a study whose rounds are "
            "all game rounds (this one has chat or document rounds, or no game)"
        )
    ids = [c.id for c in study.conditions]
    if tutorial.condition is not None and tutorial.condition not in ids:
        raise RecipeError(
            f"{where}.condition {tutorial.condition!r} is not a condition of this study "
            f"(conditions: {', '.join(ids)})"
        )
    fixed = sorted({"name", "seats", type(study.played_game).task_key} & set(tutorial.game_options))
    if fixed:
        raise RecipeError(
            f"{where}.game_options may not change {', '.join(fixed)} (give the practice task "
            "as tutorial.task)"
        )
    try:
        study.played_game.for_task(practice_task(study))
    except ValueError as exc:
        raise RecipeError(f"{where}.task: {_first_error(exc)}") from None
    try:
        practice_section(study)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        loc = ".".join(map(str, errors()[0]["loc"])) if errors and errors()[0]["loc"] else ""
        raise RecipeError(
            f"{where}.game_options{'.' + loc if loc else ''}: {_first_error(exc)}"
        ) from None


def _first_error(exc: ValueError) -> str:
    """The first message of a validation error (or the error's text), without pydantic's
    "Value error, " prefix."""
    errors = getattr(exc, "errors", None)
    message = errors()[0]["msg"] if errors else str(exc)
    return message.removeprefix("Value error, ")
