"""The study file's state logic, as pure functions over the study: ``set:`` updates, ``when:``
branches, ``{state.x}`` / ``{answers.page.question}`` in texts and agent prompts, and their lint.

Names an expression sees (:func:`names`): ``state`` (the participant's variables), ``group``
(their group's), ``answers`` (``answers.page.question``; None where not answered) and, after a
round, ``result`` (the round: success, steps, efficiency, decisions, messages, condition,
position, round; a chat or document round adds its own measures, which are None after a game
round: :data:`ROOM_MEASURES`). A running study applies them through
:class:`collabrl.study.live.variables.StudyLogic`. Lint (:func:`check_logic`)
refuses, one line each, an expression that does not parse, one that reads an unknown state
variable, question or name, a ``set:`` of an undeclared variable, a placeholder naming what does
not exist, and a ``profile_from`` that is no choice of profiles; compile's path simulation then
evaluates every expression on every path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from collabrl.errors import RecipeError
from collabrl.study.spec.expressions import (
    ExpressionError,
    StateValues,
    answer_values,
    evaluate,
    parse,
    references,
    truth,
)
from collabrl.study.spec.room_lint import chat_agents
from collabrl.study.spec.schema import ConditionsPage, Study, SurveyPage
from collabrl.study.spec.state import coerce, initial_state

PLACEHOLDER = re.compile(r"\{(state|group|answers)\.([A-Za-z][A-Za-z0-9_.-]*)\}")
RESULT_KEYS = (
    "success",
    "steps",
    "efficiency",
    "decisions",
    "messages",
    "condition",
    "position",
    "round",
)
ROOM_MEASURE = "turns"
"""The report's first measure for studies without a game: a participant's messages (chat
round) or saves (document round)."""
ROOM_MEASURES = (ROOM_MEASURE, "room_messages", "room_versions")
"""A chat or document round's own measures
(:func:`collabrl.study.results.room_export.room_measures`): columns of its ``responses.csv`` rows
and names of ``result`` in the conditions page's ``set:``."""
ATTENTION_KEYS = ("passed", "failed")
"""``attention.passed`` / ``attention.failed``: the participant's attention checks so far."""
MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")


def question_ids(study: Study) -> list[str]:
    """``page.question`` of every survey question (the export's columns, the names of
    ``answers`` in expressions)."""
    return [f"{p.id}.{q.id}" for p in study.pages if isinstance(p, SurveyPage) for q in p.questions]


def attention_checks(study: Study) -> dict[str, str]:
    """``page.question`` -> the expected option, of every attention check of the study."""
    return {
        f"{p.id}.{q.id}": q.expect
        for p in study.pages
        if isinstance(p, SurveyPage)
        for q in p.questions
        if q.expect is not None
    }


def attention_counts(study: Study, answers: Mapping[str, Any]) -> dict[str, int]:
    """``attention.passed`` and ``attention.failed``: the attention checks answered so far
    with the expected option, and with another one (an unanswered check counts as neither)."""
    given = [
        (answers[k], expected)
        for k, expected in attention_checks(study).items()
        if answers.get(k) is not None
    ]
    passed = sum(answer == expected for answer, expected in given)
    return {"passed": passed, "failed": len(given) - passed}


