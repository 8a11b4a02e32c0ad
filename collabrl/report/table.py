"""CollabBench's Table 1 (and Tables 6-7) from several evaluation folders: Oracle, Base and
Trained rows side by side, and the "Relative Improvements" row.

Each ``collabrl eval`` run writes one method's tables; this joins finished runs evaluated under the
same settings (:func:`collabrl.report.folders.check_same_settings`) into the paper's layout: per
game, one row per method with, for Agent 1 and Agent 2, Step/Score, Std., #Tokens(k),
Helpfulness, Trustfulness, Empathy (and collabrl's Affective mean of the three).

Relative Improvements (paper Table 1 caption: "the relative improvements of our trained model over
the base model"), checked against its numbers: for a column where higher is better
``(trained - base) / base``, where lower is better (Step, Std., #Tokens) ``(base - trained) /
base``, so a positive value always means the trained model is better. E.g. CWAH Agent 1 Step
84.51 -> 71.64 gives (84.51 - 71.64) / 84.51 = 15.2%; Cook Agent 1 Std. 33.30 -> 34.03 gives
-2.2%. collabrl computes it from the unrounded means (the paper's own numbers fit its rounded
cells: #Tokens 0.24 -> 0.23 is its 4.2%); a base of 0 (a scripted policy's tokens) leaves the
cell empty. Under the tables, the abstract's headline (19.5% efficiency, 24.4% affective): plain
means of the row's cells (:func:`headline`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError
from collabrl.eval.tokens import HEADINGS
from collabrl.report.folders import EvalFolder
from collabrl.rewards.judges import DIMENSIONS

OVERALL = "Overall"  # collabrl.eval.report.OVERALL: the task row pooling every episode
SEATS = (1, 2)
HELD_OUT = "Human proxy"
"""The row group of a folder evaluated beside the human proxy (``partner.kind=human_proxy``): the
held-out human-like partner, a policy's score with a partner cloned from recorded human play."""
GROUPS = ("Oracle", "Base", "Trained", HELD_OUT)
HELD_OUT_NOTE = (
    f"{HELD_OUT} rows: the policy beside the held-out human-like partner (`partner.kind="
    "human_proxy`), a partner cloned from recorded human play (the kitchen's human proxies); "
    "the other rows' partners are the table's own."
)
RELATIVE = "Relative Improvements"
BASE_TITLES = {
    "std": "Std. ↓",
    "tokens_k": HEADINGS["engine"],
    "helpfulness": "Helpfulness ↑",
    "trustfulness": "Trustfulness ↑",
    "empathy": "Empathy ↑",
    "affective": "Affective ↑",
}
PROXY_NOTE = (
    "PROXY: at least one row comes from offline stand-ins (the heuristic judge's rule-based cue "
    "counting for the affective scores, or scripted partners for the paper's LLM-simulated "
    "players); it is not comparable with CollabBench's numbers."
)


def columns(game: str, tokens: str = "engine") -> list[tuple[str, str, bool]]:
    """(metric key, heading, lower is better) of ``game``'s columns, in the paper's order: the
    efficiency column (Step or Score), the game's extra ones, Std., #Tokens (headed by how the
    folders counted them, ``tokens``), the three affective dimensions, Affective."""
    section = get_game(game)
    titles = {**BASE_TITLES, "tokens_k": HEADINGS[tokens]}
    out = [("efficiency", section.efficiency_heading(), section.lower_is_better)]
    out += [(key, title, "↓" in title) for key, title in section.extra_metrics]
    out += [(key, title, "↓" in title) for key, title in titles.items()]
    return out


def relative(base: float | None, trained: float | None, lower_is_better: bool) -> float | None:
    """The paper's relative improvement of ``trained`` over ``base`` (positive: better); None
    when either is missing or the base is 0."""
    if base is None or trained is None or base == 0 or math.isnan(base) or math.isnan(trained):
        return None
    change = (base - trained) if lower_is_better else (trained - base)
    return change / abs(base)


@dataclass
class Roles:
    """Which folder plays which row group, and which two the relative row compares."""

    groups: list[str]  # per folder: Oracle, Base or Trained
    base: int | None
    trained: int | None


