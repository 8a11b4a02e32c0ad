"""The team grid's study-style table: one row per game x collaboration structure x team size.

Columns: episodes; success rate (games judged by success); the game's efficiency column (steps or
score; episodes the decision cap stalled are left out, as in the CollabBench tables) with its
spread, the population std across profile teams (each team's mean over seeds and seats first;
:func:`collabrl.eval.report.metrics`); the process metrics of :mod:`collabrl.eval.process`
(means per episode; "kept" is the share of claims kept, pooled over the row's episodes); the
affective score. Rows follow the grid's order: structure, then size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from collabrl.envs.registry import get_game
from collabrl.eval.process import PROCESS_KEYS
from collabrl.eval.report import metrics
from collabrl.eval.runner import EpisodeOutcome

COLUMNS = {  # row key -> heading (efficiency's heading is the game's own)
    "episodes": "Episodes",
    "success": "Success ↑",
    "efficiency": "",
    "std": "Spread",
    "work_agent": "W agent",
    "work_teammates": "W team",
    "work_total": "W total",
    "messages_total": "Msgs",
    "board_total": "Board",
    "initiative_entropy": "H init",
    "claims_made_total": "Claims",
    "claim_keep_rate": "Kept",
    "handoffs_total": "Handoffs",
    "wasted_total": "Wasted",
    "gate_requests_total": "Gate req",
    "gate_approvals_total": "Appr",
    "gate_denials_total": "Deny",
    "gate_blocked_total": "Blocked",
    "affective": "Affective ↑",
}


def _mean(values: Sequence[float | None]) -> float | None:
    have = [v for v in values if v is not None]
    return sum(have) / len(have) if have else None


def team_row(outcomes: Sequence[EpisodeOutcome]) -> dict[str, Any]:
    """Every column of one row, from its episodes."""
    base = metrics(outcomes)
    summaries = [o.record.summary for o in outcomes]
    judged = all("success" in s for s in summaries)
    row: dict[str, Any] = {
        "episodes": len(outcomes),
        "success": _mean([float(s["success"]) for s in summaries]) if judged else None,
        "efficiency": base["efficiency"],
        "std": base["std"],
        "affective": base["affective"],
    }
    for key in PROCESS_KEYS:
        row[key] = _mean([o.process.get(key) for o in outcomes])
    made = sum(o.process["claims_made_total"] or 0 for o in outcomes)
    kept = sum(o.process["claims_kept_total"] or 0 for o in outcomes)
    row["claim_keep_rate"] = kept / made if made else None
    return row


def team_tables(outcomes: Sequence[EpisodeOutcome]) -> list[dict[str, Any]]:
    """The rows of every game in the grid, in its order (team-grid outcomes only)."""
    keys: dict[tuple[str, str | None, int, tuple[str, ...] | None], list[EpisodeOutcome]] = {}
    for o in outcomes:
        if o.job.size is not None:
            key = (o.job.game, o.job.structure, o.job.size, o.job.composition)
            keys.setdefault(key, []).append(o)
    return [
        {
            "game": game,
            "structure": structure,
            "size": size,
            **({"composition": "".join(comp)} if comp is not None else {}),
            **team_row(group),
        }
        for (game, structure, size, comp), group in keys.items()
    ]


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def team_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """One Markdown table per game."""
    parts = []
    for game in dict.fromkeys(r["game"] for r in rows):
        section = get_game(game)
        mine = [r for r in rows if r["game"] == game]
        team = ["Collaborators"] if any("composition" in r for r in mine) else []
        heads = ["Structure", "Size", *team] + [
            title or section.efficiency_heading() for title in COLUMNS.values()
        ]
        body = [
            [
                r["structure"],
                str(r["size"]),
                *([r.get("composition") or "none"] if team else []),
                *(_cell(r[k]) for k in COLUMNS),
            ]
            for r in mine
        ]
        parts.append(f"### {section.title}: teams x collaboration structures\n")
        parts.append(tabulate(body, heads, tablefmt="github", disable_numparse=True) + "\n")
    return "\n".join(parts)
