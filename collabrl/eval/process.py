"""Process metrics of one episode, computed from its recorded trace (``summary()["trace"]``).

Why from the trace: a team can fail in the interaction before it fails in the outcome, so the
study this follows measures the process too. Everything here is a pure function of the summary
a game records (:mod:`collabrl.envs.structures.trace`), the agent's seat and the game's speech
reader (which claims and requests a message or board entry makes, as the subgoals work events
name), so evaluation tables and training metrics compute the same numbers. Definitions (per
episode; "teammates" are every seat but the agent's):

- ``work_*``: state-changing actions started (household: explore, check, grab, put; kitchen: a
  movement skill); a gated action counts when it runs, not when it is requested or waited on.
  Study: "Total Work" is non-message actions of all participants; here structure actions
  (board entries, approvals, assignments) and waits are not work either.
- ``messages_*``: messages sent (the game's message action with text); ``board_total``: group
  memory entries written with the board action (the note a gate assignment leaves is counted
  under the assignment, not here).
- ``initiative_entropy``: how evenly seats take the initiative. A seat's initiatives are its work
  that starts a subgoal no seat had started (household: the first move on a room, container,
  object or target; kitchen: the first move on a job, onion supply or dish handling, within a
  soup cycle) plus its messages and board entries that claim work. H = -sum p_s ln p_s over the
  seats' shares p_s of all initiatives, normalised by ln(number of seats): 1 when every seat
  takes an equal share, 0 when one seat takes them all; None for one seat or no initiative.
- ``claims_made`` / ``claims_kept``: distinct (seat, subgoal) pairs a seat claimed for itself
  ("I'll check <fridge> (105)", "I'll do the dishes"), and those it later worked on itself.
- ``handoffs``: distinct (seat, subgoal) pairs a seat asked a teammate to do that a seat other
  than the asker later worked on.
- ``wasted``: work that turned out useless or duplicated (see each game's docstring: a grab of an
  object already taken, a search of a place a teammate had already searched in vain; a kitchen
  skill that ended impossible or blocked).
- ``gate_requests`` / ``gate_approvals`` / ``gate_denials``: requests filed (by the requester),
  approvals and denials given (by the owner); ``gate_blocked``: ticks seats spent blocked on
  their own open requests; ``gate_latency``: mean ticks from a request to its decision (None
  when no request was decided).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from scipy import stats

from collabrl.envs.registry import get_game, load_addon
from collabrl.envs.structures import WAIT_TICKS, Speech

SpeechReader = Callable[[str], Speech]
SEAT_KEYS = (
    "work",
    "messages",
    "board",
    "initiative",
    "claims_made",
    "claims_kept",
    "handoffs",
    "wasted",
    "gate_requests",
    "gate_approvals",
    "gate_denials",
    "gate_blocked",
)
SPLIT_BY_ROLE = ("work", "messages")  # reported for the agent, its teammates and in total
# summed over seats only (initiative is reported as its entropy instead)
TOTALS = tuple(k for k in SEAT_KEYS if k not in (*SPLIT_BY_ROLE, "initiative"))
PROCESS_KEYS = (
    "work_agent",
    "work_teammates",
    "work_total",
    "messages_agent",
    "messages_teammates",
    "messages_total",
    "board_total",
    "initiative_entropy",
    "claims_made_total",
    "claims_kept_total",
    "handoffs_total",
    "wasted_total",
    "gate_requests_total",
    "gate_approvals_total",
    "gate_denials_total",
    "gate_blocked_total",
    "gate_latency",
)
"""Flat per-episode metrics (every one a number or None), in table order."""


def _silent(text: str) -> Speech:
    return Speech()


@cache
def speech_reader(game: str, task: str) -> SpeechReader:
    """The game's reader of claims and requests for ``task`` (none for a game without one)."""
    path = get_game(game).speech
    return load_addon(path, "speech reader", game)(task) if path else _silent


def initiative_entropy(initiatives: Sequence[int]) -> float | None:
    """Normalised Shannon entropy of the seats' initiative counts (see the module docstring)."""
    total = sum(initiatives)
    if len(initiatives) < 2 or total == 0:
        return None
    return float(stats.entropy(initiatives, base=len(initiatives)))  # SciPy normalises counts