def assign_roles(
    folders: Sequence[EvalFolder], base: int | None = None, trained: int | None = None
) -> Roles:
    """Oracle for a folder evaluated with ``--oracle``; :data:`HELD_OUT` for one evaluated beside
    the human proxy; Trained for ``trained`` (default: the last other folder, when there are two
    or more); Base for the rest. The relative row compares ``trained`` with ``base`` (default:
    the Base folder listed just before it), both beside the same partners."""
    plain = [i for i, f in enumerate(folders) if not f.oracle and not f.beside_human_proxy]
    for name, index in (("--trained", trained), ("--base", base)):
        if index is not None and index not in plain:
            kind = "an Oracle evaluation" if folders[index].oracle else "beside the human proxy"
            raise CollabrlError(
                f"{name} {folders[index].path} is {kind}; the relative row compares two "
                "evaluations of the table's own partners"
            )
    if trained is None and len(plain) >= 2:
        trained = plain[-1]
    if trained is not None and base is None:
        before = [i for i in plain if i != trained and i < trained] or [
            i for i in plain if i != trained
        ]
        base = before[-1] if before else None
    if base is not None and base == trained:
        raise CollabrlError("--base and --trained name the same folder")
    groups = [
        "Oracle"
        if f.oracle
        else HELD_OUT
        if f.beside_human_proxy
        else "Trained"
        if i == trained
        else "Base"
        for i, f in enumerate(folders)
    ]
    return Roles(groups, base, trained if base is not None else None)


def _values(folder: EvalFolder, game: str, task: str) -> dict[int, dict[str, Any]]:
    """seat -> metrics of one (game, task) table row of ``folder`` (seats it did not play are
    missing)."""
    out = {}
    for row in folder.tables:
        if row.get("game") == game and row.get("task") == task:
            out[int(str(row["seat"]).split()[-1])] = row
    return out


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def tasks_of(folders: Sequence[EvalFolder], game: str) -> list[str]:
    """The game's tasks any folder evaluated, in the benchmark's order, then Overall."""
    played = {r["task"] for f in folders for r in f.tables if r.get("game") == game}
    order = [t for t in get_game(game).tasks("test") if t in played]
    order += sorted(played - set(order) - {OVERALL})
    return [*order, OVERALL] if OVERALL in played else order


def build(
    folders: Sequence[EvalFolder], roles: Roles, *, per_task: bool = True
) -> list[dict[str, Any]]:
    """The joined table as flat rows: game, task (``Overall`` is Table 1), group, method, folder,
    then ``{metric}_agent{seat}`` per column (the relative row holds fractions, 0.152 = 15.2%)."""
    order = sorted(range(len(folders)), key=lambda i: GROUPS.index(roles.groups[i]))
    games = list(dict.fromkeys(g for f in folders for g in f.games()))
    rows: list[dict[str, Any]] = []
    for game in games:
        cols = columns(game)
        tasks = tasks_of(folders, game)
        for task in [OVERALL, *[t for t in tasks if t != OVERALL]] if per_task else [OVERALL]:
            if task not in tasks:
                continue
            values = {i: _values(folders[i], game, task) for i in order}
            for i in order:
                if folders[i].beside_human_proxy and not values[i]:
                    continue  # a game without human proxies: no held-out row
                head = {"game": game, "task": task, "group": roles.groups[i]}
                rows.append(_method_row(head, folders[i], values[i], cols))
            if roles.base is not None and roles.trained is not None:
                base, trained = folders[roles.base], folders[roles.trained]
                row: dict[str, Any] = {
                    "game": game,
                    "task": task,
                    "group": RELATIVE,
                    "method": f"{trained.label} vs {base.label}",
                    "folder": "",
                }
                for key, _, lower in cols:
                    for seat in SEATS:
                        b, t = values[roles.base].get(seat), values[roles.trained].get(seat)
                        row[f"{key}_agent{seat}"] = relative(
                            _number(b.get(key)) if b else None,
                            _number(t.get(key)) if t else None,
                            lower,
                        )
                rows.append(row)
    return rows


def _method_row(
    head: dict[str, Any],
    folder: EvalFolder,
    values: dict[int, dict[str, Any]],
    cols: list[tuple[str, str, bool]],
) -> dict[str, Any]:
    """One folder's row: ``head`` (game, task, group), its label and path, then each column's
    value per seat (None where it did not play the seat)."""
    row: dict[str, Any] = {**head, "method": folder.label, "folder": str(folder.path)}
    for key, _, _ in cols:
        for seat in SEATS:
            m = values.get(seat)
            row[f"{key}_agent{seat}"] = _number(m.get(key)) if m else None
    return row


HEADLINE = {"efficiency": ("efficiency",), "affective": DIMENSIONS}
"""The abstract's two figures and the Relative Improvements cells each averages (every game and
seat): efficiency is the Step/Score column, affective the three judged dimensions (the paper's
19.5% and 24.4% are these plain means of Table 1's row, not of collabrl's Affective column)."""


