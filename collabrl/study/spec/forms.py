"""Checking what a page submits: survey answers and questionnaire ratings.

A page only offers valid choices, but a scripted client can send anything; what is stored is
exactly the declared questions with values of the declared kind and range (nothing else a
client adds is kept).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.study.spec.schema import Item, Question, Questionnaire

MAX_FREE_TEXT = 2000


class FormError(CollabrlError):
    """An answer the page is told to fix (not stored). ``problems``: question or item id -> what
    is wrong with its answer, in words, for the page to show beside that question."""

    def __init__(self, message: str, problems: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or {}


def _likert(value: Any, points: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= points:
        raise ValueError(f"choose a point from 1 to {points}")
    return value


def _answer(question: Question, value: Any, components: Mapping[str, Any]) -> Any:
    """The checked answer; raises ValueError saying what to do instead."""
    if question.kind == "component":
        return _component_answer(components[question.component or ""], value, question.config)
    if question.kind == "likert":
        return _likert(value, question.points)
    if question.is_choice:
        if value not in question.options:
            raise ValueError("choose one of the options")
        return value
    if question.kind == "number":
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or not math.isfinite(number):
            raise ValueError("enter a number")
        low = -math.inf if question.min is None else question.min
        high = math.inf if question.max is None else question.max
        if not low <= number <= high:
            raise ValueError(
                f"enter a number from {_number(question.min)} to {_number(question.max)}"
            )
        return number
    if not isinstance(value, str) or len(value) > question.max_chars:
        raise ValueError(f"write at most {question.max_chars} characters")
    return value


def _component_answer(component: Any, value: Any, config: dict[str, Any]) -> Any:
    """A custom component's answer as its server class checks it (its ValueError's words go to
    the page; any other failure of the class is refused without storing the answer)."""
    try:
        checked = component.validate(value, config)
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"this answer could not be checked ({type(exc).__name__})") from None
    try:
        json.dumps(checked)
    except (TypeError, ValueError):
        raise ValueError("this answer could not be stored") from None
    return checked


def _number(value: float | None) -> str:
    return "any" if value is None else f"{value:g}"


def _refuse(problems: dict[str, str], texts: dict[str, str]) -> FormError:
    """One error for every problem of a form: the message quotes each question's own text."""
    quoted = "; ".join(f"“{_short(texts[k])}”: {v}" for k, v in problems.items())
    count = len(problems)
    return FormError(f"{count} answer{'s' if count > 1 else ''} to fix: {quoted}", problems)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def survey_answers(
    questions: list[Question], given: Any, components: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The declared questions' answers from ``given`` (a mapping), checked (``components``:
    the study's custom components, collabrl.study.spec.components); raises FormError naming every
    question to fix at once."""
    if not isinstance(given, dict):
        raise FormError("answers must be a mapping of question ids to values")
    answers: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for question in questions:
        value = given.get(question.id)
        if value is None or value == "":
            if question.required:
                problems[question.id] = "please answer this question"
            continue
        try:
            answers[question.id] = _answer(question, value, components or {})
        except ValueError as exc:
            problems[question.id] = str(exc)
    if problems:
        raise _refuse(problems, {q.id: q.text for q in questions})
    return answers


def ratings(
    questionnaire: Questionnaire, given: Any, free_text: Any, partner: str = "your partner"
) -> dict[str, Any]:
    """Every item's rating (all required) and the optional free text, checked; raises FormError
    naming every item to fix at once (in the words the page shows: ``{partner}`` filled in)."""
    if not isinstance(given, dict):
        raise FormError("ratings must be a mapping of item ids to points")
    items: list[Item] = questionnaire.items
    checked: dict[str, int] = {}
    problems: dict[str, str] = {}
    for item in items:
        try:
            checked[item.id] = _likert(given.get(item.id), item.points)
        except ValueError as exc:
            problems[item.id] = (
                "please rate this statement" if given.get(item.id) is None else str(exc)
            )
    text = "" if free_text is None else free_text
    if not isinstance(text, str) or len(text) > MAX_FREE_TEXT:
        problems["free_text"] = f"write at most {MAX_FREE_TEXT} characters"
    if problems:
        texts = {i.id: i.text for i in items} | {
            "free_text": questionnaire.free_text or "free text"
        }
        raise _refuse(problems, {k: v.replace("{partner}", partner) for k, v in texts.items()})
    return {"ratings": checked, "free_text": text}
