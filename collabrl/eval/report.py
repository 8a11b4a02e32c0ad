"""Turn scored episodes into CollabBench-shaped tables (Table 1 and Tables 6-7) and files.

Metrics per (game, task, seat): mean efficiency; its std across partner profiles as the paper's
tables compute it for the game (:mod:`collabrl.eval.std`: each profile's mean over seeds first;
CWAH population std, Overall pooled across task x profile; Cook sample std, Overall the mean of
the per-task stds); generated tokens per decision in thousands; mean of each affective dimension
over episodes that have it; "Affective" = mean of the three dimension means. "Overall" pools
every episode of the game.
Every table also shows its failed window judgements ("Judge failed": failed/made): failed ones
are left out of the scores, so a row of clean-looking means may rest on few judgements. Episodes
ended by the decision safety cap ("Stalled": stalled/episodes) are left out of the efficiency
mean and std rather than counted as ordinary failures; a note under the tables says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from collabrl import records
from collabrl.envs.registry import game_names, get_game
from collabrl.eval.runner import EpisodeOutcome
from collabrl.eval.std import efficiency_std
from collabrl.eval.tokens import HEADINGS
from collabrl.rewards.judges import DIMENSIONS, WindowJudgement

METRICS = ("efficiency", "std", "tokens_k", *DIMENSIONS, "affective")
TITLES = {
    "std": "Std. ↓",
    "helpfulness": "Helpfulness ↑",
    "trustfulness": "Trustfulness ↑",
    "empathy": "Empathy ↑",
    "affective": "Affective ↑",
}
OVERALL = "Overall"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _judgements(outcomes: Sequence[EpisodeOutcome]) -> Iterator[tuple[str, WindowJudgement]]:
    """Every window judgement of the outcomes, with its dimension."""
    for o in outcomes:
        for verdict in o.judgements:
            yield from verdict.items()


def game_metrics(game: str) -> tuple[str, ...]:
    """The metric columns of ``game``'s tables: :data:`METRICS`, with the game's
    ``extra_metrics`` right after the efficiency column."""
    extra = tuple(key for key, _ in get_game(game).extra_metrics)
    return (METRICS[0], *extra, *METRICS[1:])


def _std(finished: Sequence[EpisodeOutcome]) -> float | None:
    """The Std. cell of finished episodes of one game, by the game's rule (:mod:`.std`)."""
    if not finished:
        return None
    per_profile: dict[tuple[str, str | None], list[float]] = defaultdict(list)
    for o in finished:
        per_profile[o.job.task, o.job.profile_id].append(o.efficiency)
    by_task: dict[str, list[float]] = defaultdict(list)
    for (task, _), values in per_profile.items():
        by_task[task].append(sum(values) / len(values))
    section = get_game(finished[0].job.game)
    return efficiency_std(by_task, section.task_std_ddof, section.overall_std)


def metrics(outcomes: Sequence[EpisodeOutcome]) -> dict[str, Any]:
    """Every metric of one table cell group (all of one game), plus episode and missing-score
    counts; a game's ``extra_metrics`` are means over the finished episodes' summaries."""
    finished = [o for o in outcomes if not o.stalled]
    row: dict[str, Any] = {
        "efficiency": _mean([o.efficiency for o in finished]),
        "std": _std(finished),
        "tokens_k": _mean([o.tokens_per_step_k for o in outcomes]),
        "episodes": len(outcomes),
        "stalled": len(outcomes) - len(finished),
    }
    extra = get_game(outcomes[0].job.game).extra_metrics if outcomes else ()
    for key, _ in extra:
        row[key] = _mean([float(o.record.summary[key]) for o in finished])
    for d in DIMENSIONS:
        have = [s for o in outcomes if (s := o.scores.get(d)) is not None]
        row[d] = _mean(have)
        row[f"missing_{d}"] = len(outcomes) - len(have)
    dims = [row[d] for d in DIMENSIONS]
    row["affective"] = None if None in dims else sum(dims) / len(dims)
    made = [j for _, j in _judgements(outcomes)]
    row["judgements"] = len(made)
    row["judge_failed"] = sum(j.failed for j in made)
    return row


