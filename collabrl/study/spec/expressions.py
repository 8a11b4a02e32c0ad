"""The study file's one expression language: branch conditions (``when:``), state updates
(``set:``) and the payment bonus are all evaluated here, so they accept the same syntax and fail
the same way.

Expressions are Python-like and evaluated by ``simpleeval`` (arithmetic, comparisons, ``and`` /
``or`` / ``not``, ``in``, lists and comprehensions, ``x if c else y``; no imports, no access to
Python internals). Dotted names read mappings: ``state.score``, ``group.level``,
``answers.intake.cooks`` (also ``answers["intake.cooks"]``), ``result.success``. Which names an
expression sees depends on where it stands (see :mod:`collabrl.study.spec.logic` and
:mod:`collabrl.study.spec.payment`). Every failure is an :class:`ExpressionError` with a one-line
message; :func:`references` lists what an expression reads, so lint can name an unknown state
variable or question before any participant arrives.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

FUNCTIONS = {
    "min": min,
    "max": max,
    "sum": sum,
    "len": len,
    "round": round,
    "abs": abs,
    "int": int,
    "float": float,
    "str": str,
}
"""The functions every expression may call."""

MAX_LENGTH = 2000  # characters: an expression is a line of a study file


class ExpressionError(ValueError):
    """An expression that does not parse or cannot be computed (one line)."""


class MissingKey(LookupError):
    """A key a :class:`Lookup` does not hold (not a KeyError: the evaluator would take that for
    a missing item and retry it as an attribute, losing the message)."""


class Lookup(dict):
    """A mapping whose missing key is an error naming the known keys (``what``: the kind of key,
    e.g. "state variable"), so a typo says what exists."""

    what = "key"

    def __missing__(self, key: str) -> Any:
        known = ", ".join(sorted(self)) or "none"
        raise MissingKey(f"no {self.what} {key!r} (known: {known})")


class StateValues(Lookup):
    what = "state variable"


class AnswerValues(Lookup):
    """Survey answers keyed ``page.question``; ``answers.page`` (or ``answers["page"]``) is the
    page's own answers keyed by question id, so ``answers.intake.cooks`` reads one answer."""

    what = "survey question"

    def __missing__(self, key: str) -> Any:
        prefix = f"{key}."
        inner = {k[len(prefix) :]: v for k, v in self.items() if k.startswith(prefix)}
        if inner:
            page = AnswerValues(inner)
            page.what = f"question of page {key}"
            return page
        return super().__missing__(key)


def answer_values(answers: Mapping[str, Any], questions: Iterable[str]) -> AnswerValues:
    """Every question ``page.question`` with the participant's answer (None: not asked on their
    path, or unanswered)."""
    return AnswerValues({q: answers.get(q) for q in questions})


@lru_cache(maxsize=1024)
def parse(text: str) -> ast.Expression:
    """The syntax tree of ``text``; raises ExpressionError when it does not parse."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"longer than {MAX_LENGTH} characters")
    try:
        return ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"does not parse ({exc.msg})") from None


def references(text: str) -> set[tuple[str, str | None]]:
    """What ``text`` reads: (name, key) for ``name.key`` and ``name["key"]`` (``answers.p.q``
    gives ("answers", "p.q")), (name, None) for a bare name. Raises ExpressionError."""
    tree = parse(text)
    found: set[tuple[str, str | None]] = set()
    bound = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.comprehension)
        for target in ast.walk(node.target)
        if isinstance(target, ast.Name)
    }
    inner = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if id(node) in inner or not isinstance(node, ast.Attribute | ast.Subscript | ast.Name):
            continue
        keys: list[str] = []
        current: ast.AST = node
        while isinstance(current, ast.Attribute | ast.Subscript):
            inner.add(id(current.value))
            if isinstance(current, ast.Attribute):
                keys.append(current.attr)
            elif isinstance(current.slice, ast.Constant) and isinstance(current.slice.value, str):
                keys.append(current.slice.value)
            else:
                keys = []  # an index or a computed key: only the name is known
            current = current.value
        if isinstance(current, ast.Name) and current.id not in bound:
            keys.reverse()
            root = current.id
            depth = 2 if root == "answers" else 1
            found.add((root, ".".join(keys[:depth]) if keys else None))
    return {(root, key) for root, key in found if (root, None) not in found or key is None}


def evaluate(text: str, names: Mapping[str, Any]) -> Any:
    """The value of ``text`` with ``names`` (and :data:`FUNCTIONS`). Raises ExpressionError,
    naming what exists where a name or key does not."""
    from collabrl.engines.factory import require

    require(("simpleeval",), "pip install 'collabrl[study]'", "a study expression")
    from simpleeval import EvalWithCompoundTypes, FunctionNotDefined, NameNotDefined

    tree = parse(text)
    evaluator = EvalWithCompoundTypes(names=dict(names), functions=dict(FUNCTIONS))
    try:
        return evaluator.eval(text.strip(), previously_parsed=tree.body)
    except NameNotDefined as exc:
        known = ", ".join([*names, *FUNCTIONS])
        raise ExpressionError(f"unknown name {exc.name!r} (known: {known})") from None
    except FunctionNotDefined as exc:
        known = ", ".join(FUNCTIONS)
        raise ExpressionError(f"unknown function {exc.func_name!r} (known: {known})") from None
    except (MissingKey, KeyError) as exc:
        raise ExpressionError(str(exc.args[0]) if exc.args else "unknown key") from None
    except Exception as exc:  # a TypeError on an answer not given, a division by zero, ...
        raise ExpressionError(" ".join(str(exc).split()) or type(exc).__name__) from None


def truth(text: str, names: Mapping[str, Any]) -> bool:
    """Whether a condition holds (any value, Python's truth)."""
    return bool(evaluate(text, names))


def number(text: str, names: Mapping[str, Any]) -> float:
    """A finite number from ``text``; raises ExpressionError otherwise."""
    value = evaluate(text, names)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ExpressionError(f"gives {value!r}, not a number")
    return float(value)