def seat_process(summary: dict[str, Any], speech: SpeechReader) -> dict[str, dict[str, int]]:
    """Every per-seat count of :data:`SEAT_KEYS`, seats in the game's order."""
    seats = list(summary["decisions"])
    events = summary.get("trace", [])
    counts: dict[str, Counter[str]] = {s: Counter() for s in seats}
    work = [e for e in events if e["kind"] == "work"]
    claimed: dict[tuple[str, str], int] = {}  # (seat, subgoal) -> first tick claimed
    asked: dict[tuple[str, str], int] = {}  # (seat, subgoal) -> first tick asked of others
    for e in events:
        mine = counts[e["seat"]]
        kind = e["kind"]
        if kind == "work":
            mine["work"] += 1
            mine["initiative"] += e["new"]
            mine["wasted"] += e["wasted"]
        elif kind in ("message", "board"):
            mine["messages" if kind == "message" else "board"] += 1
            said = speech(e["text"])
            mine["initiative"] += bool(said.claims)
            for target in said.claims:
                claimed.setdefault((e["seat"], target), e["tick"])
            for target in said.requests:
                asked.setdefault((e["seat"], target), e["tick"])
        elif kind == "request":
            mine["gate_requests"] += 1
        elif kind == "wait":
            mine["gate_blocked"] += WAIT_TICKS
        elif kind in ("approve", "deny"):
            mine["gate_approvals" if kind == "approve" else "gate_denials"] += 1
    for (seat, target), tick in claimed.items():
        counts[seat]["claims_made"] += 1
        counts[seat]["claims_kept"] += any(
            w["seat"] == seat and w["target"] == target and w["tick"] >= tick for w in work
        )
    for (seat, target), tick in asked.items():
        counts[seat]["handoffs"] += any(
            w["seat"] != seat and w["target"] == target and w["tick"] >= tick for w in work
        )
    return {s: {k: counts[s][k] for k in SEAT_KEYS} for s in seats}


def gate_latency(summary: dict[str, Any]) -> float | None:
    """Mean ticks from an approval request to its decision (None: none decided)."""
    waits = [
        r["decided_tick"] - r["tick"]
        for r in summary.get("gate_requests", [])
        if r["decided_tick"] is not None
    ]
    return sum(waits) / len(waits) if waits else None


def process_metrics(summary: dict[str, Any], agent: str, speech: SpeechReader) -> dict[str, Any]:
    """The flat metrics of :data:`PROCESS_KEYS` plus ``seats`` (seat -> :data:`SEAT_KEYS`).
    A game that records no trace cannot supply them: every metric is None (n/a), not 0."""
    if "trace" not in summary:
        return {**dict.fromkeys(PROCESS_KEYS), "seats": {}}
    seats = seat_process(summary, speech)
    if agent not in seats:
        raise ValueError(f"agent seat {agent!r} is not a seat of this episode ({list(seats)})")
    mates = [s for s in seats if s != agent]
    out: dict[str, Any] = {}
    for key in SPLIT_BY_ROLE:
        out[f"{key}_agent"] = seats[agent][key]
        out[f"{key}_teammates"] = sum(seats[s][key] for s in mates)
        out[f"{key}_total"] = out[f"{key}_agent"] + out[f"{key}_teammates"]
    for key in TOTALS:
        out[f"{key}_total"] = sum(c[key] for c in seats.values())
    out["initiative_entropy"] = initiative_entropy([c["initiative"] for c in seats.values()])
    out["gate_latency"] = gate_latency(summary)
    return {**{k: out[k] for k in PROCESS_KEYS}, "seats": seats}


JUDGEMENT_KEYS = ("workflow_coverage", "hypothesis_support", "profile_alignment")
"""The trace judgements of a game that has them (``GameSection.trace_judge``), each in [0, 1]
or None where it does not apply. These are the game's rules; an evaluation with
``trace_judge=llm`` replaces them after playing with the LLM judge's
(:func:`collabrl.eval.runner.judge_traces`)."""


@cache
def trace_judge(game: str) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """The game's trace judge (summary -> :data:`JUDGEMENT_KEYS` values); None without one."""
    path = get_game(game).trace_judge
    return load_addon(path, "trace judge", game) if path else None


def episode_process(game: str, summary: dict[str, Any], agent: str) -> dict[str, Any]:
    """:func:`process_metrics` of one episode of ``game``, with the game's speech reader, and
    the game's trace judgements when it has a trace judge."""
    task = summary[get_game(game).task_key]
    out = process_metrics(summary, agent, speech_reader(game, task))
    judge = trace_judge(game)
    if judge is not None:
        judged = judge(summary)
        out.update({key: judged.get(key) for key in JUDGEMENT_KEYS})
    return out
