"""CB-Affective for played episodes: cut windows, judge them in batches, aggregate per dimension.

Failure rule: a window whose judge call failed for a dimension is left out of that dimension's
aggregation (and counted); if every window of an episode failed for a dimension, the episode has
no score for it (None: excluded from the means and counted), never a 0 or a 5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from collabrl.eval.affective import aggregate_dimension
from collabrl.eval.runner import EpisodeOutcome
from collabrl.rewards.judges import DIMENSIONS, Judge, WindowJudgement


def segment(n_decisions: int, k: int = 3) -> list[list[int]]:
    """Consecutive windows of ``k`` decision indices; a shorter tail is dropped."""
    return [list(range(s, s + k)) for s in range(0, n_decisions - k + 1, k)]


def dimension_score(
    judgements: Sequence[WindowJudgement], message_ratio: float, *, a: float, b: float
) -> float | None:
    """One dimension's trajectory score from its window judgements (failed ones excluded)."""
    deductions = [d for j in judgements if (d := j.deduction) is not None]  # failed: None
    if judgements and not deductions:
        return None
    return aggregate_dimension(deductions, message_ratio, a=a, b=b)


def judge_outcomes(
    outcomes: Sequence[EpisodeOutcome],
    judge: Judge,
    *,
    k: int = 3,
    batch_size: int = 256,
    progress: Callable[[int], None] = lambda _n: None,
    finished: Callable[[EpisodeOutcome], None] = lambda _outcome: None,
) -> None:
    """Fill ``windows`` and ``judgements`` of every outcome; windows go to the judge in batches.

    ``finished`` is called with each outcome once its last window has its verdicts (one without
    windows: at once), so that a caller can record the job as done while others still wait."""
    flat = []
    for outcome in outcomes:
        outcome.windows = segment(outcome.decisions, k)
        outcome.judgements = []
        flat += [(outcome, [outcome.views[i] for i in w]) for w in outcome.windows]
    for outcome in outcomes:
        if not outcome.windows:
            finished(outcome)
    for start in range(0, len(flat), batch_size):
        chunk = flat[start : start + batch_size]
        for (outcome, _), verdict in zip(
            chunk, judge.judge_windows([w for _, w in chunk], DIMENSIONS), strict=True
        ):
            outcome.judgements.append(verdict)
            if len(outcome.judgements) == len(outcome.windows):
                finished(outcome)
        progress(len(chunk))


def score_outcome(outcome: EpisodeOutcome, *, a: float = 0.8, b: float = 0.8) -> None:
    """Per-dimension scores and their mean ("affective"; None unless all three are present)."""
    rho = outcome.message_ratio
    scores: dict[str, float | None] = {
        d: dimension_score([j[d] for j in outcome.judgements], rho, a=a, b=b) for d in DIMENSIONS
    }
    present = [s for s in scores.values() if s is not None]
    scores["affective"] = sum(present) / len(present) if len(present) == len(DIMENSIONS) else None
    outcome.scores = scores
