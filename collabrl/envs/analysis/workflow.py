"""The team-structures study's three trace judgements of an analysis episode, rule-based.

Why: the outcome score says whether the submitted hypothesis is right; these say how the trace
got there (the study's section 4.6), so a team that guessed right and a team that analysed its
way there differ. Each judgement reads only the game's summary (``notebook``, ``trace``,
``hypothesis``, ``roles``, ``gate_requests``) and the task's public record (its reference workflow
with alternatives, traps, notes, gold hypothesis), and returns a score in [0, 1] with one labelled
record per item and the reason for its label. The LLM-judge variant (the study's judges:
:mod:`collabrl.rewards.judges.trace`, ``eval.trace_judge=llm``) returns the same records
(:class:`NodeLabel`, :class:`SupportPart`, :class:`CollaboratorAlignment`, kept with the
aggregation rules both apply in :mod:`collabrl.envs.analysis.judgements`) from the same inputs,
so tables and viewers take either.

**Reading the notebook.** A step is read as its operation and arguments, up to spacing, quote
style, number spelling (``6`` = ``6.0``), the result's name and the two spellings of an event's
condition. Result names (``r1``) differ between runs, so a step's table argument is read by
lineage: a task table by its name, an earlier result as *the workflow node its cell was matched
to* (the node where that cell's label is highest); a filter's result reads as the filter's own
input, since a filter changes the scope (judged at its node and by Hypothesis Support), not what
the steps after it compute. A pandas cell is not read (it matches nothing). The reference
workflow is run once per task (cached) for each node's value.

**A free-text workflow** (DiscoveryBench's) is read by what it names
(:mod:`collabrl.envs.analysis.free_text_workflow`): one node per kind of analysis it names that the
language can do, on the columns the task names (its query, gold relation and variables). Such a
node is satisfied by an error-free cell of one of the kind's operations that reads one of those
columns (or shows or counts a table holding one), partial for such a cell on other columns or one
that failed, else missing. Hypothesis Support's relation needs, on the answer cell's path, the
kinds that give a stated value (time series, correlation); where the relation states no value (a
direction, a co-occurrence), its answer cells are the cells of such a kind that read a column the
relation names. Scope does not count a filter as beyond the context (the text does not say which
filters the context needs). A text that names no such kind is an :class:`UnreadableWorkflow`, for
only an LLM judge can read it.

**Workflow Coverage** C_wf: each node of the task's workflow gets the best label over the notebook's
cells, and C_wf is the mean over nodes (1, 0.5, 0). A node's alternatives are equally acceptable
paths, so the best label over them is the node's; nodes are labelled one by one (an upstream
mistake costs its own node, not every node after it; Hypothesis Support judges the result).

- satisfied (1): an error-free cell that is the node's step or an alternative (read as above), or
  one with the node's operation whose scalar value equals the reference value at that node.
- partial (0.5): the node's step or an alternative that failed (result names not compared); a
  trap's naive step at that node (a semantic slip such as the second event for the first, a
  smoothed column, a missing filter); or the node's operation on the same source table with a
  column of the same family (one name is the other's prefix at an ``_``: ``nap_pct`` and
  ``nap_pct_smooth``) and other arguments (the step on the unfiltered table, another bin width).
- missing (0): no cell like it.

**Hypothesis Support** S_hyp: the mean of three parts, 0 when nothing was submitted. The *answer
cell* is an error-free cell whose scalar value the submitted relation states: the text in the
``{value}`` slot of the task's relation template (normalised as the scorer does; a number matches
at the precision written), or, for a relation worded otherwise, a value appearing in it. Its
*path* is the cell and the cells that produced its inputs, back to the tables.

- relation (0/1): some answer cell's path satisfies every non-filter node (the workflow's final
  node included; of a free-text workflow, every kind that gives a stated value): the stated value
  is what an acceptable analysis computed.
- scope (0/1): the submitted context is the gold one (normalised) and the analysis applied just
  those filters: every ``filter`` node is satisfied on the answer cell's path (on the notebook
  when there is no answer cell) and the path holds no filter the workflow lacks.
- evidence (0..1): the share of the named variables that are columns error-free steps read (the
  columns they name; every column of the table for ``count`` and ``show``, which read whole rows).

**Profile Alignment** A_profile (None without a D or R collaborator, the profiles of
:mod:`collabrl.envs.analysis.expertise`): per collaborator the mean of whichever of two parts is
defined, then the mean over the collaborators that have one (None when none has: a collaborator
with no typed contribution and no trap of its profile gives nothing to judge):

- profile match: the share of the collaborator's typed contributions that fit its profile, however
  many there are. D: runs (data work), gate decisions on runs, the notes of data-side traps
  (smoothed column, required filter, unit or bin); R: relation and sentence edits and the gate
  decisions on them (review), the notes of semantic traps (first or second event, peak or
  plateau, BCE order); both: context and variables edits, the submission, and the decisions on
  them. A note counts where its normalised text appears in a message or board entry
  (as the reference lead hears notes); other talk, waits, requests and gate assignments are
  untyped (an LLM judge reads free text better: that is what its variant is for).
- workflow needs: the share of this task's traps of the profile whose need was met: the trap's
  note surfaced by the collaborator before any other seat first attempted the trap's node (its
  first cell labelled above missing there), or the collaborator's own first attempt satisfied it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from collabrl.envs.analysis.expertise import PROFILES, note_profiles, trap_profile
from collabrl.envs.analysis.free_text_workflow import (
    holding,
    named_columns,
    named_kinds,
    task_columns,
)
from collabrl.envs.analysis.judgements import (
    LABELS,
    SCORE_KEYS,
    SCORES,
    CollaboratorAlignment,
    Contribution,
    HypothesisSupport,
    Label,
    NodeLabel,
    ProfileAlignment,
    SupportPart,
    TraceJudgement,
    TrapNeed,
    WorkflowCoverage,
    alignment_of,
    coverage_of,
    mean_score,
    profiled_seats,
    support_of,
)
from collabrl.envs.analysis.language import Value, Workspace
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask, frames, get_task

__all__ = [  # the records live in the games layer (the LLM judge returns them too)
    "LABELS",
    "SCORES",
    "SCORE_KEYS",
    "CollaboratorAlignment",
    "Contribution",
    "HypothesisSupport",
    "Label",
    "NodeLabel",
    "ProfileAlignment",
    "SupportPart",
    "TraceJudgement",
    "TrapNeed",
    "UnreadableWorkflow",
    "WorkflowCoverage",
    "hypothesis_support",
    "judge_trace",
    "profile_alignment",
    "trace_judgements",
    "workflow_coverage",
]

OPTION_WORDS = frozenset({"asc", "desc", "max", "min", "mean", "sum", "count"})
FILTER = "filter"
WHOLE_TABLE = ("count", "show")  # steps that read every column of their table
WORK_FITS: dict[str, tuple[str, ...]] = {  # a run fits D; the hypothesis work by its target
    "edit:relation": ("R",),
    "edit:sentence": ("R",),
    "edit:context": ("D", "R"),
    "edit:variables": ("D", "R"),
    "submit": ("D", "R"),
}
EDIT_ACTION = re.compile(r"edit_(\w+)\(")
_TOKEN = re.compile(
    r"""[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[^\W\d]\w*|"[^"]*"|'[^']*'|[=!<>]=|[<>(),=]|\S"""
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")

