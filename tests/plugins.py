"""The example plug-in games (``examples/relay_game``, ``examples/tally_game``) as test
parameters: each is its own package, so where it is not installed its tests skip and say how to
install it (CI installs both)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable

import pytest

PACKAGES = {"relay": "relay_game", "tally": "tally_game"}


def installed(game: str) -> bool:
    return importlib.util.find_spec(PACKAGES[game]) is not None


def plugin_params(games: Iterable[str]) -> list:
    """One ``pytest.param`` per game, skipped with the install command when it is missing."""
    return [
        pytest.param(
            game,
            id=game,
            marks=pytest.mark.skipif(
                not installed(game), reason=f"pip install ./examples/{PACKAGES[game]}"
            ),
        )
        for game in games
    ]
