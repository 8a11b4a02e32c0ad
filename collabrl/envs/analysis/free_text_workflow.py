"""What a free-text reference workflow names, read so the rule-based trace judge can judge by it.

Why: most real DiscoveryBench tasks give their reference workflow as free text (the benchmark's
workflow tags, "time series analysis, data cleaning, data visualization", or a prose
description), not as steps of the analysis language, so a notebook cannot be matched to it step
by step as a derived workflow is (:mod:`collabrl.envs.analysis.real_workflows`). What such a text
does name is the *kinds of analysis* the discovery needed, and the task (its query, its gold)
names the *variables* they were needed on. So each kind of analysis the text names that the
analysis language can do becomes one node of the workflow, judged by the operations that do that
kind (:data:`KINDS`) on the columns the task names (:func:`task_columns`). A kind the language has
no operation for (data integration, pollen modelling: DiscoveryBench's other archaeology tags)
is left out rather than counted as missing, for no episode could cover
it; a text that names no kind the language can do stays unreadable by rules (only an LLM judge
reads it).

Kinds are found by their phrases in the lower-cased text, in order of first mention; the phrases
are the benchmark's tag words and the plain words a prose workflow uses for the same work.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from collabrl.envs.analysis.real_workflows import KEY, content_words
from collabrl.envs.analysis.schema import AnalysisTask, Table


@dataclass(frozen=True)
class Kind:
    """A kind of analysis a free-text workflow can name, and the operations that do it."""

    name: str
    phrases: tuple[str, ...]  # regular expressions, matched in the lower-cased text
    operations: frozenset[str]
    answers: bool  # its operations give the scalar a hypothesis states (extrema, corr, ...)


KINDS = (
    Kind("time series analysis", (r"time[- ]series", r"\btrend"),
         frozenset({"sort", "diff", "rolling", "extrema", "event", "plateau", "trend", "level"}),
         answers=True),
    Kind("correlation analysis", (r"correlat",), frozenset({"corr"}), answers=True),
    Kind("dimensionality reduction",
         (r"dimensionality reduction", r"principal component", r"\bpca\b"),
         frozenset({"pca", "loadings", "sign"}), answers=True),
    Kind("data cleaning", (r"data cleaning", r"\bclean", r"\bfilter"),
         frozenset({"filter", "among", "select"}), answers=False),
    Kind("feature engineering", (r"feature engineering", r"\bbinn", r"smooth"),
         frozenset({"bin", "diff", "rolling", "group"}), answers=False),
    Kind("aggregation", (r"aggregat", r"\bgroup(ed|ing)? by\b", r"\baverag"),
         frozenset({"group"}), answers=False),
    Kind("data visualization", (r"visuali[sz]", r"\bplot"),
         frozenset({"show", "select"}), answers=False),
)  # fmt: skip
"""The kinds of analysis the language can do: what a text that names them asks a notebook for
(a visualisation, in a text notebook, is looking at the rows: ``show``, ``select``)."""


def named_kinds(text: str) -> list[Kind]:
    """The kinds of :data:`KINDS` that ``text`` names, in order of first mention."""
    lowered = text.lower()
    found = []
    for kind in KINDS:
        starts = [m.start() for p in kind.phrases for m in re.finditer(p, lowered)]
        if starts:
            found.append((min(starts), kind))
    return [kind for _, kind in sorted(found, key=lambda pair: pair[0])]


def task_columns(task: AnalysisTask) -> frozenset[str]:
    """The columns the task names: in its query, its gold relation and its gold variables."""
    text = " ".join([task.query, task.gold.relation, *task.gold.variables])
    return named_columns(text, task.tables)


def named_columns(text: str, tables: Sequence[Table]) -> frozenset[str]:
    """The columns ``text`` names: those (the time key aside) whose description or name shares a
    content word with it."""
    asked = set(content_words(text))
    return frozenset(
        column.name
        for table in tables
        for column in table.columns
        if column.name != KEY and asked & set(content_words(f"{column.description} {column.name}"))
    )


def holding(columns: frozenset[str], tables: Sequence[Table]) -> frozenset[str]:
    """The tables that hold one of ``columns``."""
    return frozenset(t.name for t in tables if any(c.name in columns for c in t.columns))
