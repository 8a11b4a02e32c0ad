"""An LLM judge of analysis traces: the team-structures study's three trace judgements as the
study makes them (its section 4.6: a judge labels trace events given the session trace, the task
information and the reference workflow graph).

Why beside the rules (:mod:`collabrl.envs.analysis.workflow`): the rules read the analysis language
only, so of a task whose reference workflow is free text (DiscoveryBench's) they judge only the
kinds of analysis it names, not the steps it describes, and they read a message only for a note's
exact words. The model reads both. It returns labels,
never scores: per reference node satisfied/partial/missing with a reason (and the cell that
earned it), the support parts relation (0/1), scope (0/1) and evidence (0..1), and per D/R
collaborator an alignment in [0, 1] (null: nothing to judge) with a reason. The scores come from
the same aggregation as the rules' (:mod:`collabrl.envs.analysis.judgements`: mean node credit,
mean of the parts, 0 when nothing was submitted, mean over collaborators, None without D/R), in
the same records, so tables and viewers take either variant.

Input per episode: the task (query, tables, notes and who holds them, the workflow's nodes with
their alternatives and known mistakes, the gold hypothesis) and the trace as compact text (each
seat's role; notebook cells with seat, tick, value or error; messages, board entries and gate
events with seat and tick; the submission). As with the other LLM judges
(:mod:`collabrl.rewards.judges.llm`), every episode goes to one ``Engine.generate`` call (the
OpenAI-compatible engine caches, retries and runs them concurrently); a failed request or an
unusable reply (no JSON, a node unlabelled or labelled twice, a label or score off its scale, a
collaborator missing) is a verdict with ``error`` set and no scores: never a 0, never raised. A
long trace needs a reply budget to match (``judge.sampling.max_new_tokens``): a reply cut short
is a parse failure.

A game opts in with ``GameSection.trace_task``, the ``"module:attribute"`` of a function
``task name -> AnalysisTask``; its summaries hold ``task``, ``roles``, ``notebook``, ``trace``,
``hypothesis`` (None when nothing was submitted) and optionally ``gate_requests``,
``notes_held``, ``structure``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collabrl.engines.types import Message
from collabrl.envs.analysis.expertise import AGENT, PROFILE_TITLES, note_profiles
from collabrl.envs.analysis.judgements import (
    PARTS,
    SCORE_KEYS,
    CollaboratorAlignment,
    Label,
    NodeLabel,
    SupportPart,
    TraceJudgement,
    alignment_of,
    coverage_of,
    profiled_seats,
    support_of,
)
from collabrl.envs.analysis.tasks import AnalysisTask
from collabrl.envs.registry import get_game, load_addon
from collabrl.prompt_files import chat
from collabrl.rewards.judges.hypothesis import _facet, _render
from collabrl.rewards.judges.llm import LLMJudge, _failure
from collabrl.rewards.judges.parsing import (
    _RATIONALE_KEYS,
    JudgeParseError,
    _first,
    _number,
    extract_object,
)
from collabrl.rewards.judges.prompts import _clip, load_prompt
from collabrl.rewards.judges.records import verdict_counts

PROMPT = "trace"
JUDGEMENT = "trace_judgement"
"""The summary key the judging pass adds: the verdict's record (:meth:`TraceVerdict.record`)."""
TEXT_CHARS = 600  # a message, board entry or notebook value; longer ones keep head and tail
DESCRIPTION_CHARS = 160  # a column's description
SKIPPED_EVENTS = ("invalid",)  # unusable decisions: nothing to judge
LABEL_WORDS: dict[str, Label] = {
    "satisfied": "satisfied",
    "partial": "partial",
    "partially satisfied": "partial",
    "missing": "missing",
}


@dataclass(frozen=True)
class TraceCase:
    """One episode to judge: its task and its summary."""

    task: AnalysisTask
    summary: Mapping[str, Any]