def names(
    study: Study,
    state: Mapping[str, Any] | None,
    group: Mapping[str, Any] | None,
    answers: Mapping[str, Any],
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What an expression sees (missing state: the variables' initial values)."""
    mine = StateValues(initial_state(study.state, "participant") | dict(state or {}))
    ours = StateValues(initial_state(study.state, "group") | dict(group or {}))
    ours.what = "group variable"
    out: dict[str, Any] = {
        "state": mine,
        "group": ours,
        "answers": answer_values(answers, question_ids(study)),
        "attention": attention_counts(study, answers),
    }
    if result is not None:
        out["result"] = dict(result)
    return out


def escape_markdown(text: str) -> str:
    """``text`` shown literally inside author Markdown (a participant's answer cannot add a
    link, an image or emphasis)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _lookup(values: Mapping[str, Any], root: str, key: str) -> Any:
    """The value a placeholder names (``answers.page.question.part``: a part of a custom
    component's answer)."""
    if root != "answers":
        return values[root].get(key)
    page, question, *parts = key.split(".")
    value = values["answers"].get(f"{page}.{question}")
    for part in parts:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def interpolate(text: str, values: Mapping[str, Any], markdown: bool) -> str:
    """``{state.x}``, ``{group.x}`` and ``{answers.page.question}`` in ``text`` filled in
    (escaped for Markdown when ``markdown``; a value not given is empty)."""

    def one(match: re.Match[str]) -> str:
        value = _lookup(values, match.group(1), match.group(2))
        shown = "" if value is None else " ".join(str(value).split())
        return escape_markdown(shown) if markdown else shown

    return PLACEHOLDER.sub(one, text)


def fill(text: str, values: dict[str, Any]) -> str:
    """``{round}``, ``{rounds}``, ``{partner}`` filled in (other braces are left alone)."""
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def apply_set(
    study: Study, assignments: Mapping[str, str], values: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """The participant's and the group's state after ``assignments`` (variable ->
    expression, all evaluated on the state before), and the variables that failed (name ->
    error; they keep their value)."""
    mine, ours, failed = dict(values["state"]), dict(values["group"]), {}
    for var, expression in assignments.items():
        declared = study.state[var]
        try:
            value = coerce(declared, evaluate(expression, values))
        except ExpressionError as exc:
            failed[var] = str(exc)
            continue
        (ours if declared.scope == "group" else mine)[var] = value
    return mine, ours, failed


def route(
    study: Study, page: SurveyPage, answers: Mapping[str, Any], values: Mapping
) -> str | None:
    """The target of the first branch of ``page`` that fires (None: none does); raises
    ExpressionError for a ``when`` that cannot be computed."""
    for branch in page.branches:
        if branch.when is not None:
            if truth(branch.when, values):
                return branch.to
        elif answers.get(branch.question or "") == branch.equals:
            return branch.to
    return None


# --- lint --------------------------------------------------------------------------------------

CONTEXTS = {
    "survey": ("state", "group", "answers", "attention"),
    "chat": ("state", "group", "answers", "attention", "chat"),
    "round": ("state", "group", "answers", "attention", "result"),
    "bonus": ("rounds", "succeeded", "round", "answers", "state", "group"),
}


def check_expression(study: Study, expression: str, where: str, context: str) -> None:
    """``expression`` parses and reads only what exists in ``context``; raises RecipeError."""
    try:
        parse(expression)
        read = references(expression)
    except ExpressionError as exc:
        raise RecipeError(f"{where} {expression!r}: {exc}") from None
    allowed = CONTEXTS[context]
    questions = question_ids(study)
    for root, key in sorted(read, key=lambda r: (r[0], r[1] or "")):
        if root not in allowed:
            raise RecipeError(
                f"{where} {expression!r}: unknown name {root!r} (known: {', '.join(allowed)})"
            )
        _check_reference(study, root, key, f"{where} {expression!r}", questions)


def _check_reference(
    study: Study, root: str, key: str | None, where: str, questions: list[str]
) -> None:
    if key is None:
        return
    if root in ("state", "group"):
        scope = "participant" if root == "state" else "group"
        var = study.state.get(key)
        if var is None:
            known = ", ".join(study.state) or "none declared under state:"
            raise RecipeError(f"{where}: unknown state variable {key!r} (known: {known})")
        if var.scope != scope:
            other = "group" if scope == "participant" else "state"
            raise RecipeError(f"{where}: {key} is a {var.scope} variable: read it as {other}.{key}")
    elif (
        root == "answers"
        and key not in questions
        and not any(q.startswith(key + ".") for q in questions)
    ):
        raise RecipeError(
            f"{where}: no survey question {key!r} (known: {', '.join(questions) or 'none'})"
        )
    elif root == "attention" and key not in ATTENTION_KEYS:
        raise RecipeError(f"{where}: attention has no {key!r} (known: passed, failed)")
    elif root == "result" and key not in result_keys(study):
        known = ", ".join(result_keys(study))
        if key in ROOM_MEASURES:
            raise RecipeError(
                f"{where}: result.{key} is a chat or document round's (known: {known})"
            )
        raise RecipeError(f"{where}: result has no {key!r} (known: {known})")


def room_rounds(study: Study) -> bool:
    """Whether some condition of the study is a chat or document round."""
    return any(c.round != "game" for c in study.conditions)


def result_keys(study: Study) -> tuple[str, ...]:
    """The names ``result`` has in the study's rounds (a chat or document round's own only
    where it has such rounds)."""
    return RESULT_KEYS + (ROOM_MEASURES if room_rounds(study) else ())


def _check_set(study: Study, assignments: Mapping[str, str], where: str, context: str) -> None:
    for var, expression in assignments.items():
        declared = study.state.get(var)
        if declared is None:
            known = ", ".join(study.state) or "none declared under state:"
            raise RecipeError(f"{where}.set: unknown state variable {var!r} (known: {known})")
        if declared.scope == "group" and context == "survey":
            raise RecipeError(
                f"{where}.set: {var} is a group variable: groups set theirs after rounds (the "
                "conditions page's set:)"
            )
        check_expression(study, expression, f"{where}.set.{var}", context)


def texts(study: Study) -> Iterable[tuple[str, str]]:
    """(where, text) of every text that may hold placeholders."""
    for page in study.pages:
        yield f"page {page.id}", page.text
        if isinstance(page, SurveyPage):
            for q in page.questions:
                yield f"page {page.id} question {q.id}", q.text
    rating = study.questionnaire
    if rating is not None:
        yield "questionnaire.intro", rating.intro
        yield from ((f"questionnaire item {i.id}", i.text) for i in rating.items)
        if rating.free_text:
            yield "questionnaire.free_text", rating.free_text
    yield from ((f"{where}.prompt", agent.prompt) for where, agent in chat_agents(study))
    if study.disclosure.debrief:
        yield "disclosure.debrief", study.disclosure.debrief
    for c in study.conditions:
        if c.prompt:
            yield f"condition {c.id} prompt", c.prompt


def check_logic(study: Study) -> None:
    """Every expression, ``set:``, placeholder and ``profile_from`` of the study names what
    exists; raises RecipeError (one line)."""
    questions = question_ids(study)
    for page in study.pages:
        if isinstance(page, SurveyPage):
            _check_set(study, page.set, f"page {page.id}", "survey")
            if page.retry is not None:
                check_expression(study, page.retry.passed, f"page {page.id} retry.passed", "survey")
            for k, branch in enumerate(page.branches):
                if branch.when is not None:
                    check_expression(
                        study, branch.when, f"page {page.id} branches.{k} when", "survey"
                    )
        elif isinstance(page, ConditionsPage):
            _check_set(study, page.set, f"page {page.id}", "round")
    for where, text in texts(study):
        for match in PLACEHOLDER.finditer(text):
            root, key = match.group(1), match.group(2)
            key = ".".join(key.split(".")[:2]) if root == "answers" else key
            _check_reference(study, root, key, f"{where}: {match.group(0)}", questions)
    for c in study.conditions:
        if c.agent is None:  # a chat or document round: its chat_agent has its own prompt
            if c.prompt or c.profile_from:
                raise RecipeError(
                    f"condition {c.id}: prompt and profile_from shape a game round's agent; "
                    f"a {c.round} round's chat_agent takes its own prompt"
                )
            continue
        if c.profile_from is not None:
            _check_profile_from(study, c.id, c.profile_from, c.agent.kind)
        if c.prompt and c.agent.kind != "llm":
            raise RecipeError(f"condition {c.id}: prompt is an llm agent's, not a {c.agent.kind}'s")


def _check_profile_from(study: Study, cid: str, var: str, kind: str) -> None:
    from collabrl.profiles import get_profile

    where = f"condition {cid}: profile_from {var!r}"
    declared = study.state.get(var)
    if declared is None:
        known = ", ".join(study.state) or "none declared under state:"
        raise RecipeError(f"{where}: unknown state variable (known: {known})")
    if kind not in ("persona", "llm"):
        raise RecipeError(f"{where}: a {kind} agent plays no profile")
    if declared.type != "choice":
        raise RecipeError(f"{where}: give a choice variable whose values are profile ids")
    for value in declared.values:
        profile = get_profile(value)  # an unknown id is a one-line error naming it
        if kind == "persona" and profile.game != study.played_game.name:
            raise RecipeError(f"{where}: {value!r} is a {profile.game} profile")


# --- path simulation ---------------------------------------------------------------------------


def expressions(study: Study) -> list[str]:
    """Every branch, retry and set expression of the study."""
    out: list[str] = []
    for page in study.pages:
        if isinstance(page, SurveyPage | ConditionsPage):
            out.extend(page.set.values())
        if isinstance(page, SurveyPage):
            out.extend(b.when for b in page.branches if b.when is not None)
            out.extend([page.retry.passed] if page.retry else [])
    return out


def read_answers(study: Study) -> set[str]:
    """``page.question`` of every answer some expression reads (every attention check's,
    where one reads ``attention``)."""
    read = {(root, key) for e in expressions(study) for root, key in references(e)}
    checks = set(attention_checks(study)) if any(root == "attention" for root, _ in read) else set()
    return checks | {key for root, key in read if root == "answers" and key}


def constants(study: Study) -> tuple[list[float], list[str]]:
    """The numbers and texts the expressions compare with (the values worth simulating)."""
    import ast

    numbers: set[float] = set()
    words: set[str] = set()
    for expression in expressions(study):
        for node in ast.walk(parse(expression)):
            if isinstance(node, ast.Constant):
                if isinstance(node.value, bool):
                    continue
                if isinstance(node.value, int | float):
                    numbers.add(float(node.value))
                elif isinstance(node.value, str):
                    words.add(node.value)
    return sorted(numbers), sorted(words)


def simulated_answers(
    question: Any, numbers: list[float], words: list[str], samples: list[Any]
) -> list[Any]:
    """Answers to ``question`` that take every route an expression can tell apart: every
    option or point, numbers around each constant, each compared text and another one; a
    custom component's ``samples`` (its class draws them)."""
    if question.is_choice:
        values: list[Any] = list(question.options)
    elif question.kind == "likert":
        values = list(range(1, question.points + 1))
    elif question.kind == "number":
        low = question.min if question.min is not None else -float("inf")
        high = question.max if question.max is not None else float("inf")
        near = {v for c in numbers for v in (c - 1, c, c + 1)} | {0.0}
        near |= {v for v in (question.min, question.max) if v is not None}
        values = sorted(v for v in near if low <= v <= high) or [low]
    elif question.kind == "text":
        values = [*words, "(another answer)"]
    else:
        values = samples
    return values if question.required else [*values, None]


def round_results(study: Study, numbers: list[float]) -> list[dict[str, Any]]:
    """Round results worth simulating for the conditions page's ``set:``: a game round's
    success or not, a chat or document round's (no success, steps or efficiency), counts
    around each constant, and each condition where an expression reads it or the round's kind
    (else one condition of each kind of round)."""
    counts = sorted({0.0, *numbers, *(c + 1 for c in numbers)})
    read = {r for e in expressions(study) for r in references(e)}
    reads_condition = bool({("result", "condition"), ("result", "round"), ("result", None)} & read)
    conditions = list(study.conditions)
    if not reads_condition:
        conditions = list({c.round == "game": c for c in reversed(conditions)}.values())
    out: list[dict[str, Any]] = []
    for condition in conditions:
        if condition.round == "game":
            results = [
                {"success": won, "steps": n, "efficiency": float(won), "decisions": n}
                | {"messages": n, **dict.fromkeys(ROOM_MEASURES)}
                for won in (True, False)
                for n in counts
            ]
        else:
            results = [
                {"success": None, "steps": None, "efficiency": None, "decisions": n}
                | {"messages": n, **dict.fromkeys(ROOM_MEASURES, n)}
                for n in counts
            ]
        where = {"condition": condition.id, "position": 1, "round": condition.round}
        out.extend(result | where for result in results)
    return out


def same(values: Mapping[str, Any]) -> str:
    """A key telling two simulated states apart."""
    return repr(
        sorted(
            (k, sorted(dict(v).items()) if isinstance(v, dict) else v) for k, v in values.items()
        )
    )
