"""An LLM judge for hypotheses: the facets of a submission graded against the gold one.

Why: the game's score (:func:`collabrl.envs.analysis.scoring.score_hypothesis`) reads the
structured fields a team edits, so a team that wrote its answer only as a sentence (LLM agents
do) scores 0 whatever it claims. Such a *free-text* submission (a field the gold fills left
empty) goes to an LLM judge that reads all of it, the sentence included, against the gold
hypothesis and grades the same facets: context (0/1), variables (0..1), relation (0/1), whose
product is the hypothesis match score. A *structured* submission goes to the judge too when
asked (``structured=True``: DiscoveryBench's own evaluation judges every hypothesis), else it
keeps the game's score. As with the other LLM judges (:mod:`collabrl.rewards.judges.llm`), every case goes
to one ``Engine.generate`` call (the OpenAI-compatible engine caches, retries and runs them
concurrently), and a failed request or an unusable reply becomes a judgement with ``error`` set:
the exact score stays, never a 0, never an exception.

A game opts in with ``GameSection.hypothesis_gold``, the ``"module:attribute"`` of a function
``task -> object with query (str) and gold (Hypothesis)``; its summaries hold ``hypothesis``
(the submitted fields as text, None when nothing was submitted), ``score``, ``performance`` (the
context facet), ``facets`` and ``success`` (a score of 1.0), which a judgement rewrites.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from collabrl.engines.types import Message
from collabrl.envs.analysis.scoring import Facets
from collabrl.envs.analysis.tasks import Hypothesis
from collabrl.envs.registry import get_game, load_addon
from collabrl.prompt_files import chat
from collabrl.rewards.judges.llm import LLMJudge, _failure
from collabrl.rewards.judges.parsing import (
    _RATIONALE_KEYS,
    JudgeParseError,
    _first,
    _number,
    extract_object,
)
from collabrl.rewards.judges.prompts import load_prompt
from collabrl.rewards.judges.records import verdict_counts

PROMPT = "hypothesis"
STRUCTURED = ("context", "variables", "relation")
"""The fields a submission needs, all non-empty, to be scored exactly."""
SCORE_SOURCE, JUDGEMENT = "score_source", "hypothesis_judgement"
"""Summary keys the judging pass adds: ``"exact"`` or ``"llm"``, and the judgement record."""


@dataclass(frozen=True)
class HypothesisCase:
    """One submission to grade: the query it answers, the gold hypothesis, the submitted fields
    (the editor's text: variables comma-separated)."""

    query: str
    gold: Hypothesis
    submitted: Mapping[str, str]


@dataclass
class HypothesisJudgement:
    """The judge's facets of one submission, or ``facets=None`` with ``error`` on failure."""

    facets: Facets | None
    judge: str
    prompt_version: str
    rationale: str = ""
    error: str | None = None
    raw: str = ""

    @property
    def failed(self) -> bool:
        return self.error is not None


def is_structured(fields: Mapping[str, str], gold: Hypothesis | None = None) -> bool:
    """Whether the game's score can read the submission: every structured field filled that the
    gold fills (all three without a gold; a gold without variables asks for none)."""
    needed = [f for f in STRUCTURED if gold is None or getattr(gold, f)]
    return all(str(fields.get(f) or "").strip() for f in needed)


def _render(fields: Mapping[str, Any]) -> str:
    lines = []
    for name in Hypothesis.model_fields:
        value = fields.get(name)
        text = ", ".join(value) if isinstance(value, list) else str(value or "")
        lines.append(f"- {name}: {text.strip() or '(empty)'}")
    return "\n".join(lines)


def hypothesis_messages(case: HypothesisCase) -> list[Message]:
    """The judge's chat for one submission."""
    return chat(
        load_prompt(PROMPT),
        {
            "query": case.query,
            "gold": _render(case.gold.model_dump()),
            "submitted": _render(case.submitted),
        },
    )


def _facet(obj: dict[str, Any], key: str, *, binary: bool) -> float:
    """A facet's value: 0 or 1 (``true``/``false`` read as such), or a share in [0, 1] when not
    ``binary``; any other value is a failure (another scale would be silently misread)."""
    raw = _first(obj, (key,))
    value = float(raw) if isinstance(raw, bool) else _number(raw)
    if value is None:
        raise JudgeParseError(f"reply has no numeric {key!r} ({raw!r})")
    if binary and value not in (0.0, 1.0):
        raise JudgeParseError(f"{key} {value:g} is not 0 or 1")
    if not 0.0 <= value <= 1.0:
        raise JudgeParseError(f"{key} {value:g} is outside 0..1")
    return value


def parse_facets(text: str) -> tuple[Facets, str]:
    """(facets, rationale) from a hypothesis judge reply; raises :class:`JudgeParseError`."""
    obj = extract_object(text)
    context = _facet(obj, "context", binary=True)
    variables = _facet(obj, "variables", binary=False)
    relation = _facet(obj, "relation", binary=True)
    rationale = str(_first(obj, _RATIONALE_KEYS) or "").strip()
    return Facets(context, variables, relation, round(context * variables * relation, 6)), rationale


def judge_hypotheses(judge: LLMJudge, cases: Sequence[HypothesisCase]) -> list[HypothesisJudgement]:
    """One judgement per case, through ``judge``'s engine and sampling in one ``generate`` call."""
    stamp = load_prompt(PROMPT).stamp
    conversations = [hypothesis_messages(c) for c in cases]
    results = judge.engine.generate(conversations, judge.params) if conversations else []
    out = []
    for result in results:
        verdict = HypothesisJudgement(None, judge.name, stamp, raw=result.text)
        verdict.error = _failure(result)
        if verdict.error is None:
            try:
                verdict.facets, verdict.rationale = parse_facets(result.text)
            except JudgeParseError as exc:
                verdict.error = f"parse: {exc}"
        out.append(verdict)
    return out


def judge_submissions(
    judge: LLMJudge, episodes: Sequence[tuple[str, dict[str, Any]]], *, structured: bool = True
) -> list[HypothesisJudgement | None]:
    """Rescore the written submissions among ``episodes`` ((game, summary) pairs) in place: all
    of them, or only the free-text ones when not ``structured``.

    Every summary of a game with ``hypothesis_gold`` gets ``score_source``: ``"llm"`` where the
    judge's facets replaced ``score``, ``performance``, ``facets`` and ``success``, else
    ``"exact"`` (the game's score: not sent, nothing submitted or written, or a failed judgement,
    which is kept under ``hypothesis_judgement`` with its error like every judgement). Returns
    each episode's judgement (None: not judged)."""
    picked: list[tuple[int, HypothesisCase]] = []
    for n, (game, summary) in enumerate(episodes):
        section = get_game(game)
        if section.hypothesis_gold is None:
            continue
        summary[SCORE_SOURCE] = "exact"
        fields = summary.get("hypothesis")
        if not fields or not any(fields.values()):
            continue
        task = load_addon(section.hypothesis_gold, "hypothesis gold", game)(
            section.task_of(summary)
        )
        if not structured and is_structured(fields, task.gold):
            continue
        picked.append((n, HypothesisCase(task.query, task.gold, fields)))
    verdicts = judge_hypotheses(judge, [case for _, case in picked])
    out: list[HypothesisJudgement | None] = [None] * len(episodes)
    for (n, _), verdict in zip(picked, verdicts, strict=True):
        summary = episodes[n][1]
        summary[JUDGEMENT] = asdict(verdict)
        if verdict.facets is not None:
            facets = verdict.facets
            summary.update(
                score=facets.hms,
                performance=facets.context,
                facets=facets.as_dict(),
                success=facets.hms == 1.0,
            )
            summary[SCORE_SOURCE] = "llm"
        out[n] = verdict
    return out


def judgement_counts(summaries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Submissions judged and failed (by failure kind), with the prompt's stamp: what
    an evaluation's results report beside its window-judge failures."""
    return verdict_counts(summaries, JUDGEMENT, load_prompt(PROMPT).stamp)
