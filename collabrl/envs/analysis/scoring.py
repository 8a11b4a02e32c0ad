"""How a submitted hypothesis scores against the gold one, facet by facet.

DiscoveryBench's hypothesis match score for one (sub-)hypothesis: context match x variable F1 x
relation match, each facet in [0, 1]. Collaborative Gym's Performance for the analysis task is
the context facet alone. Here the facets are computed exactly on the structured fields the team
edits (normalised text: case, punctuation and spacing do not count); free-text sentences are
for people and for an LLM judge, not for this score.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from collabrl.envs.analysis.tasks import Hypothesis

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
    """F1 of two variable lists, compared as sets of normalised names."""
    mine = {normalise(v) for v in submitted if normalise(v)}
    theirs = {normalise(v) for v in gold if normalise(v)}
    common = len(mine & theirs)
    if not common:
        return 0.0
    precision, recall = common / len(mine), common / len(theirs)
    return 2 * precision * recall / (precision + recall)


def score_hypothesis(submitted: Hypothesis, gold: Hypothesis) -> Facets:
    """The facets of ``submitted`` against ``gold`` and their product."""
    context = float(normalise(submitted.context) == normalise(gold.context))
    variables = variables_f1(submitted.variables, gold.variables)
    relation = float(normalise(submitted.relation) == normalise(gold.relation))
    return Facets(context, variables, relation, round(context * variables * relation, 6))