@dataclass
class TraceVerdict:
    """The judge's labels of one episode as the study's records, or ``judgement=None`` with
    ``error`` on failure."""

    judgement: TraceJudgement | None
    judge: str
    prompt_version: str
    error: str | None = None
    raw: str = ""

    @property
    def failed(self) -> bool:
        return self.error is not None

    def scores(self) -> dict[str, float | None]:
        """The three scores (:data:`SCORE_KEYS`), all None for a failed judgement."""
        return self.judgement.as_dict() if self.judgement else dict.fromkeys(SCORE_KEYS)

    def record(self) -> dict[str, Any]:
        """As plain data, for summaries and results files."""
        return {
            "judge": self.judge,
            "prompt_version": self.prompt_version,
            "error": self.error,
            "scores": self.scores(),
            "labels": self.judgement.labels() if self.judgement else None,
            "raw": self.raw,
        }


# ------------------------------------------------------------------------------ rendering
def _quoted(text: str) -> str:
    return '"' + _clip(" ".join(str(text).split()), TEXT_CHARS) + '"'


def render_task(task: AnalysisTask, summary: Mapping[str, Any]) -> str:
    """What the judge knows of the task: query, tables, notes, workflow nodes, gold."""
    lines = [f"Query: {task.query}", "", "Tables:"]
    for table in task.tables:
        lines.append(f"- {table.name} ({len(table.rows)} rows; {table.description}), columns:")
        lines += [f"  - {c.name}: {_clip(c.description, DESCRIPTION_CHARS)}" for c in table.columns]
    owners = note_profiles(task)
    held: dict[str, list[str]] = {}
    for seat, ids in (summary.get("notes_held") or {}).items():
        for note in ids:
            held.setdefault(note, []).append(seat)
    lines += ["", "Domain notes (the members' private knowledge):"]
    for note in task.notes:
        owner = owners[note.id]
        whose = "background" if owner == AGENT else f"{owner}'s note"
        holders = f", held by {', '.join(held[note.id])}" if note.id in held else ""
        lines.append(f"- {note.id} ({note.role}; {whose}{holders}): {note.text}")
    lines += ["", "Reference workflow (nodes in order):"]
    for k, step in enumerate(task.workflow):
        lines += [f"node {k}: {step.step}", f"  why: {step.why}"]
        lines += [f"  alternative: {alternative}" for alternative in step.alternatives]
        lines += [
            f"  known mistake ({trap.kind}; note {trap.note} avoids it): {trap.naive_step}"
            for trap in task.traps
            if trap.at == k
        ]
    lines += ["", "Correct hypothesis:", _render(task.gold.model_dump())]
    return "\n".join(lines)


def _cell_line(index: int, cell: Mapping[str, Any]) -> str:
    if cell.get("error") is not None:
        result = f"error: {_clip(str(cell['error']), TEXT_CHARS)}"
    elif cell.get("value") is None:
        result = f"a table ({cell['name']})" if cell.get("name") else "a table"
    else:
        result = _clip(str(cell["value"]), TEXT_CHARS)
    return f"[cell {index}] tick {cell['tick']}, {cell['seat']}: {cell['step']} -> {result}"


def _event_line(event: Mapping[str, Any], requests: Mapping[str, Mapping[str, Any]]) -> str:
    kind, target, text = event["kind"], event.get("target"), event.get("text") or ""
    head = f"- tick {event['tick']}, {event['seat']}"
    if kind == "message":
        return f"{head}, message: {_quoted(text)}"
    if kind == "board":
        return f"{head}, board entry [{target}]: {_quoted(text)}"
    if kind == "request":
        asked = next(
            (
                r
                for r in requests.values()
                if r.get("seat") == event["seat"] and r.get("tick") == event["tick"]
            ),
            None,
        )
        if asked is None:
            return f"{head}, asks approval for a {target}"
        return (
            f"{head}, asks approval (request {asked['id']}, owner {asked.get('owner')}): "
            f"{asked.get('action')}"
        )
    if kind in ("approve", "deny"):
        asked = requests.get(str(target))
        what = f": {asked.get('action')}" if asked else ""
        return f"{head}, {'approves' if kind == 'approve' else 'denies'} request {target}{what}"
    if kind == "wait":
        return f"{head}, waits on its open request"
    if kind == "assign":
        return f"{head}, assigns a gate owner: {target}"
    return f"{head}, {kind}: {target or ''}{f' {_quoted(text)}' if text else ''}"


