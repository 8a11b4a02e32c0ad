"""What judges read (one agent decision in context) and what they return (levels, deductions).

Why one shape for every judge: the LLM judges and the offline heuristic proxy are swapped freely by
training and evaluation, so both must consume :class:`StepView` and produce the same records, each
stamped with the judge's name and prompt version so results can be traced to what scored them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

DIMENSIONS = ("helpfulness", "trustfulness", "empathy")
"""The CB-Affective dimensions, in table order."""

MAX_DEDUCTION = 3
"""Largest deduction a single violation may carry (each window starts at 5)."""


@dataclass(frozen=True)
class StepView:
    """One decision of the judged seat with the context a judge needs.

    ``heard`` holds the teammates' lines that arrived since this seat's previous decision, and
    ``events`` the seat's own discoveries / finished subgoals since then (both filled by
    :func:`collabrl.rewards.judges.views.step_views`). ``state`` is the game's structured
    observation; it is used by the heuristic judge and never shown to an LLM judge.
    """

    game: str
    seat: str
    tick: int
    observation: str
    think: str
    message: str
    action: str | None
    valid: bool
    sent_message: bool
    partner_profile: str = ""
    heard: tuple[tuple[str, str], ...] = ()  # (speaker, text)
    events: tuple[str, ...] = ()
    own_messages_before: tuple[str, ...] = ()  # this seat's earlier sent messages, oldest first
    state: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class StepJudgement:
    """Interactivity level of one step (0.1..1.0), or ``level=None`` with ``error`` on failure.

    ``skipped`` marks steps the judge did not score on purpose (invalid decisions: the training
    reward is 0 there anyway), so they are not counted as failures.
    """

    level: float | None
    rationale: str
    judge: str
    prompt_version: str
    error: str | None = None
    skipped: str | None = None
    raw: str = ""
    attempts: int = 1  # judge calls made: more than one when an unusable verdict was retried

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class Violation:
    """One broken criterion in a window: which rule, how many points (1-3), quoted evidence."""

    rule: str
    deduction: int
    evidence: str = ""


@dataclass
class WindowJudgement:
    """One dimension's verdict on one window: its violations, or ``error`` when unusable.

    ``notes`` records every repair the parser made (a clamped deduction, a score-only answer), so
    a tolerant parse never hides what the judge actually wrote.
    """

    dimension: str
    violations: list[Violation]
    summary: str
    judge: str
    prompt_version: str
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    raw: str = ""
    attempts: int = 1  # judge calls made: more than one when an unusable verdict was retried

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def deduction(self) -> float | None:
        """V_w: the summed deductions (None for a failed judgement, which callers exclude)."""
        return None if self.failed else float(sum(v.deduction for v in self.violations))


def verdict_counts(summaries: Iterable[Mapping[str, Any]], key: str, stamp: str) -> dict[str, Any]:
    """Episode-level LLM verdicts kept in summaries under ``key`` (``error`` set when failed):
    how many were made and failed (by failure kind, the text before the first colon), with the
    prompt's ``stamp``: what an evaluation's results report beside its window-judge failures."""
    made = [s[key] for s in summaries if s.get(key)]
    failed = [v["error"] for v in made if v["error"]]
    return {
        "prompt": stamp,
        "judged": len(made),
        "failed": len(failed),
        "failure_kinds": dict(Counter(e.split(":")[0] for e in failed)),
    }
