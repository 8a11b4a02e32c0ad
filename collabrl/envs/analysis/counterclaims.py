"""Hypotheses that state another claim than a given one: the perturbations a scorer must reject.

Why: a scorer that lets paraphrases through (:mod:`collabrl.envs.analysis.claims`) must still
tell a changed claim from the gold one. The real-data check (``benchmarks/discoverybench_check.py``)
and the tests score each gold against these four changes of it, each applied to every field the
changed text appears in (context, relation and sentence alike, as a team would write it):

- ``first/second``: the first event for the second, or the second for the first;
- ``increase/decrease``: one direction or extreme word turned to its opposite (rises/falls,
  peak/lowest, earliest/latest, begins/ends, high/low, positive/negative);
- ``wrong period``: the first number moved (a year by 200, a smaller number by 1);
- ``negated``: the relation denied ("it is not the case that ...").

A change that does not apply (no ordinal, no direction word, no number) is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from collabrl.envs.analysis.claims import KEY
from collabrl.envs.analysis.schema import Hypothesis

_ORDINALS = {"first": "second", "second": "first", "1st": "2nd", "2nd": "1st"}
_OPPOSITE_KEY = {"increase": "decrease", "decrease": "increase", "most": "least",
                 "least": "most", "earliest": "latest", "latest": "earliest", "begin": "end",
                 "end": "begin", "high": "low", "low": "high", "positive": "negative",
                 "negative": "positive"}  # fmt: skip
_OPPOSITE_WORD = {"increase": "decreases", "decrease": "increases", "most": "lowest",
                  "least": "highest", "earliest": "latest", "latest": "earliest",
                  "begin": "ends", "end": "begins", "high": "low", "low": "high",
                  "positive": "negative", "negative": "positive"}  # fmt: skip
"""A canonical key word -> the word written for its opposite."""
_WORD = re.compile(r"[A-Za-z0-9]+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
YEAR_SHIFT = 200  # years a wrong period moves a year by (two of the archaeology data's centuries)


def _first_word(text: str, change: Callable[[str], str | None]) -> str | None:
    """``text`` with its first word that ``change`` maps replaced (case kept at the start)."""
    for match in _WORD.finditer(text):
        new = change(match.group().lower())
        if new is not None:
            if match.group()[:1].isupper():
                new = new[:1].upper() + new[1:]
            return text[: match.start()] + new + text[match.end() :]
    return None


def _ordinal(word: str) -> str | None:
    return _ORDINALS.get(word)


def _direction(word: str) -> str | None:
    key = KEY.get(word)
    return _OPPOSITE_WORD[key] if key in _OPPOSITE_KEY else None


def _period(text: str) -> str | None:
    match = _NUMBER.search(text)
    if match is None:
        return None
    value = float(match.group())
    moved = value + (YEAR_SHIFT if value >= 100 else 1)
    written = str(int(moved)) if moved == int(moved) else str(moved)
    return text[: match.start()] + written + text[match.end() :]


def _negated(text: str) -> str:
    return f"it is not the case that {text[:1].lower()}{text[1:]}"


def _changed(gold: Hypothesis, change: Callable[[str], str | None]) -> Hypothesis | None:
    """``gold`` with the first place ``change`` applies to (relation first, then context)
    changed in every field that holds that text; None when it applies nowhere."""
    for source in (gold.relation, gold.context):
        new = change(source)
        if new is not None and new != source:
            return Hypothesis(
                context=gold.context.replace(source, new),
                variables=list(gold.variables),
                relation=gold.relation.replace(source, new),
                sentence=gold.sentence.replace(source, new),
            )
    return None


def counterclaims(gold: Hypothesis) -> dict[str, Hypothesis]:
    """The perturbations of ``gold`` that apply to it, by name (see the module docstring)."""
    changes: dict[str, Callable[[str], str | None]] = {
        "first/second": lambda text: _first_word(text, _ordinal),
        "increase/decrease": lambda text: _first_word(text, _direction),
        "wrong period": _period,
    }
    out = {name: h for name, change in changes.items() if (h := _changed(gold, change))}
    negated = _negated(gold.relation)
    out["negated"] = Hypothesis(
        context=gold.context if gold.context != gold.relation else negated,
        variables=list(gold.variables),
        relation=negated,
        sentence=gold.sentence.replace(gold.relation, negated),
    )
    return out