Ref = tuple[Any, ...]  # how a step's table argument reads: ("table", t), ("node", k), ("result",)
Form = tuple[str, Ref, tuple[tuple[str, Any], ...]]  # (operation, table, the other arguments)


# ------------------------------------------------------------------------------ steps
@dataclass(frozen=True)
class _Step:
    name: str | None  # the result's name, if kept
    op: str
    table: str
    args: tuple[tuple[str, Any], ...]

    @property
    def columns(self) -> frozenset[str]:
        return frozenset(v for k, v in self.args if k == "name" and v not in OPTION_WORDS)


def _parse(text: str) -> _Step | None:
    """``[name =] op(T, ...)`` as tokens (commas dropped, so ``c > 1`` reads as ``c, >, 1``);
    None when it is not a step of that shape."""
    tokens = _TOKEN.findall(text)
    name = None
    if len(tokens) > 2 and tokens[1] == "=" and tokens[0].isidentifier():
        name, tokens = tokens[0], tokens[2:]
    if len(tokens) < 4 or not tokens[0].isidentifier() or tokens[1] != "(" or tokens[-1] != ")":
        return None
    inner = [t for t in tokens[2:-1] if t != ","]
    if not inner or not inner[0].isidentifier():
        return None
    return _Step(name, tokens[0], inner[0], tuple(_token(t) for t in inner[1:]))


