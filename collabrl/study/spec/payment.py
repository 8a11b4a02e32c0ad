"""Payment: a base fee and a bonus computed from what the participant did, and the platform's
bulk-bonus file.

The bonus is an expression of the study file's one expression language
(:mod:`collabrl.study.spec.expressions`: arithmetic, comparisons, list comprehensions, ``x if c else
y``, no access to Python internals) over these names:

- ``rounds``: rounds the participant played; ``succeeded``: how many of them ended in success;
- ``round``: per round, in play order, a mapping with ``success``, ``steps`` (the game's
  efficiency column), ``decisions``, ``messages`` and ``condition``;
- ``answers``: the survey answers as ``answers["page.question"]`` or ``answers.page.question``
  (None: not asked on their path);
- ``state`` and ``group``: the participant's and their group's state variables
  (:mod:`collabrl.study.spec.state`), where the study declares any;
- the expression language's functions (``min``, ``max``, ``sum``, ``len``, ``round``, ...).

The result is clipped to ``[0, max_bonus]`` and rounded to cents. A bonus that cannot be computed
for one participant (an answer they never gave used in arithmetic) is 0 with the error recorded
in their payment event and the export, never a lost completion.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from collabrl.errors import RecipeError
from collabrl.study.spec.expressions import answer_values, number

ROUND_KEYS = ("success", "steps", "decisions", "messages", "condition")


def bonus_names(
    rounds: list[dict[str, Any]], answers: Mapping[str, Any], questions: Iterable[str]
) -> dict[str, Any]:
    """The names a bonus expression sees for one participant."""
    return {
        "rounds": len(rounds),
        "succeeded": sum(bool(r.get("success")) for r in rounds),
        "round": [{k: r.get(k) for k in ROUND_KEYS} for r in rounds],
        "answers": answer_values(answers, questions),
    }


def evaluate_bonus(expression: str, names: dict[str, Any], cap: float) -> float:
    """The bonus for ``names``, clipped to ``[0, cap]`` and rounded to cents. Raises ValueError
    (one line: :class:`~collabrl.study.spec.expressions.ExpressionError`) when the expression cannot
    be computed."""
    return round(min(max(number(expression, names), 0.0), cap), 2)


def check_bonus(
    expression: str,
    cap: float,
    samples: list[dict[str, Any]],
    state: Mapping[str, Any] | None = None,
) -> None:
    """Lint: the expression parses, names only what exists, and gives a number with no round
    played and with one, for each sample participant (``samples``: every question answered);
    raises RecipeError."""
    one = {"success": True, "steps": 10, "decisions": 5, "messages": 1, "condition": "c"}
    played: list[list[dict[str, Any]]] = [[], [one]]
    for rounds in played:
        for answers in samples:
            try:
                names = {**bonus_names(rounds, answers, answers), **(state or {})}
                evaluate_bonus(expression, names, cap)
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