def render_trace(summary: Mapping[str, Any]) -> str:
    """The session as the judge reads it: seats, notebook, events, submission."""
    roles: Mapping[str, str] = summary.get("roles") or {}
    seats = ", ".join(f"{seat} ({PROFILE_TITLES.get(r, r)})" for seat, r in roles.items())
    judged = profiled_seats(roles)
    lines = [f"Seats: {seats or '(not recorded)'}"]
    if summary.get("structure"):
        lines.append(f"Collaboration structure: {summary['structure']}")
    listed = ", ".join(f"{seat} ({profile})" for seat, profile in judged)
    lines.append(f"Collaborators to judge: {listed or 'none (no D or R collaborator)'}")
    notebook = summary.get("notebook") or []
    lines += ["", "Notebook (every step run, in order):"]
    lines += [_cell_line(n, cell) for n, cell in enumerate(notebook)] or ["(no cells)"]
    requests = {str(r["id"]): r for r in summary.get("gate_requests") or []}
    events = [e for e in summary.get("trace") or [] if e["kind"] not in SKIPPED_EVENTS]
    lines += ["", "Events (in order; a run's step and result are its notebook cell):"]
    lines += [_event_line(e, requests) for e in events] or ["(none)"]
    hypothesis = summary.get("hypothesis")
    if hypothesis is None:
        outcome = summary.get("outcome") or "not submitted"
        lines += ["", f"Submitted hypothesis: nothing was submitted ({outcome})"]
    else:
        lines += ["", "Submitted hypothesis:", _render(hypothesis)]
    return "\n".join(lines)


def trace_messages(case: TraceCase) -> list[Message]:
    """The judge's chat for one episode."""
    return chat(
        load_prompt(PROMPT),
        {"task": render_task(case.task, case.summary), "trace": render_trace(case.summary)},
    )


# ------------------------------------------------------------------------------ parsing
def _reason(item: Mapping[str, Any]) -> str:
    return str(_first(dict(item), _RATIONALE_KEYS) or "").strip()


def _index(raw: Any, what: str, size: int) -> int:
    value = _number(raw)
    if value is None or not value.is_integer() or not 0 <= value < size:
        raise JudgeParseError(f"{what} {raw!r} is not one of 0..{size - 1}")
    return int(value)


def _nodes(items: Any, task: AnalysisTask, cells: int) -> list[NodeLabel]:
    """Every workflow node labelled exactly once, in node order."""
    if not isinstance(items, list):
        raise JudgeParseError("reply has no 'workflow' list of node labels")
    labelled: dict[int, NodeLabel] = {}
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise JudgeParseError(f"workflow entry {n} is not an object")
        node = _index(_first(item, ("node",)), "node", len(task.workflow))
        if node in labelled:
            raise JudgeParseError(f"node {node} is labelled twice")
        word = " ".join(str(_first(item, ("label",)) or "").lower().replace("_", " ").split())
        if word not in LABEL_WORDS:
            raise JudgeParseError(f"node {node} label {word!r} is not satisfied, partial, missing")
        raw_cell = _first(item, ("cell",))
        if raw_cell is not None and not cells:
            raise JudgeParseError(f"node {node} cites cell {raw_cell!r} of an empty notebook")
        cell = None if raw_cell is None else _index(raw_cell, f"node {node} cell", cells)
        step = task.workflow[node].step
        labelled[node] = NodeLabel(node, step, LABEL_WORDS[word], cell, _reason(item))
    unlabelled = [k for k in range(len(task.workflow)) if k not in labelled]
    if unlabelled:
        raise JudgeParseError(f"node(s) {unlabelled} not labelled")
    return [labelled[k] for k in sorted(labelled)]


def _parts(obj: Any) -> list[SupportPart]:
    """relation and scope (0 or 1), evidence (0..1), each a ``{score, reason}`` or a number."""
    if not isinstance(obj, dict):
        raise JudgeParseError("reply has no 'support' object")
    parts = []
    for part in PARTS:
        item = _first(obj, (part,))
        raw = _first(item, ("score",)) if isinstance(item, dict) else item
        score = _facet({part: raw}, part, binary=part != "evidence")
        parts.append(SupportPart(part, score, _reason(item) if isinstance(item, dict) else ""))
    return parts