def _token(text: str) -> tuple[str, Any]:
    if _NUMBER.fullmatch(text):
        return ("num", float(text))
    if text[0] in "\"'":
        return ("str", text[1:-1])
    return ("name" if text.isidentifier() else "sym", text)


def _family(a: str, b: str) -> bool:
    """Columns of one family: equal, or one the other's prefix at an ``_`` (``x`` and
    ``x_smooth``, ``decorated`` and ``decorated_per100``)."""
    return a == b or a.startswith(b + "_") or b.startswith(a + "_")


def _same_value(a: Value, b: Value) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


# ------------------------------------------------------------------------------ the reference
@dataclass(frozen=True)
class _Node:
    step: str
    op: str
    forms: tuple[Form, ...]  # the step, then its alternatives
    loose: frozenset[Form]  # the same with result names not compared
    naive: tuple[tuple[str, Form], ...]  # (trap kind, its naive step) at this node
    root: str  # the task table the node's data comes from ("" for a kind of analysis)
    columns: frozenset[str]
    value: Value  # the reference value here (None: a table)
    answers: bool  # the stated value must come through this node (Hypothesis Support's relation)
    kind: tuple[frozenset[str], frozenset[str]] | None = None
    """A free-text workflow's kind of analysis: (its operations, the tables holding the columns
    the task names); None for a step."""


class UnreadableWorkflow(ValueError):
    """A task whose reference workflow is not in the analysis language (DiscoveryBench's free
    text): the rule-based judgements cannot read its traces."""


@dataclass(frozen=True)
class _Reference:
    task: AnalysisTask
    nodes: tuple[_Node, ...]

    @property
    def free_text(self) -> bool:
        return any(n.kind is not None for n in self.nodes)


@cache
def _reference(task_name: str) -> _Reference:
    """The task's workflow read as forms, with each node's value from one reference run
    (the only pandas use: once per task); a free-text workflow read by the kinds of analysis it
    names (:func:`_free_text_reference`)."""
    task = get_task(task_name)
    if all(_parse(step.step) is None for step in task.workflow):
        return _free_text_reference(task)
    workspace = Workspace(frames(task))
    tables = {t.name for t in task.tables}
    reads: dict[str, Ref] = {}  # result name -> how a later step's table argument reads it
    roots: dict[str, str] = {}  # result name -> the task table its data comes from
    nodes = []
    for index, step in enumerate(task.workflow):
        main = _parse(step.step)
        outcome = workspace.run(step.step)
        if main is None or outcome.error is not None:
            raise UnreadableWorkflow(
                f"analysis task {task_name!r}: workflow step {index} is not a step of the "
                "analysis language, so the rule-based judgements cannot read its traces"
            )
        parsed = [main, *(p for p in map(_parse, step.alternatives) if p is not None)]
        naive = [(trap.kind, _parse(trap.naive_step)) for trap in task.traps if trap.at == index]
        ref = _ref_of(main.table, tables, reads)
        nodes.append(
            _Node(
                step=step.step,
                op=main.op,
                forms=tuple(_form(p, _ref_of(p.table, tables, reads)) for p in parsed),
                loose=frozenset(_form(p, _loose(p.table, tables)) for p in parsed),
                naive=tuple(
                    (kind, _form(p, _ref_of(p.table, tables, reads)))
                    for kind, p in naive
                    if p is not None
                ),
                root=roots.get(main.table, main.table),
                columns=main.columns,
                value=outcome.value,
                answers=main.op != FILTER,
            )
        )
        if main.name:
            reads[main.name] = ref if main.op == FILTER else ("node", index)
            roots[main.name] = roots.get(main.table, main.table)
    return _Reference(task, tuple(nodes))


