"""Judges for the interactivity reward (step level) and CB-Affective (window penalties).

``LLMJudge`` runs through any engine; ``HeuristicJudge`` is the offline, clearly labelled proxy.
Both take :class:`StepView` records (build them with :func:`step_views`) and return
:class:`StepJudgement` / :class:`WindowJudgement` records stamped with judge and prompt version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from collabrl.rewards.judges.heuristic import HeuristicJudge
from collabrl.rewards.judges.llm import LLMJudge, default_judge_params
from collabrl.rewards.judges.parsing import JudgeParseError, parse_level, parse_violations
from collabrl.rewards.judges.records import (
    DIMENSIONS,
    StepJudgement,
    StepView,
    Violation,
    WindowJudgement,
)
from collabrl.rewards.judges.views import step_views


@runtime_checkable
class Judge(Protocol):
    """What training and evaluation call; ``proxy`` is True for non-LLM stand-ins."""

    name: str
    proxy: bool

    def judge_steps(self, steps: Sequence[StepView]) -> list[StepJudgement]: ...

    def judge_windows(
        self, windows: Sequence[Sequence[StepView]], dimensions: Sequence[str] = DIMENSIONS
    ) -> list[dict[str, WindowJudgement]]: ...


__all__ = [
    "DIMENSIONS",
    "HeuristicJudge",
    "Judge",
    "JudgeParseError",
    "LLMJudge",
    "StepJudgement",
    "StepView",
    "Violation",
    "WindowJudgement",
    "default_judge_params",
    "parse_level",
    "parse_violations",
    "step_views",
]
