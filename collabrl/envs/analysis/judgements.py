"""The records of the team-structures study's trace judgements and the rules that aggregate them.

Why here, in the game's own layer: the judgements come in two variants that must read alike,
the rule-based one (:mod:`collabrl.envs.analysis.workflow`, beside this module in the game)
and the LLM judge (:mod:`collabrl.rewards.judges.trace`, a layer above the game's), so the
records both return and the aggregation both apply live below both of them. Tables, results files and
viewers then take either variant, and a score means the same under both:

- **Workflow Coverage**: the mean of the node credits (satisfied 1, partial 0.5, missing 0);
- **Hypothesis Support**: the mean of its parts (relation, scope, evidence), 0 with every part 0
  when nothing was submitted;
- **Profile Alignment**: the mean over the D/R collaborators that have a score; None without a
  D or R collaborator at the table, or when none of them has one.

Scores are rounded to six decimals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from collabrl.envs.analysis.expertise import PROFILES

Label = Literal["satisfied", "partial", "missing"]
SCORES: dict[Label, float] = {"satisfied": 1.0, "partial": 0.5, "missing": 0.0}
LABELS: dict[float, Label] = {v: k for k, v in SCORES.items()}
Part = Literal["relation", "scope", "evidence"]
PARTS: tuple[Part, ...] = ("relation", "scope", "evidence")
NOTHING_SUBMITTED = "nothing submitted"
SCORE_KEYS = ("workflow_coverage", "hypothesis_support", "profile_alignment")
"""The three scores' names, as evaluation tables take them (:meth:`TraceJudgement.as_dict`)."""


@dataclass(frozen=True)
class NodeLabel:
    """One reference node's label: which cell earned it and why."""

    node: int
    step: str
    label: Label
    cell: int | None  # index in the notebook of the cell that earned the label
    reason: str

    @property
    def score(self) -> float:
        return SCORES[self.label]


@dataclass(frozen=True)
class WorkflowCoverage:
    score: float
    nodes: tuple[NodeLabel, ...]


@dataclass(frozen=True)
class SupportPart:
    part: Part
    score: float
    reason: str


@dataclass(frozen=True)
class HypothesisSupport:
    score: float
    submitted: bool
    parts: tuple[SupportPart, ...]


@dataclass(frozen=True)
class Contribution:
    """One typed contribution of a collaborator and the profiles it fits."""

    tick: int
    what: str
    fits: tuple[str, ...]


@dataclass(frozen=True)
class TrapNeed:
    """Whether a trap of the collaborator's profile was covered in time."""

    kind: str
    note: str
    node: int
    met: bool
    reason: str


@dataclass(frozen=True)
class CollaboratorAlignment:
    """One D/R collaborator's alignment. The rules fill the parts and the records they count;
    an LLM judge gives the score and its reason only (parts None, no records)."""

    seat: str
    profile: str
    score: float | None  # None: nothing to judge (no typed contribution, no trap of the profile)
    profile_match: float | None
    needs_met: float | None
    contributions: tuple[Contribution, ...]
    needs: tuple[TrapNeed, ...]
    reason: str = ""


@dataclass(frozen=True)
class ProfileAlignment:
    score: float | None
    collaborators: tuple[CollaboratorAlignment, ...]


@dataclass(frozen=True)
class TraceJudgement:
    coverage: WorkflowCoverage
    support: HypothesisSupport
    alignment: ProfileAlignment | None  # None: no profiled collaborator at the table

    def as_dict(self) -> dict[str, float | None]:
        """The three scores, as evaluation tables take them (:data:`SCORE_KEYS`)."""
        alignment = self.alignment.score if self.alignment else None
        scores = (self.coverage.score, self.support.score, alignment)
        return dict(zip(SCORE_KEYS, scores, strict=True))

    def labels(self) -> dict[str, Any]:
        """Every record, as plain data (for results files and viewers)."""
        alignment = asdict(self.alignment) if self.alignment else None
        records = (asdict(self.coverage), asdict(self.support), alignment)
        return dict(zip(SCORE_KEYS, records, strict=True))


# ------------------------------------------------------------------------------ aggregation
def mean_score(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None, to six decimals; None when none is."""
    defined = [v for v in values if v is not None]
    return round(sum(defined) / len(defined), 6) if defined else None


def coverage_of(nodes: Sequence[NodeLabel]) -> WorkflowCoverage:
    """C_wf: the mean of the nodes' credits."""
    score = mean_score(n.score for n in nodes)
    if score is None:
        raise ValueError("a workflow has at least one node to label")
    return WorkflowCoverage(score, tuple(nodes))


def support_of(parts: Sequence[SupportPart] | None) -> HypothesisSupport:
    """S_hyp: the mean of the parts; ``None`` parts: nothing was submitted (0, every part 0)."""
    if parts is None:
        unsubmitted = tuple(SupportPart(p, 0.0, NOTHING_SUBMITTED) for p in PARTS)
        return HypothesisSupport(0.0, False, unsubmitted)
    if sorted(p.part for p in parts) != sorted(PARTS):
        raise ValueError(f"hypothesis support needs the parts {', '.join(PARTS)}, one each")
    score = mean_score(p.score for p in parts)
    assert score is not None
    return HypothesisSupport(score, True, tuple(parts))


def profiled_seats(roles: Mapping[str, str]) -> list[tuple[str, str]]:
    """(seat, profile) of the D/R collaborators at the table (a summary's ``roles``), seat order."""
    return [(seat, role) for seat, role in roles.items() if role in PROFILES]


def alignment_of(collaborators: Sequence[CollaboratorAlignment]) -> ProfileAlignment | None:
    """A_profile: the mean over the collaborators that have a score; None without any
    collaborator (the agent alone, or a team composed by role)."""
    if not collaborators:
        return None
    return ProfileAlignment(mean_score(c.score for c in collaborators), tuple(collaborators))