def judge_failures(outcomes: Sequence[EpisodeOutcome]) -> dict[str, Any]:
    """Window judgements made, failed and retried per dimension (failed ones are excluded, not
    zeroed)."""
    made = {d: 0 for d in DIMENSIONS}
    failed = {d: 0 for d in DIMENSIONS}
    retries = {d: 0 for d in DIMENSIONS}
    errors: dict[str, int] = defaultdict(int)
    for d, j in _judgements(outcomes):
        made[d] += 1
        retries[d] += j.attempts - 1
        if j.failed:
            failed[d] += 1
            errors[(j.error or "").split(":")[0]] += 1
    return {
        "windows": sum(len(o.windows) for o in outcomes),
        "judgements": made,
        "failed": failed,
        "retries": retries,  # further judge calls for unparsable verdicts (judge.retries)
        "failure_kinds": dict(errors),
        "episodes_missing": {
            d: sum(1 for o in outcomes if o.scores.get(d) is None) for d in DIMENSIONS
        },
    }


def build_tables(outcomes: Sequence[EpisodeOutcome]) -> dict[str, dict[str, dict[int, dict]]]:
    """game -> task (then "Overall") -> seat -> metrics, tasks in the benchmark's order."""
    tables: dict[str, dict[str, dict[int, dict]]] = {}
    for game in game_names():
        mine = [o for o in outcomes if o.job.game == game]
        if not mine:
            continue
        seats = sorted({o.job.seat for o in mine})
        section = get_game(game)  # test tasks first, then training ones (validation plays them)
        order = dict.fromkeys((*section.tasks("test"), *section.tasks("train")))
        tasks = [t for t in order if any(o.job.task == t for o in mine)]
        table = {
            task: {
                s: metrics([o for o in mine if o.job.task == task and o.job.seat == s])
                for s in seats
            }
            for task in tasks
        }
        table[OVERALL] = {s: metrics([o for o in mine if o.job.seat == s]) for s in seats}
        tables[game] = table
    return tables


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _failed(m: dict[str, Any]) -> str:
    """The "Judge failed" cell: failed of made window judgements."""
    return f"{m['judge_failed']}/{m['judgements']}"


def _stalled(m: dict[str, Any]) -> str:
    """The "Stalled" cell: episodes ended by the decision safety cap, of all episodes."""
    return f"{m['stalled']}/{m['episodes']}"


COUNTS = {"Stalled": _stalled, "Judge failed": _failed}  # count columns after the metrics


def _header(game: str, first: list[str], tokens: str) -> list[str]:
    """The column headings (``tokens``: how #Tokens(k) was counted, :mod:`.tokens`)."""
    section = get_game(game)
    titles = {
        **TITLES,
        "tokens_k": HEADINGS[tokens],
        "efficiency": section.efficiency_heading(),
        **dict(section.extra_metrics),
    }
    cols = list(first)
    for m in game_metrics(game):
        cols += [f"{titles[m]} Agent 1", f"{titles[m]} Agent 2"]
    for title in COUNTS:
        cols += [f"{title} Agent 1", f"{title} Agent 2"]
    return cols


def _cells(game: str, by_seat: dict[int, dict]) -> list[str]:
    out = []
    for m in game_metrics(game):
        out += [_cell(by_seat[s][m]) if s in by_seat else "—" for s in (1, 2)]
    for count in COUNTS.values():
        out += [count(by_seat[s]) if s in by_seat else "—" for s in (1, 2)]
    return out


def markdown(tables: dict, method: str, proxy_note: str | None, tokens: str = "engine") -> str:
    """Table 1 shape (one row per game) and Tables 6-7 shape (per task + Overall), as Markdown
    (``tokens``: the ``eval.tokens`` counting, named in the #Tokens(k) heading)."""
    parts = []
    proxy = ", offline proxy" if proxy_note else ""  # in every title, not only the note
    if proxy_note:
        parts.append(f"> **{proxy_note}**\n")
    for game, table in tables.items():
        section = get_game(game)
        parts.append(f"### {section.title}: overall (Table 1 shape{proxy})\n")
        parts.append(
            tabulate(
                [[method, *_cells(game, table[OVERALL])]],
                _header(game, ["Method"], tokens),
                tablefmt="github",
                disable_numparse=True,
            )
        )
        shape = f" (Table {section.paper_table} shape{proxy})" if section.paper_table else ""
        shape = shape or (f" ({proxy[2:]})" if proxy else "")
        parts.append(f"\n### {section.title}: per task{shape}\n")
        rows = [[task, method, *_cells(game, by_seat)] for task, by_seat in table.items()]
        parts.append(
            tabulate(
                rows,
                _header(game, ["Task", "Method"], tokens),
                tablefmt="github",
                disable_numparse=True,
            )
        )
        parts.append(_caveats(list(table[OVERALL].values())))
    return "\n".join(parts) + "\n"


