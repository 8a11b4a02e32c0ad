"""Checking what a page submits: survey answers and questionnaire ratings.

A page only offers valid choices, but a scripted client can send anything; what is stored is
exactly the declared questions with values of the declared kind and range (nothing else a
client adds is kept).
"""

from __future__ import annotations

import math
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.study.schema import Item, Question, Questionnaire

MAX_FREE_TEXT = 2000


class FormError(CollabrlError):
    """An answer the page is told to fix (not stored)."""


def _likert(value: Any, points: int, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= points:
        raise FormError(f"{label}: choose a point from 1 to {points}")
    return value


def _answer(question: Question, value: Any) -> Any:
    if question.kind == "likert":
        return _likert(value, question.points, question.id)
    if question.kind == "choice":
        if value not in question.options:
            raise FormError(f"{question.id}: choose one of the options")
        return value
    if question.kind == "number":
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or not math.isfinite(number):
            raise FormError(f"{question.id}: enter a number")
        low = -math.inf if question.min is None else question.min
        high = math.inf if question.max is None else question.max
        if not low <= number <= high:
            raise FormError(f"{question.id}: enter a number from {question.min} to {question.max}")
        return number
    if not isinstance(value, str) or len(value) > question.max_chars:
        raise FormError(f"{question.id}: at most {question.max_chars} characters of text")
    return value


def survey_answers(questions: list[Question], given: Any) -> dict[str, Any]:
    """The declared questions' answers from ``given`` (a mapping), checked."""
    if not isinstance(given, dict):
        raise FormError("answers must be a mapping of question ids to values")
    answers: dict[str, Any] = {}
    for question in questions:
        value = given.get(question.id)
        if value is None or value == "":
            if question.required:
                raise FormError(f"{question.id}: please answer this question")
            continue
        answers[question.id] = _answer(question, value)
    return answers


def ratings(questionnaire: Questionnaire, given: Any, free_text: Any) -> dict[str, Any]:
    """Every item's rating (all required) and the optional free text, checked."""
    if not isinstance(given, dict):
        raise FormError("ratings must be a mapping of item ids to points")
    items: list[Item] = questionnaire.items
    checked = {item.id: _likert(given.get(item.id), item.points, item.id) for item in items}
    text = "" if free_text is None else free_text
    if not isinstance(text, str) or len(text) > MAX_FREE_TEXT:
        raise FormError(f"free text: at most {MAX_FREE_TEXT} characters")
    return {"ratings": checked, "free_text": text}
