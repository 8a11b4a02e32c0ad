"""A refused form names every problem at once, keyed by question for the page to show beside
it, in the question's own words (never an internal id)."""

from __future__ import annotations

import pytest

from collabrl.study.spec.forms import FormError, ratings, survey_answers
from collabrl.study.spec.schema import Question, Questionnaire

QUESTIONS = [
    Question(
        id="gaming",
        text="How often do you play video games?",
        kind="choice",
        options=["never", "weekly"],
    ),
    Question(id="age", text="Your age", kind="number", min=18, max=99),
    Question(id="ai_familiarity", text="I am familiar with AI assistants.", points=5),
    Question(id="notes", text="Anything else?", kind="text", required=False),
]


def test_every_problem_at_once_in_the_questions_words() -> None:
    with pytest.raises(FormError) as info:
        survey_answers(QUESTIONS, {"age": 12, "notes": ""})
    assert info.value.problems == {
        "gaming": "please answer this question",
        "age": "enter a number from 18 to 99",
        "ai_familiarity": "please answer this question",
    }
    message = str(info.value)
    assert message.startswith("3 answers to fix: \u201cHow often do you play video games?\u201d")
    assert "gaming" not in message and "ai_familiarity" not in message


def test_good_answers_pass_and_optional_ones_may_be_left_out() -> None:
    answers = survey_answers(QUESTIONS, {"gaming": "weekly", "age": 30, "ai_familiarity": 4})
    assert answers == {"gaming": "weekly", "age": 30, "ai_familiarity": 4}


def test_ratings_name_each_statement_with_the_partner_filled_in() -> None:
    questionnaire = Questionnaire(template="collabbench")
    first, second, *_ = questionnaire.items
    given = {item.id: 3 for item in questionnaire.items} | {first.id: None, second.id: 9}
    with pytest.raises(FormError) as info:
        ratings(questionnaire, given, "", partner="Agent A")
    assert info.value.problems == {
        first.id: "please rate this statement",
        second.id: "choose a point from 1 to 5",
    }
    assert "{partner}" not in str(info.value) and "Agent A" in str(info.value)