def _free_text_reference(task: AnalysisTask) -> _Reference:
    """One node per kind of analysis the free-text workflow names that the language can do."""
    text = " ".join(f"{s.step} {s.why} {' '.join(s.alternatives)}" for s in task.workflow)
    kinds = named_kinds(text)
    if not kinds:
        raise UnreadableWorkflow(
            f"analysis task {task.name!r}: its free-text workflow names no kind of analysis the "
            "analysis language can do, so the rule-based judgements cannot read its traces"
        )
    columns = task_columns(task)
    tables = holding(columns, task.tables)
    nodes = (
        _Node(step=k.name, op=k.name, forms=(), loose=frozenset(), naive=(), root="",
              columns=columns, value=None, answers=k.answers, kind=(k.operations, tables))
        for k in kinds
    )  # fmt: skip
    return _Reference(task, tuple(nodes))


def _ref_of(table: str, tables: set[str], reads: Mapping[str, Ref]) -> Ref:
    if table in tables:
        return ("table", table)
    return reads.get(table, ("unknown",))


def _loose(table: str, tables: set[str]) -> Ref:
    return ("table", table) if table in tables else ("result",)


def _form(step: _Step, ref: Ref) -> Form:
    return (step.op, ref, step.args)


# ------------------------------------------------------------------------------ the notebook
@dataclass(frozen=True)
class _Cell:
    index: int
    tick: int
    seat: str
    text: str  # the step as run
    step: _Step | None  # None: not a step of the language's shape (a pandas cell)
    ok: bool  # ran without error
    value: Value
    producer: int | None  # the cell whose result is this step's table
    root: str | None  # the task table its data comes from (None: unknown)
    labels: tuple[tuple[float, str], ...]  # per node: (score, reason); () when not a step
    reads: Ref  # how a later step's table argument reads this cell's result


@dataclass(frozen=True)
class _Reading:
    reference: _Reference
    cells: tuple[_Cell, ...]

    def path(self, cell: _Cell) -> list[_Cell]:
        """The cell and the cells that produced its inputs, back to the task's tables."""
        chain = [cell]
        while chain[-1].producer is not None:
            chain.append(self.cells[chain[-1].producer])
        return chain


def _read(summary: Mapping[str, Any]) -> _Reading:
    """Every notebook cell parsed, its input resolved by lineage and labelled at every node."""
    reference = _reference(summary["task"])
    tables = {t.name for t in reference.task.tables}
    names: dict[str, int] = {}  # result name -> the cell that last made it
    cells: list[_Cell] = []
    for index, raw in enumerate(summary.get("notebook") or []):
        step, ok, value = _parse(raw["step"]), raw.get("error") is None, raw.get("value")
        producer = root = None
        ref: Ref = ("unknown",)
        labels: tuple[tuple[float, str], ...] = ()
        if step is not None:
            if step.table in tables:
                ref, root = ("table", step.table), step.table
            elif step.table in names:
                producer = names[step.table]
                ref, root = cells[producer].reads, cells[producer].root
            strict, loose = _form(step, ref), _form(step, _loose(step.table, tables))
            labels = tuple(
                _label(node, step, strict, loose, root, ok, value) for node in reference.nodes
            )
        node = _matched(labels)
        reads: Ref = ("result",) if node is None else ("node", node)
        if node is not None and reference.nodes[node].op == FILTER:
            reads = ref  # a filter changes the scope, not what later steps compute on
        cells.append(
            _Cell(
                index=index,
                tick=raw["tick"],
                seat=raw["seat"],
                text=raw["step"],
                step=step,
                ok=ok,
                value=value,
                producer=producer,
                root=root,
                labels=labels,
                reads=reads,
            )
        )
        if step is not None and ok and step.name:
            names[step.name] = index
    return _Reading(reference, tuple(cells))


def _matched(labels: Sequence[tuple[float, str]]) -> int | None:
    """The node a cell is matched to: its best label's (the first of equals), None if none."""
    scores = [score for score, _ in labels]
    best = max(scores, default=0.0)
    return scores.index(best) if best > 0 else None


def _label(
    node: _Node, step: _Step, strict: Form, loose: Form, root: str | None, ok: bool, value: Value
) -> tuple[float, str]:
    """One cell against one node: (1, 0.5 or 0, why); see the module docstring."""
    if node.kind is not None:
        return _kind_label(node.kind, node.columns, step, root, ok)
    if ok and strict in node.forms:
        return 1.0, "the node's step" if strict == node.forms[0] else "an alternative step"
    same_op = step.op == node.op
    scalar = value is not None and node.value is not None
    if ok and same_op and scalar and _same_value(value, node.value):
        return 1.0, f"the node's operation with the reference value {value}"
    if not ok and loose in node.loose:
        return 0.5, "the node's step, but it failed"
    for kind, naive in node.naive:
        if strict == naive:
            return 0.5, f"the naive step of the {kind} trap"
    family = any(_family(a, b) for a in step.columns for b in node.columns)
    if same_op and root == node.root and family:
        return 0.5, "the node's operation on the same table, other arguments"
    return 0.0, ""


