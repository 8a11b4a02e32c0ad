"""CollabBench's Tables 4-5: non-LLM baselines on the efficiency metrics, from evaluation folders.

The paper reports, per task and seat, the Step (CWAH) or Score (Cook) of each non-LLM baseline and
its Std. across partner profiles, with a "Total" row over all tasks; affective scores are left out
("the non-LLM baselines lack reasoning and communication capabilities", D.2.1). Here every folder
is one method (``collabrl eval policy.kind=silent|random|idle|expert``; see
:mod:`collabrl.agents.baselines` for what can run and what cannot) and the table has one row per
task and ``Total`` (the evaluation's Overall Step/Score and the mean of the per-task Std.) and,
per method, Step/Score and Std. for Agent 1 and Agent 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

from collabrl.envs.registry import get_game
from collabrl.eval.std import mean_of_task_stds
from collabrl.report.folders import EvalFolder
from collabrl.report.table import OVERALL, SEATS, tasks_of

TOTAL = "Total"

NOT_RUNNABLE: dict[str, str] = {
    "MHP (CWAH)": (
        "Watch-And-Help's MCTS + regression hierarchical planner over VirtualHome's symbolic "
        "graph (its code needs the Unity simulator and the unpublished 50-task file); collabrl "
        "runs `silent`, its own rule-based planner over the same high-level actions without "
        "messages, in its place"
    ),
}
"""The paper's non-LLM baselines that cannot run here, with the reason (the report lists them)."""

POPULATION_METHODS = {
    "SP": "sp0_final",
    "PBT": "pbt0",
    "FCP": "fcp0",
    "MEP": "mep0",
    "COLE": "cole0",
}
"""Table 5's methods collabrl trains, and the population member that plays each."""
PAPER_PARTNER = "persona"  # the partner type closest to the paper's (profile-driven players)


def _cells(folder: EvalFolder, game: str, task: str) -> dict[int, dict[str, Any]]:
    """seat -> the folder's table row of (game, task)."""
    return {
        int(str(r["seat"]).split()[-1]): r
        for r in folder.tables
        if r.get("game") == game and r.get("task") == task
    }


def _number(value: Any) -> float | None:
    return None if value is None or value == "" else float(value)


def build(folders: Sequence[EvalFolder]) -> list[dict[str, Any]]:
    """Flat rows: game, task (Total last), then per method ``{label} efficiency agent{n}`` and
    ``{label} std agent{n}``. Total's Step/Score is the evaluation's Overall mean; its Std. is the
    mean of the per-task stds in both games, as Tables 4-5 print it (:mod:`collabrl.eval.std`)."""
    rows = []
    for game in dict.fromkeys(g for f in folders for g in f.games()):
        tasks = tasks_of(folders, game)
        for task in tasks:
            row: dict[str, Any] = {"game": game, "task": TOTAL if task == OVERALL else task}
            for f in folders:
                by_seat = _cells(f, game, task)
                for seat in SEATS:
                    m = by_seat.get(seat)
                    row[f"{f.label} efficiency agent{seat}"] = (
                        _number(m.get("efficiency")) if m else None
                    )
                    if task == OVERALL:
                        per_task = [_cells(f, game, t).get(seat) for t in tasks if t != OVERALL]
                        std = mean_of_task_stds([_number(c.get("std")) for c in per_task if c])
                    else:
                        std = _number(m.get("std")) if m else None
                    row[f"{f.label} std agent{seat}"] = std
            rows.append(row)
    return rows


def _cell(value: Any) -> str:
    return "—" if value is None or value == "" else f"{float(value):.2f}"


def markdown(rows: Sequence[dict[str, Any]], folders: Sequence[EvalFolder]) -> str:
    """Per game, the Tables 4-5 layout, and the paper's baselines that cannot run here."""
    parts = []
    for game in dict.fromkeys(r["game"] for r in rows):
        section = get_game(game)
        metric = section.efficiency_heading()
        head = ["Task"]
        for f in folders:
            head += [f"{f.label} {metric} Agent {s}" for s in SEATS]
            head += [f"{f.label} Std. Agent {s}" for s in SEATS]
        lines = [
            [r["task"]]
            + [
                _cell(r[f"{f.label} {key} agent{s}"])
                for f in folders
                for key in ("efficiency", "std")
                for s in SEATS
            ]
            for r in rows
            if r["game"] == game
        ]
        parts.append(f"### {section.title}: non-LLM baselines (Tables 4-5 layout)\n")
        parts.append(tabulate(lines, head, tablefmt="github", disable_numparse=True))
        parts.append("")
    parts.append("The paper's non-LLM baselines that cannot run here:")
    parts += [f"- {name}: {why}." for name, why in NOT_RUNNABLE.items()]
    return "\n".join(parts) + "\n"


def population_markdown(crossplay: dict[str, Any]) -> str:
    """Table 5's SP, PBT, FCP, MEP and COLE rows beside collabrl's trained agents (``collabrl partners
    crossplay``'s crossplay.json): per task, the paper's Agent 1 / Agent 2 scores, ours beside
    persona partners in seat 1 / seat 2 (even episodes put the agent in seat 1), and ours in
    self-play (beside itself, both seats)."""
    paper, scores = crossplay["paper"], crossplay["scores"]
    head = ["Task"]
    for method in POPULATION_METHODS:
        head += [f"{method} paper A1", f"{method} paper A2"]
        head += [f"{method} ours A1", f"{method} ours A2", f"{method} ours self-play"]
    lines = []
    for task in [*scores, TOTAL]:
        row = [task]
        for method, member in POPULATION_METHODS.items():
            printed = paper.get(method, {}).get(task)
            row += [_cell(printed[0]), _cell(printed[2])] if printed else ["—", "—"]
            if task == TOTAL:
                row += ["", "", ""]
                continue
            by_partner = scores[task].get(member, {})
            beside = by_partner.get(PAPER_PARTNER, [])
            own = by_partner.get(member, [])
            row += [_mean_cell(beside[0::2]), _mean_cell(beside[1::2]), _mean_cell(own)]
        lines.append(row)
    stamp = crossplay.get("stamp", {})
    return (
        "### Cook: trained partner populations beside the paper's Table 5\n\n"
        + tabulate(lines, head, tablefmt="github", disable_numparse=True)
        + f"\n\nOurs: {crossplay.get('episodes')} episodes per cell, beside persona partners "
        f"(the test profiles); commit {stamp.get('commit', '?')}, {stamp.get('date', '?')}.\n"
    )


def _mean_cell(values: Sequence[float]) -> str:
    return _cell(sum(values) / len(values)) if values else "—"
