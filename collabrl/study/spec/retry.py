"""Bounded retries: a survey page (a comprehension quiz) that a participant may fail and retry
at most ``at_most`` times before the study sends them elsewhere (a screen-out page).

A route back to an earlier page is otherwise an endless loop (a participant who answers the same
way takes the same route again), and lint refuses it. A declared retry is bounded: each failed
attempt is counted (a ``quiz_attempt`` event), and once ``at_most`` retries are spent the next
failure goes to ``then``. Lint's path simulation counts the retries a path has used, so it
accepts a loop on which a retry counter advances and refuses one on which none does
(:func:`collabrl.study.spec.compile._check_paths`).
"""

from __future__ import annotations

from pydantic import Field

from collabrl.sections import Strict


class Retry(Strict):
    """A survey page's bounded retry: failing ``passed`` sends the participant back to
    ``back_to`` (at most ``at_most`` times), then to ``then``."""

    passed: str
    """An expression over state, group and answers (this page's included) that is true when the
    attempt passes, e.g. 'answers.quiz.goal == "serve soups"'."""
    back_to: str
    """The page a failed attempt goes back to (the instructions, or the quiz itself)."""
    at_most: int = Field(ge=1, le=20)
    """Retries allowed: a participant answers the page at most ``at_most + 1`` times."""
    then: str
    """Where the failure after the last retry goes (e.g. a screen-out end page)."""


def retry_target(retry: Retry, passed: bool, failures: int) -> str | None:
    """Where an attempt leads, after ``failures`` earlier failed attempts at the page (None:
    it passed, the page's branches and next decide)."""
    if passed:
        return None
    return retry.back_to if failures < retry.at_most else retry.then
