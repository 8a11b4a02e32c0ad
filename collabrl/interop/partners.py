"""The partner kind an export plays beside the trained seat.

Why: an outside trainer picks a game's partners the way collabrl's own commands do, by
``partner.kind``; a recipe names one kind, and the kitchen's motion partners (a human proxy, a
population member) need the seats they fill made motion seats, which evaluation does per job and a
training recipe states in ``game.motion_seats``. :func:`with_partner` is that one switch for every
export (OpenEnv, TRL, verifiers), so each plays the same recipe collabrl's trainer would.
"""

from __future__ import annotations

from collabrl.config import Recipe
from collabrl.config.roles import MOTION_PARTNERS
from collabrl.envs.registry import human_partners_of
from collabrl.errors import CollabrlError

EXPORT_PARTNERS = ("persona", "llm", "expert", "human_proxy", "population")
"""The partner kinds an export can seat (``self`` and ``none`` leave it no partner to play)."""


def with_partner(recipe: Recipe, kind: str) -> Recipe:
    """``recipe`` with ``partner.kind=kind`` (its other partner keys, such as
    ``partner.population`` or ``partner.proxies``, kept); for a motion partner the partner seats
    become the game's motion seats. A kind the export or the game cannot seat is a one-line
    error."""
    if kind not in EXPORT_PARTNERS:
        raise CollabrlError(
            f"partner kind {kind!r}: an export seats one of {list(EXPORT_PARTNERS)}"
        )
    partner = {**recipe.partner.model_dump(), "kind": kind}
    game = recipe.game
    if kind in MOTION_PARTNERS:
        trained = recipe.rollout.trained_seats
        seats = [seat for i, seat in enumerate(game.seats) if i not in trained]
        game = human_partners_of(type(game)).for_proxies(game, seats)
    data = {**recipe.model_dump(), "partner": partner, "game": game.model_dump()}
    try:
        return Recipe.model_validate(data)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        message = errors()[0]["msg"] if errors else str(exc)
        raise CollabrlError(
            f"partner.kind={kind}: {message.removeprefix('Value error, ')}"
        ) from None