def _kind_label(
    kind: tuple[frozenset[str], frozenset[str]],
    columns: frozenset[str],
    step: _Step,
    root: str | None,
    ok: bool,
) -> tuple[float, str]:
    """One cell against a free-text workflow's kind of analysis (see the module docstring)."""
    operations, holding = kind
    if step.op not in operations:
        return 0.0, ""
    if not ok:
        return 0.5, "an operation of this kind, but it failed"
    reads = step.columns & columns or (step.op in WHOLE_TABLE and root in holding)
    if reads:
        return 1.0, "an operation of this kind on a column the task names"
    return 0.5, "an operation of this kind on other columns"


# ------------------------------------------------------------------------------ coverage
def _coverage(reading: _Reading) -> WorkflowCoverage:
    labels = []
    for k, node in enumerate(reading.reference.nodes):
        best = max(
            (c for c in reading.cells if c.labels), key=lambda c: c.labels[k][0], default=None
        )
        if best is None or best.labels[k][0] == 0:
            labels.append(NodeLabel(k, node.step, "missing", None, "no cell like it"))
            continue
        score, why = best.labels[k]
        reason = f"cell {best.index} ({best.text}): {why}"
        labels.append(NodeLabel(k, node.step, LABELS[score], best.index, reason))
    return coverage_of(labels)


# ------------------------------------------------------------------------------ support
def _support(summary: Mapping[str, Any], reading: _Reading) -> HypothesisSupport:
    hypothesis = summary.get("hypothesis")
    if not hypothesis:
        return support_of(None)
    task, nodes = reading.reference.task, reading.reference.nodes
    relation_text = hypothesis.get("relation") or ""
    answers = _answer_cells(reading, relation_text, task.relation_template)
    stated = bool(answers) or not reading.reference.free_text
    if not stated:
        answers = _claim_cells(reading, relation_text)
    source = "its value comes from" if stated else "what it claims rests on"
    needed = [k for k, n in enumerate(nodes) if n.answers]
    best, missed = None, needed
    for cell in reversed(answers):  # the latest supporting cell, else the one missing least
        gaps = [k for k in needed if not _covers(reading.path(cell), k)]
        if best is None or len(gaps) < len(missed):
            best, missed = cell, gaps
    if best is None:
        what = "the value it states" if stated else "a result on the columns it names"
        relation = SupportPart("relation", 0.0, f"no error-free cell produced {what}")
    elif missed:
        where = ", ".join(nodes[k].step for k in missed)
        relation = SupportPart(
            "relation", 0.0, f"{source} cell {best.index}, whose path misses {where}"
        )
    else:
        relation = SupportPart(
            "relation", 1.0, f"{source} cell {best.index}, on an acceptable path"
        )
    return support_of(
        (
            relation,
            _scope(hypothesis.get("context") or "", task, reading, best),
            _evidence(hypothesis.get("variables") or "", reading),
        )
    )


def _answer_cells(reading: _Reading, relation: str, template: str) -> list[_Cell]:
    """Error-free scalar cells whose value the relation states (see the module docstring)."""
    stated = _slot(relation, template)
    text = f" {normalise(relation)} "

    def states(value: Value) -> bool:
        if stated is not None:
            return _states(stated, value)
        return any(f" {t} " in text for t in _spellings(value))

    return [c for c in reading.cells if c.ok and c.value is not None and states(c.value)]


def _claim_cells(reading: _Reading, relation: str) -> list[_Cell]:
    """A free-text workflow's relation that states no value (a direction, a co-occurrence): the
    error-free cells of a kind that gives a stated value which read a column the relation names."""
    columns = named_columns(relation, reading.reference.task.tables)
    operations = {op for n in reading.reference.nodes if n.answers and n.kind for op in n.kind[0]}
    return [
        c
        for c in reading.cells
        if c.ok and c.step is not None and c.step.op in operations and c.step.columns & columns
    ]


