"""State variables: what a study remembers about a participant (or their matched group) beyond
the answers, so later pages, branches, texts and agents can depend on it.

A study declares its variables under ``state:`` with a type and a default; survey pages set them
from answers (``set:`` on the page) and the conditions page sets them after every round from the
round's result (``set:`` there). Every change is stored as a ``state`` event carrying the whole
new state, so the database keeps the history and a restart resumes from the last one.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, model_validator

from collabrl.sections import Strict
from collabrl.study.spec.expressions import ExpressionError

VarType = Literal["number", "text", "bool", "choice"]


class StateVar(Strict):
    """One state variable."""

    type: VarType = "number"
    """number, text, bool or choice (one of ``values``)."""
    default: str | float | int | bool | None = None
    """The value before anything sets it (null: 0, "", false or the first of ``values``)."""
    values: list[str] = Field(default_factory=list)
    """choice: the values it may take (e.g. profile ids for a condition's ``profile_from``)."""
    scope: Literal["participant", "group"] = "participant"
    """participant (each person's own) or group (shared by a matched group; set after rounds)."""

    @model_validator(mode="after")
    def _consistent(self) -> StateVar:
        if self.type == "choice" and not self.values:
            raise ValueError("a choice variable needs values")
        if self.type != "choice" and self.values:
            raise ValueError(f"values belong to a choice variable, not a {self.type} one")
        if self.default is not None:
            coerce(self, self.default)
        return self

    @property
    def initial(self) -> Any:
        """The value before anything sets it."""
        if self.default is not None:
            return coerce(self, self.default)
        if self.type == "choice":
            return self.values[0]
        return {"number": 0, "text": "", "bool": False}[self.type]


def coerce(var: StateVar, value: Any) -> Any:
    """``value`` as ``var`` holds it; raises ExpressionError when it does not fit the type."""
    if var.type == "number":
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ExpressionError(f"{value!r} is not a number")
        return value
    if var.type == "bool":
        if not isinstance(value, bool):
            raise ExpressionError(f"{value!r} is not true or false")
        return value
    if var.type == "choice":
        if value not in var.values:
            raise ExpressionError(f"{value!r} is not one of {', '.join(map(repr, var.values))}")
        return value
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise ExpressionError(f"{value!r} is not text")
    return str(value)


def initial_state(variables: dict[str, StateVar], scope: str) -> dict[str, Any]:
    """Every variable of ``scope`` at its initial value."""
    return {name: var.initial for name, var in variables.items() if var.scope == scope}