def headline(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """The abstract's headline improvements from the Overall Relative Improvements rows: per
    :data:`HEADLINE` entry, the plain mean of its cells (empty cells left out; None when all
    are)."""
    relative_rows = [r for r in rows if r["task"] == OVERALL and r["group"] == RELATIVE]
    out: dict[str, float | None] = {}
    for name, keys in HEADLINE.items():
        cells = [
            value
            for r in relative_rows
            for key in keys
            for seat in SEATS
            if (value := r.get(f"{key}_agent{seat}")) is not None
        ]
        out[name] = sum(cells) / len(cells) if cells else None
    return out


def headline_line(rows: Sequence[dict[str, Any]]) -> str:
    """The headline as one Markdown line (empty without a Relative Improvements row)."""
    if not any(r["group"] == RELATIVE for r in rows):
        return ""
    figures = headline(rows)
    shown = ", ".join(f"{name} {_cell(value, True)}" for name, value in figures.items())
    return (
        f"**Headline (the abstract's figures): {shown}**: plain means of the Table 1 Relative "
        "Improvements cells of every game and seat (efficiency: Step/Score; affective: "
        "Helpfulness, Trustfulness and Empathy)."
    )


def _cell(value: float | None, percent: bool) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if percent else f"{value:.2f}"


def _line(r: dict[str, Any], cols: list[tuple[str, str, bool]]) -> list[str]:
    """One Markdown row: group, method, then each column for Agent 1 and Agent 2."""
    percent = r["group"] == RELATIVE
    cells = [_cell(r[f"{k}_agent{s}"], percent) for k, _, _ in cols for s in SEATS]
    return [r["group"], "" if percent else r["method"], *cells]


def markdown(rows: Sequence[dict[str, Any]], folders: Sequence[EvalFolder]) -> str:
    """Per game, the Table 1 layout (Overall), then the Tables 6-7 layout (per task), as
    GitHub Markdown, with the proxy note and the counts a reader must know."""
    parts = []
    if any(f.proxy for f in folders):
        parts.append(f"> **{PROXY_NOTE}**\n")
    if any(f.beside_human_proxy for f in folders):
        parts.append(f"> {HELD_OUT_NOTE}\n")
    for game in dict.fromkeys(r["game"] for r in rows):
        section = get_game(game)
        cols = columns(game, str(folders[0].stamp.get("tokens", "engine")))
        head = [f"{title} Agent {s}" for _, title, _ in cols for s in SEATS]
        mine = [r for r in rows if r["game"] == game]

        parts.append(f"### {section.title}: Table 1 layout\n")
        overall = [_line(r, cols) for r in mine if r["task"] == OVERALL]
        parts.append(
            tabulate(overall, ["Method", "LLMs", *head], tablefmt="github", disable_numparse=True)
        )
        tasks = [r for r in mine if r["task"] != OVERALL]
        if tasks:
            shape = f"Table {section.paper_table} layout" if section.paper_table else "per task"
            parts.append(f"\n### {section.title}: per task ({shape})\n")
            parts.append(
                tabulate(
                    [[r["task"], *_line(r, cols)] for r in tasks],
                    ["Task", "Method", "LLMs", *head],
                    tablefmt="github",
                    disable_numparse=True,
                )
            )
        parts.append("")
    if line := headline_line(rows):
        parts.append(line + "\n")
    parts.append(_legend(folders))
    return "\n".join(parts) + "\n"


def _legend(folders: Sequence[EvalFolder]) -> str:
    """One line per folder: its row label, folder, policy, judge, episodes, and any stalled
    episodes or failed judge calls (left out of its means)."""
    lines = []
    for f in folders:
        overall = [r for r in f.tables if r.get("task") == OVERALL]
        stalled = sum(int(r.get("stalled") or 0) for r in overall)
        failed = sum(int(r.get("judge_failed") or 0) for r in overall)
        made = sum(int(r.get("judgements") or 0) for r in overall)
        extra = (f"; {stalled} stalled" if stalled else "") + (
            f"; judge failed on {failed}/{made} windows" if failed else ""
        )
        held_out = "beside the held-out human proxy, " if f.beside_human_proxy else ""
        lines.append(
            f"- _{f.label}_: `{f.path}` (policy {f.stamp.get('policy')}, {held_out}"
            f"{'Oracle, ' if f.oracle else ''}judge {f.stamp.get('judge')}, "
            f"{len(f.episodes)} episodes{extra})"
        )
    return "Rows:\n" + "\n".join(lines)


def csv_columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Every column of the joined rows (games with extra metrics add theirs), in first-seen order."""
    return list(dict.fromkeys(k for r in rows for k in r))