def _collaborators(items: Any, judged: list[tuple[str, str]]) -> list[CollaboratorAlignment]:
    """Exactly the table's D/R collaborators, each scored in [0, 1] or null."""
    if items is None:
        items = []
    if isinstance(items, dict):  # {"Bea": {...}} for [{"seat": "Bea", ...}]
        items = [
            {"seat": seat, **(v if isinstance(v, dict) else {"score": v})}
            for seat, v in items.items()
        ]
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise JudgeParseError("'alignment' is not a list of collaborator objects")
    profiles = dict(judged)
    scored: dict[str, CollaboratorAlignment] = {}
    for item in items:
        seat = str(_first(item, ("seat", "collaborator")) or "")
        if seat not in profiles:
            raise JudgeParseError(f"alignment names {seat!r}, not a D or R collaborator")
        if seat in scored:
            raise JudgeParseError(f"collaborator {seat} is judged twice")
        raw = _first(item, ("score", "alignment"))
        score = None if raw is None else _number(raw)
        if raw is not None and (score is None or not 0.0 <= score <= 1.0):
            raise JudgeParseError(f"collaborator {seat} alignment {raw!r} is not in 0..1")
        scored[seat] = CollaboratorAlignment(
            seat, profiles[seat], score, None, None, (), (), _reason(item)
        )
    missing = [seat for seat, _ in judged if seat not in scored]
    if missing:
        raise JudgeParseError(f"collaborator(s) {', '.join(missing)} not judged")
    return [scored[seat] for seat, _ in judged]


def parse_trace(text: str, case: TraceCase) -> TraceJudgement:
    """The judgement of a trace judge reply, aggregated as the rules aggregate theirs; raises
    :class:`JudgeParseError` for a reply that cannot be one."""
    obj = extract_object(text)
    summary = case.summary
    nodes = _nodes(
        _first(obj, ("workflow", "workflow_coverage", "nodes")),
        case.task,
        len(summary.get("notebook") or []),
    )
    submitted = summary.get("hypothesis") is not None
    parts = _parts(_first(obj, ("support", "hypothesis_support"))) if submitted else None
    collaborators = _collaborators(
        _first(obj, ("alignment", "profile_alignment", "collaborators")),
        profiled_seats(summary.get("roles") or {}),
    )
    return TraceJudgement(coverage_of(nodes), support_of(parts), alignment_of(collaborators))


# ------------------------------------------------------------------------------ judging
def judge_traces(judge: LLMJudge, cases: Sequence[TraceCase]) -> list[TraceVerdict]:
    """One verdict per case, through ``judge``'s engine and sampling in one ``generate`` call."""
    stamp = load_prompt(PROMPT).stamp
    conversations = [trace_messages(c) for c in cases]
    results = judge.engine.generate(conversations, judge.params) if conversations else []
    out = []
    for case, result in zip(cases, results, strict=True):
        verdict = TraceVerdict(None, judge.name, stamp, raw=result.text)
        verdict.error = _failure(result)
        if verdict.error is None:
            try:
                verdict.judgement = parse_trace(result.text, case)
            except JudgeParseError as exc:
                verdict.error = f"parse: {exc}"
        out.append(verdict)
    return out


def judge_episode_traces(
    judge: LLMJudge, episodes: Sequence[tuple[str, dict[str, Any]]]
) -> list[TraceVerdict | None]:
    """Judge the traces of ``episodes`` ((game, summary) pairs) of games with a ``trace_task``,
    each verdict's record kept in its summary under ``trace_judgement``; returns each episode's
    verdict (None: its game has no task reader, not judged)."""
    picked: list[tuple[int, TraceCase]] = []
    for n, (game, summary) in enumerate(episodes):
        section = get_game(game)
        if section.trace_task is None:
            continue
        task = load_addon(section.trace_task, "trace task reader", game)(section.task_of(summary))
        picked.append((n, TraceCase(task, summary)))
    verdicts = judge_traces(judge, [case for _, case in picked])
    out: list[TraceVerdict | None] = [None] * len(episodes)
    for (n, _), verdict in zip(picked, verdicts, strict=True):
        episodes[n][1][JUDGEMENT] = verdict.record()
        out[n] = verdict
    return out


def trace_judgement_counts(summaries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Traces judged and failed (by failure kind), with the prompt's stamp: what an evaluation's
    results report (``results.json``'s ``trace_judge``)."""
    return verdict_counts(summaries, JUDGEMENT, load_prompt(PROMPT).stamp)
