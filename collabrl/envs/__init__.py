"""collabrl's games and the tools every game shares: the protocol (:mod:`collabrl.envs.base`), the
conformance checker (:func:`check_game`) and the PettingZoo view (:func:`to_parallel_env`)."""

from __future__ import annotations

from typing import Any

from collabrl.envs.checker import RULES, GameCheckError, check_game

# to_parallel_env is left out of __all__ so that ``import *`` works without the pettingzoo extra
__all__ = ["RULES", "GameCheckError", "check_game"]


def __getattr__(name: str) -> Any:
    """``to_parallel_env`` is loaded on first use: importing collabrl.envs never needs pettingzoo."""
    if name == "to_parallel_env":
        from collabrl.envs.parallel import to_parallel_env

        return to_parallel_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