def _slot(relation: str, template: str) -> str | None:
    """The normalised text filling the template's ``{value}``; None when the relation is not
    worded as the template."""
    if "{value}" not in template:
        return None
    before, _, after = template.partition("{value}")
    text, head, tail = normalise(relation), normalise(before), normalise(after)
    if head:
        if not text.startswith(head + " "):
            return None
        text = text[len(head) + 1 :]
    if tail:
        if not text.endswith(" " + tail):
            return None
        text = text[: -len(tail) - 1]
    return text or None


def _states(stated: str, value: Value) -> bool:
    """Whether ``stated`` (normalised) is ``value``; a number at the precision written."""
    if isinstance(value, (int, float)) and _NUMBER.fullmatch(stated):
        decimals = len(stated.partition(".")[2])
        return math.isclose(round(abs(value), decimals), float(stated), abs_tol=1e-9)
    return normalise(str(value)) == stated


def _spellings(value: Value) -> set[str]:
    out = {normalise(str(value))}
    if isinstance(value, float) and value.is_integer():
        out.add(str(int(abs(value))))
    return out


def _covers(cells: Sequence[_Cell], node: int) -> bool:
    """Whether one of ``cells`` satisfies ``node``."""
    return any(c.labels and c.labels[node][0] == 1.0 for c in cells)


def _scope(
    context: str, task: AnalysisTask, reading: _Reading, answer: _Cell | None
) -> SupportPart:
    if normalise(context) != normalise(task.gold.context):
        return SupportPart("scope", 0.0, f"the context is not the task's ({task.gold.context})")
    nodes = reading.reference.nodes
    filters = [k for k, n in enumerate(nodes) if n.op == FILTER]
    cells = reading.path(answer) if answer is not None else list(reading.cells)
    unapplied = [nodes[k].step for k in filters if not _covers(cells, k)]
    if unapplied:
        return SupportPart("scope", 0.0, f"filter(s) not applied: {', '.join(unapplied)}")
    if answer is not None and not reading.reference.free_text:
        extra = [
            c.index
            for c in cells
            if c.step is not None
            and c.step.op == FILTER
            and not any(c.labels[k][0] == 1.0 for k in filters)
        ]
        if extra:
            return SupportPart("scope", 0.0, f"cell(s) {extra} filter beyond the stated context")
    return SupportPart("scope", 1.0, "the context is the task's and its filters were applied")


def _evidence(variables: str, reading: _Reading) -> SupportPart:
    named = [v.strip() for v in variables.split(",") if v.strip()]
    if not named:
        return SupportPart("evidence", 0.0, "no variables named")
    columns = {t.name: [c.name for c in t.columns] for t in reading.reference.task.tables}
    used: set[str] = set()
    for cell in reading.cells:
        if cell.ok and cell.step is not None:
            used |= cell.step.columns
            if cell.step.op in WHOLE_TABLE and cell.root is not None:
                used |= set(columns[cell.root])
    grounded = {normalise(c) for c in used}
    ungrounded = [v for v in named if normalise(v) not in grounded]
    score = (len(named) - len(ungrounded)) / len(named)
    reason = f"not in any step run: {', '.join(ungrounded)}" if ungrounded else "all in steps run"
    return SupportPart("evidence", round(score, 6), reason)


# ------------------------------------------------------------------------------ alignment
def _alignment(summary: Mapping[str, Any], reading: _Reading) -> ProfileAlignment | None:
    seats = profiled_seats(summary.get("roles") or {})
    return alignment_of([_collaborator(summary, reading, seat, role) for seat, role in seats])


