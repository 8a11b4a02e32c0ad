"""Randomised designs without rounds: vignette and survey experiments that assign arms to
pages, texts or state, with no game round and no conditions page.

A study lists its randomisations under ``randomise:``::

    randomise:
      - id: vignette
        factors: {framing: [gain, loss], source: [human, ai]}   # 2 x 2 factorial: 4 cells
        method: balanced          # or simple
        strata: answers.intake.expert     # optional: a balanced sequence per value
        at: vignette_page                 # optional: assigned on arrival there (default: join)

Each factor is written out as a choice state variable (``state.framing``), so branches
(``when: state.framing == "loss"``), texts (``{state.framing}``) and agent prompts read the
assigned level with no new syntax. ``balanced`` deals the cells in permuted blocks (every block
holds each cell once, its order drawn from the study's seed), per stratum; ``simple`` draws each
participant's cell independently (seeded by the study's seed and the participant's id). The
assignment is an ``assignment`` event and a row of the export's ``assignments.csv``.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, Literal

from pydantic import Field, model_validator

from collabrl.agents.persona.temperament import stable_seed
from collabrl.sections import Strict

Level = str


class Randomisation(Strict):
    """One randomisation: a factorial crossing of factors, dealt to participants."""

    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    """Name in the events and the export."""
    factors: dict[str, list[Level]] = Field(min_length=1)
    """Factor -> its levels (two or more); the cells are every combination. Each factor is a
    choice state variable of the participant, set to the assigned level."""
    method: Literal["balanced", "simple"] = "balanced"
    """balanced: permuted blocks (each cell once per block of len(cells) participants, per
    stratum); simple: an independent uniform draw per participant."""
    strata: str | None = None
    """An expression (over state and answers) whose value splits participants into strata,
    each balanced on its own (null: one stratum)."""
    at: str | None = None
    """The page on whose arrival the assignment is made (null: the first page, at join); a
    page after an intake survey can stratify by its answers."""

    @model_validator(mode="before")
    @classmethod
    def _no_booleans(cls, data: Any) -> Any:
        factors = data.get("factors") if isinstance(data, dict) else None
        for name, levels in (factors or {}).items():
            if isinstance(levels, list) and any(isinstance(v, bool) for v in levels):
                raise ValueError(
                    f"randomise {data.get('id')}: factor {name} has a boolean level: unquoted "
                    'yes/no/on/off/true/false are YAML booleans: quote them ("yes")'
                )
        return data

    @model_validator(mode="after")
    def _levels(self) -> Randomisation:
        for name, levels in self.factors.items():
            if len(levels) < 2 or len(set(levels)) != len(levels):
                raise ValueError(
                    f"randomise {self.id}: factor {name} needs two or more distinct levels"
                )
        return self

    @property
    def cells(self) -> list[dict[str, Level]]:
        """Every combination of levels, in the factors' order (the first factor slowest)."""
        names = list(self.factors)
        combos = itertools.product(*self.factors.values())
        return [dict(zip(names, combo, strict=True)) for combo in combos]

    def cell(self, seed: int, stratum: str, index: int, pid: str) -> int:
        """The cell (index into :attr:`cells`) of the ``index``-th participant of ``stratum``
        (``pid``: their id, which seeds a simple draw)."""
        n = len(self.cells)
        if self.method == "simple":
            return random.Random(stable_seed(seed, self.id, pid)).randrange(n)
        block, within = divmod(index, n)
        order = random.Random(stable_seed(seed, self.id, stratum, block)).sample(range(n), n)
        return order[within]


def arm_variables(data: Any) -> Any:
    """A raw study with each randomised factor declared as a choice state variable (a factor
    declared under ``state:`` already must be that same choice)."""
    if not isinstance(data, dict) or not isinstance(data.get("randomise"), list):
        return data
    state = dict(data.get("state") or {})
    for entry in data["randomise"]:
        factors = entry.get("factors") if isinstance(entry, dict) else None
        if not isinstance(factors, dict):
            continue
        for name, levels in factors.items():
            declared = state.get(name)
            wanted = {"type": "choice", "values": list(levels or [])}
            if declared is None:
                state[name] = wanted
            elif (
                not isinstance(declared, dict)
                or {k: declared.get(k) for k in wanted} != wanted
                or declared.get("scope", "participant") != "participant"
            ):
                raise ValueError(
                    f"randomise: factor {name} is also a state variable of another kind; "
                    "leave it out of state: (the randomisation declares it)"
                )
    return {**data, "state": state}
