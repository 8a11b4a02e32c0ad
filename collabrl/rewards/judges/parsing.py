"""Tolerant reading of judge replies: JSON objects inside fences, prose, or Python-style quoting.

Why tolerant: judge models often wrap JSON in code fences, add a sentence after it, use single
quotes or write numbers as strings. Those are recoverable and are repaired here. What is not
recoverable (no object at all, a level outside the scale, a missing list of violations) is a
*failure*: the caller records it and leaves the reward missing, never 0.

Decision on out-of-range levels: a level outside [0.1, 1.0] (e.g. ``7`` or ``0``) is a failure,
not clamped. Such a value means the judge used another scale (1-10? 0-1 with 0?); clamping would
silently turn a "7 out of 10" into the top level. In-range values are snapped to the nearest of the
ten levels (0.75 -> 0.8). Per-violation deductions are different: the scale is known to cap a
violation at 3, so 4 or 5 are clamped to 3 and 0 or less drops the entry, each with a note.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

from collabrl.rewards.judges.records import MAX_DEDUCTION, Violation

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_LEVEL_KEYS = ("interactivity", "level", "score", "rating")
_RATIONALE_KEYS = ("thought", "rationale", "reason", "reasoning", "explanation")
_BARE_LEVEL = re.compile(
    r"[\"']?(?:interactivity|level|score)[\"']?\s*[:=]\s*[\"']?(-?\d+(?:\.\d+)?)", re.IGNORECASE
)
_PY_LITERALS = re.compile(r"\b(true|false|null)\b")


class JudgeParseError(ValueError):
    """A reply that cannot be turned into a judgement (the message says why)."""


def _balanced_objects(text: str) -> list[str]:
    """Every top-level ``{...}`` span, scanning once and skipping braces inside quoted strings."""
    spans, depth, start, quote, escaped = [], 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and depth > 0:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


def _load(candidate: str) -> dict[str, Any] | None:
    """Strict JSON first, then a Python-literal reading (single quotes, True/None, trailing ,)."""
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError:
        pythonic = _PY_LITERALS.sub(
            lambda m: {"true": "True", "false": "False", "null": "None"}[m.group(1)], candidate
        )
        try:
            value = ast.literal_eval(pythonic)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def extract_object(text: str) -> dict[str, Any]:
    """The first JSON-like object in ``text`` (fences and surrounding prose are ignored)."""
    if not isinstance(text, str) or not text.strip():
        raise JudgeParseError("empty reply")
    fenced = _FENCE.findall(text)
    for source in (*fenced, text):
        for candidate in _balanced_objects(source):
            obj = _load(candidate)
            if obj is not None:
                return obj
    raise JudgeParseError("no JSON object in reply")


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    return next((lowered[k] for k in keys if k in lowered), None)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().rstrip("."))
        except ValueError:
            return None
    return None


def snap_level(value: float) -> float:
    """Nearest of the ten levels 0.1..1.0 (halves round up) for a value checked to be in range."""
    return min(1.0, max(0.1, math.floor(value * 10 + 0.5 + 1e-9) / 10))


def parse_level(text: str) -> tuple[float, str]:
    """(level, rationale) from an interactivity judge reply; raises :class:`JudgeParseError`."""
    try:
        obj = extract_object(text)
        raw_level, rationale = _first(obj, _LEVEL_KEYS), _first(obj, _RATIONALE_KEYS)
    except JudgeParseError:
        bare = _BARE_LEVEL.search(text or "")
        if not bare:
            raise
        raw_level, rationale = bare.group(1), ""
    if raw_level is None:
        raise JudgeParseError("reply has no interactivity level")
    level = _number(raw_level)
    if level is None:
        raise JudgeParseError(f"level {raw_level!r} is not a number")
    if not 0.1 - 1e-6 <= level <= 1.0 + 1e-6:
        raise JudgeParseError(f"level {level:g} is outside 0.1..1.0")
    return snap_level(level), str(rationale or "").strip()


def parse_violations(text: str) -> tuple[list[Violation], str, list[str]]:
    """(violations, summary, notes) from a window judge reply; raises :class:`JudgeParseError`."""
    obj = extract_object(text)
    items = _first(obj, ("violations", "deductions"))
    if items is None:
        raise JudgeParseError("reply has no 'violations' list")
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise JudgeParseError("'violations' is not a list")
    violations, notes = [], []
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise JudgeParseError(f"violation {n} is not an object")
        raw = _first(item, ("deduction", "points", "penalty", "score"))
        amount = _number(raw)
        if amount is None:
            raise JudgeParseError(f"violation {n} has no numeric deduction ({raw!r})")
        points = round(amount)
        if points <= 0:
            notes.append(f"violation {n}: deduction {amount:g} <= 0 ignored")
            continue
        if points > MAX_DEDUCTION:
            notes.append(f"violation {n}: deduction {amount:g} clamped to {MAX_DEDUCTION}")
            points = MAX_DEDUCTION
        rule = str(_first(item, ("rule", "criterion", "reason")) or "").strip()
        evidence = str(_first(item, ("evidence", "quote")) or "").strip()
        violations.append(Violation(rule=rule, deduction=points, evidence=evidence))
    summary = str(_first(obj, ("summary", "thought", "rationale")) or "").strip()
    return violations, summary, notes
