"""How a submitted hypothesis scores against the gold one, facet by facet.

DiscoveryBench's hypothesis match score for one (sub-)hypothesis: context match x variable F1 x
relation match, each facet in [0, 1]. Collaborative Gym's Performance for the analysis task is
the context facet alone. Here the facets are computed on the structured fields the team edits;
free-text sentences are for people and for an LLM judge, not for this score. Two scorers:

- ``claims`` (the default): context and relation match when they state the same claim
  (:mod:`collabrl.envs.analysis.claims`: a paraphrase matches, a changed number, direction,
  order or negation does not);
- ``exact``: they match when their normalised text is equal (case, punctuation and spacing do
  not count), the scorer before claims were read.

Variables score the same under both: the F1 of the normalised name sets.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Literal

from collabrl.envs.analysis.claims import same_claim
from collabrl.envs.analysis.tasks import Hypothesis

Scorer = Literal["claims", "exact"]
SCORERS: tuple[Scorer, ...] = ("claims", "exact")

_WORDS = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


@dataclass(frozen=True)
class Facets:
    context: float  # 1.0 when the contexts match, else 0.0
    variables: float  # F1 of the variable sets
    relation: float  # 1.0 when the relations match, else 0.0
    hms: float  # the hypothesis match score: the product of the three

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def normalise(text: str) -> str:
    """Lower case words and numbers only: "Peaks in period 5." -> "peaks in period 5"."""
    return " ".join(_WORDS.findall(text.lower()))


def variables_f1(submitted: list[str], gold: list[str]) -> float:
    """F1 of two variable lists, compared as sets of normalised names; two empty lists agree
    (1.0: a gold hypothesis without variables scores 1 against itself)."""
    mine = {normalise(v) for v in submitted if normalise(v)}
    theirs = {normalise(v) for v in gold if normalise(v)}
    if not mine and not theirs:
        return 1.0
    common = len(mine & theirs)
    if not common:
        return 0.0
    precision, recall = common / len(mine), common / len(theirs)
    return 2 * precision * recall / (precision + recall)


def _same_text(submitted: str, gold: str) -> bool:
    return normalise(submitted) == normalise(gold)


def score_hypothesis(submitted: Hypothesis, gold: Hypothesis, scorer: Scorer = "claims") -> Facets:
    """The facets of ``submitted`` against ``gold`` and their product, by ``scorer``."""
    if scorer not in SCORERS:
        raise ValueError(f"unknown hypothesis scorer {scorer!r}; use one of {', '.join(SCORERS)}")
    same = same_claim if scorer == "claims" else _same_text
    context = float(same(submitted.context, gold.context))
    variables = variables_f1(submitted.variables, gold.variables)
    relation = float(same(submitted.relation, gold.relation))
    return Facets(context, variables, relation, round(context * variables * relation, 6))
