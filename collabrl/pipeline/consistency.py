"""Eq. (1) of CollabBench: a profile's consistency score from judged windows of its games.

    S_eta = 1/|Omega| * sum_i ( 5 - alpha_p * D_i - alpha_p^m * D_i^m + alpha_r * L_i )

The paper names the terms but does not spell them out; collabrl reads them as, for game i:
D_i   = total severity of all flaws found in its judged windows,
D_i^m = the largest total severity of a single window (the worst moment),
L_i   = the number of judged windows (a length allowance, since D_i grows with length).
Each game's term is clipped to [0, 5], the range D.1.2 says the scores stay in. Windows whose
judgement failed are left out (not scored 0); a game with no judged window is left out of the
mean; a profile with none at all has no score.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from collabrl.pipeline.config import Coefficients

WindowFlaws = Sequence[int]  # severities (1-5) of the flaws a judge found in one window


def game_term(windows: Sequence[WindowFlaws], c: Coefficients) -> float:
    """One game's term of Eq. (1), clipped to [0, 5]."""
    totals = [sum(w) for w in windows]
    raw = (
        5
        - c.penalty * sum(totals)
        - c.max_penalty * max(totals, default=0)
        + c.reward * len(totals)
    )
    return min(5.0, max(0.0, raw))


def profile_score(games: Sequence[Sequence[WindowFlaws]], c: Coefficients) -> float | None:
    """Mean game term over games with at least one judged window; None if there are none."""
    terms = [game_term(g, c) for g in games if g]
    return fmean(terms) if terms else None


def combined(s_pr: float, s_ra: float, beta: float) -> float:
    """S_ALL = beta * S_PR + (1 - beta) * S_RA."""
    return beta * s_pr + (1 - beta) * s_ra