def _caveats(overall: Sequence[dict[str, Any]]) -> str:
    """Lines under a game's tables that a reader must know before comparing rows (else empty):
    episodes the decision safety cap ended and failed judge calls, both left out of the means."""
    total = {k: sum(m[k] for m in overall) for k in ("episodes", "stalled", "judgements")}
    failed = sum(m["judge_failed"] for m in overall)
    lines = []
    if total["stalled"]:
        lines.append(
            f"_{total['stalled']} of {total['episodes']} episodes stalled (the decision safety cap "
            "ended them before success or the tick limit); they are left out of the step means "
            "and std._"
        )
    if failed:
        lines.append(
            f"_Judge failed on {failed} of {total['judgements']} window judgements "
            f"({failed / total['judgements']:.0%}); failed windows are left out of the affective "
            "scores (details in results.json)._"
        )
    return "".join(f"\n{line}\n" for line in lines)


def table_rows(tables: dict, method: str) -> list[dict[str, Any]]:
    """Flat rows (game, task, seat, metrics...) for CSV and JSON."""
    return [
        {"game": game, "task": task, "seat": f"Agent {seat}", "method": method, **m}
        for game, table in tables.items()
        for task, by_seat in table.items()
        for seat, m in by_seat.items()
    ]


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """``rows`` as a CSV (the first row's columns; empty when there are none), with
    formula-leading text neutralised (:func:`collabrl.records.csv_cell`); the JSON outputs keep
    the raw values."""
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    records.write_csv(path, rows, list(rows[0]))


def episode_rows(outcomes: Sequence[EpisodeOutcome]) -> list[dict[str, Any]]:
    """One flat row per episode (for episodes.csv)."""
    return [
        {
            "game": o.job.game,
            "task": o.job.task,
            "profile": o.job.profile_id,
            "player_type": o.job.player_type,
            "partner": o.partner,
            "seat": f"Agent {o.job.seat}",
            "seed": o.job.seed,
            "efficiency": o.efficiency,
            "efficiency_reward": round(o.efficiency_reward, 6),
            "success": o.record.summary.get("success"),
            "stalled": o.stalled,
            "decisions": o.decisions,
            "message_ratio": round(o.message_ratio, 4),
            "valid_rate": round(o.valid_rate, 4),
            "tokens_per_step_k": round(o.tokens_per_step_k, 4),
            "windows": len(o.windows),
            **{k: (None if v is None else round(v, 4)) for k, v in o.scores.items()},
            "team_size": o.job.size,
            "structure": o.job.structure,
            **(
                {"composition": "".join(o.job.composition)} if o.job.composition is not None else {}
            ),
            **{k: v for k, v in o.process.items() if k != "seats"},
        }
        for o in outcomes
    ]


def summary_table(tables: dict) -> str:
    """The short end-of-run summary: one line per game and seat."""
    rows = [
        [
            game,
            f"Agent {seat}",
            _cell(m["efficiency"]),
            _cell(m["std"]),
            _cell(m["tokens_k"]),
            *(_cell(m[d]) for d in (*DIMENSIONS, "affective")),
            _failed(m),
            _stalled(m),
            m["episodes"],
        ]
        for game, table in tables.items()
        for seat, m in table[OVERALL].items()
    ]
    head = [
        "game",
        "seat",
        "steps/score",
        "std",
        "tok(k)",
        "help",
        "trust",
        "empathy",
        "affective",
        "judge failed",
        "stalled",
        "episodes",
    ]
    return tabulate(rows, head, tablefmt="github", disable_numparse=True)
