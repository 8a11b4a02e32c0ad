"""Payment: a base fee and a bonus computed from what the participant did, and the platform's
bulk-bonus file.

The bonus is an expression (evaluated by ``simpleeval``: arithmetic, comparisons, list comprehensions, ``x if c else
y``, no attribute access to Python internals) over these names:

- ``rounds``: rounds the participant played; ``succeeded``: how many of them ended in success;
- ``round``: per round, in play order, a mapping with ``success``, ``steps`` (the game's
  efficiency column), ``decisions``, ``messages`` and ``condition``;
- ``answers``: the survey answers as ``answers["page.question"]`` (None: not asked on their path);
- ``min``, ``max``, ``sum``, ``len``, ``round``, ``abs``.

The result is clipped to ``[0, max_bonus]`` and rounded to cents. A bonus that cannot be computed
for one participant (an answer they never gave used in arithmetic) is 0 with the error recorded
in their payment event and the export, never a lost completion.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from typing import Any

from collabrl.errors import RecipeError

NAMES = ("rounds", "succeeded", "round", "answers")
FUNCTIONS = {"min": min, "max": max, "sum": sum, "len": len, "round": round, "abs": abs}
ROUND_KEYS = ("success", "steps", "decisions", "messages", "condition")


class Answers(dict):
    """A participant's answers; an unknown key is an error naming the known ones (a typo in the
    expression is caught at lint, not at payment)."""

    def __missing__(self, key: str) -> Any:
        raise KeyError(f"no survey question {key!r} (known: {', '.join(self) or 'none'})")


def bonus_names(
    rounds: list[dict[str, Any]], answers: Mapping[str, Any], questions: Iterable[str]
) -> dict[str, Any]:
    """The names a bonus expression sees for one participant."""
    given = Answers({q: answers.get(q) for q in questions})
    return {
        "rounds": len(rounds),
        "succeeded": sum(bool(r.get("success")) for r in rounds),
        "round": [{k: r.get(k) for k in ROUND_KEYS} for r in rounds],
        "answers": given,
    }


def evaluate_bonus(expression: str, names: dict[str, Any], cap: float) -> float:
    """The bonus for ``names``, clipped to ``[0, cap]`` and rounded to cents. Raises ValueError
    (one line) when the expression cannot be computed."""
    from collabrl.engines.factory import require

    require(("simpleeval",), "pip install 'collabrl[study]'", "a payment bonus expression")
    from simpleeval import EvalWithCompoundTypes, FunctionNotDefined, NameNotDefined

    evaluator = EvalWithCompoundTypes(names=names, functions=FUNCTIONS)
    try:
        value = evaluator.eval(expression)
    except SyntaxError as exc:
        raise ValueError(f"does not parse ({exc.msg})") from None
    except (NameNotDefined, FunctionNotDefined) as exc:
        known = ", ".join([*NAMES, *FUNCTIONS])
        raise ValueError(f"unknown name {exc.name!r} (known: {known})") from None
    except KeyError as exc:
        raise ValueError(str(exc.args[0]) if exc.args else "unknown key") from None
    except Exception as exc:  # a TypeError on an answer not given, ...
        raise ValueError(" ".join(str(exc).split()) or type(exc).__name__) from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"gives {value!r}, not a number")
    return round(min(max(float(value), 0.0), cap), 2)


def check_bonus(expression: str, cap: float, samples: list[dict[str, Any]]) -> None:
    """Lint: the expression parses, names only what exists, and gives a number with no round
    played and with one, for each sample participant (``samples``: every question answered);
    raises RecipeError."""
    one = {"success": True, "steps": 10, "decisions": 5, "messages": 1, "condition": "c"}
    played: list[list[dict[str, Any]]] = [[], [one]]
    for rounds in played:
        for answers in samples:
            try:
                evaluate_bonus(expression, bonus_names(rounds, answers, answers), cap)
            except ValueError as exc:
                raise RecipeError(f"payment.bonus {expression!r}: {exc}") from None


def bonus_file(fmt: str, rows: list[dict[str, Any]], reason: str) -> str:
    """The bulk-bonus file of a platform format, for ``rows`` (participant id, session id,
    bonus, currency) with a bonus above zero:

    - ``prolific``: ``participant_id,amount`` lines, no header (Prolific's bulk bonus box);
    - ``mturk``: ``WorkerId,AssignmentId,BonusAmount,Reason`` (the SendBonus call's fields);
    - ``plain``: ``participant,amount,currency``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    paid = [r for r in rows if r["bonus"] > 0]
    if fmt == "prolific":
        writer.writerows([r["participant"], f"{r['bonus']:.2f}"] for r in paid)
    elif fmt == "mturk":
        writer.writerow(["WorkerId", "AssignmentId", "BonusAmount", "Reason"])
        writer.writerows(
            [r["participant"], r["session"] or "", f"{r['bonus']:.2f}", reason] for r in paid
        )
    else:
        writer.writerow(["participant", "amount", "currency"])
        writer.writerows([r["participant"], f"{r['bonus']:.2f}", r["currency"]] for r in paid)
    return out.getvalue()
