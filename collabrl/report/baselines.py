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
    "SP (Cook)": (
        "a PPO self-play policy over Overcooked-AI's primitive moves (up/down/left/right/stay/"
        "interact); collabrl's kitchen offers ProAgent's skills on a motion planner, not primitive "
        "moves, and no trained weights may be downloaded here"
    ),
    "PBT (Cook)": "population-based PPO training (a population of SP agents): as SP, plus the cost",
    "FCP (Cook)": (
        "Fictitious Co-Play: a PPO agent trained against a population of SP agents and their "
        "checkpoints: as SP, plus the population"
    ),
    "MEP (Cook)": "Maximum-Entropy Population training: as FCP",
    "COLE (Cook)": (
        "Cooperative Open-ended LEarning (graphic-form game solver over a PPO population): as FCP; "
        "its released checkpoints are for primitive moves"
    ),
}
"""The paper's non-LLM baselines that cannot run here, with the reason (the report lists them)."""


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