def _collaborator(
    summary: Mapping[str, Any], reading: _Reading, seat: str, profile: str
) -> CollaboratorAlignment:
    task = reading.reference.task
    owners = note_profiles(task)
    notes = [(n.id, normalise(n.text), owners[n.id]) for n in task.notes]
    gated = {str(r["id"]): _gated(r) for r in summary.get("gate_requests") or []}
    contributions: list[Contribution] = []
    said: dict[str, int] = {}  # note id -> the first tick this seat said it
    for event in summary.get("trace") or []:
        if event["seat"] != seat:
            continue
        kind, target, tick = event["kind"], event.get("target") or "", event["tick"]
        if kind == "work" and target.startswith("run:"):
            contributions.append(Contribution(tick, target, ("D",)))
        elif kind == "work" and target in WORK_FITS:
            contributions.append(Contribution(tick, target, WORK_FITS[target]))
        elif kind in ("approve", "deny"):
            what = gated.get(target, "submit")
            contributions.append(Contribution(tick, f"{kind} {what}", _fits(what)))
        elif kind in ("message", "board"):
            heard = normalise(event.get("text") or "")
            for note, text, owner in notes:
                if owner in PROFILES and text in heard:
                    contributions.append(Contribution(tick, f"{kind}:{note}", (owner,)))
                    said.setdefault(note, tick)
    needs = tuple(
        _need(reading, seat, trap.kind, trap.note, trap.at, said.get(trap.note))
        for trap in task.traps
        if trap_profile(trap.kind) == profile
    )
    match = mean_score(float(profile in c.fits) for c in contributions)
    met = mean_score(float(n.met) for n in needs)
    on, kept = sum(profile in c.fits for c in contributions), sum(n.met for n in needs)
    reason = (
        f"{on} of {len(contributions)} typed contributions fit {profile}; "
        f"{kept} of {len(needs)} needs of its traps met"
    )
    return CollaboratorAlignment(
        seat, profile, mean_score((match, met)), match, met, tuple(contributions), needs, reason
    )


def _gated(request: Mapping[str, Any]) -> str:
    """What a gate request was for: ``run``, ``submit`` or ``edit:<field>``."""
    edit = EDIT_ACTION.match(request.get("action") or "")
    return f"edit:{edit.group(1)}" if request["kind"] == "edit" and edit else request["kind"]


def _fits(gated: str) -> tuple[str, ...]:
    """The profiles a gate decision on ``gated`` fits: on a run it is a data check, on an edit or
    the submission it fits as that work does (an edit of no readable field is review, R's)."""
    return ("D",) if gated == "run" else WORK_FITS.get(gated, ("R",))


def _need(
    reading: _Reading, seat: str, kind: str, note: str, node: int, said: int | None
) -> TrapNeed:
    attempts = [c for c in reading.cells if c.labels and c.labels[node][0] > 0]
    first = attempts[0] if attempts else None
    if first is not None and first.seat == seat and first.labels[node][0] == 1.0:
        return TrapNeed(kind, note, node, True, f"took the step itself first (cell {first.index})")
    others = [c for c in attempts if c.seat != seat]
    deadline = others[0].tick if others else None
    if said is None:
        return TrapNeed(kind, note, node, False, f"never surfaced note {note}")
    if deadline is not None and said >= deadline:
        return TrapNeed(
            kind, note, node, False, f"said at tick {said}, after the step at tick {deadline}"
        )
    when = f"before the step at tick {deadline}" if deadline is not None else "(step never run)"
    return TrapNeed(kind, note, node, True, f"said at tick {said} {when}")


# ------------------------------------------------------------------------------ entry points
def workflow_coverage(summary: Mapping[str, Any]) -> WorkflowCoverage:
    """C_wf of an analysis episode's summary."""
    return _coverage(_read(summary))


def hypothesis_support(summary: Mapping[str, Any]) -> HypothesisSupport:
    """S_hyp of an analysis episode's summary."""
    return _support(summary, _read(summary))


def profile_alignment(summary: Mapping[str, Any]) -> ProfileAlignment | None:
    """A_profile of an analysis episode's summary (None without a D or R collaborator)."""
    return _alignment(summary, _read(summary))


def judge_trace(summary: Mapping[str, Any]) -> TraceJudgement:
    """All three judgements of one analysis episode, the notebook read once."""
    reading = _read(summary)
    return TraceJudgement(
        _coverage(reading), _support(summary, reading), _alignment(summary, reading)
    )


def trace_judgements(summary: Mapping[str, Any]) -> dict[str, float | None]:
    """The analysis game's trace judge (``GameSection.trace_judge``): the three scores of
    :meth:`TraceJudgement.as_dict`, each None for a task whose workflow the rules cannot read."""
    try:
        return judge_trace(summary).as_dict()
    except UnreadableWorkflow:
        return dict.fromkeys(SCORE_KEYS)
