"""The real-data check of the DiscoveryBench loader, scorer, reference analyst and judge.

collabrl ships no DiscoveryBench data, so its tests use small hand-made folders in the
benchmark's format; a maintainer who has the real benchmark runs this script on it:

    python benchmarks/discoverybench_check.py --root PATH/discoverybench/real/test \
        [--answer-key PATH/eval/answer_key_real.csv] [--domains archaeology]

(``--answer-key`` defaults to the published layout's, found from ``--root``.) Each check counts
its passes and prints the first failures; the script exits 1 when any check fails:

- **cells**: every cell of every CSV read as the CSV means it: a column whose written cells are
  all numbers (a decimal comma or point, an exponent) holds those numbers, any other column the
  text as written, an empty cell is missing (the CSV re-read here with the ``csv`` module);
- **gold**: every gold hypothesis scores 1.0 against itself, under both scorers;
- **perturbations**: every perturbation of every gold that applies to it
  (:mod:`collabrl.envs.analysis.counterclaims`) scores below 0.9;
- **play**: the reference analyst (two seats) plays every task to a submission, with no wasted
  cell and a sentence that fits the editor; how often it reaches the gold by analysis is reported
  (a task gets steps where :mod:`collabrl.envs.analysis.real_workflows` reads its query);
- **judge**: the offline trace judge (``eval.trace_judge=rules``) reads every played episode: a
  derived workflow step by step, DiscoveryBench's free-text one by the kinds of analysis it names
  (:mod:`collabrl.envs.analysis.free_text_workflow`); the mean scores of each are reported.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from collabrl.envs.analysis.counterclaims import counterclaims
from collabrl.envs.analysis.discoverybench import load_discoverybench
from collabrl.envs.analysis.expert import AnalysisExpert
from collabrl.envs.analysis.game import MAX_ARGUMENT
from collabrl.envs.analysis.language import is_step
from collabrl.envs.analysis.schema import AnalysisTask, Cell, Table
from collabrl.envs.analysis.scoring import SCORERS, score_hypothesis
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, load_tasks
from collabrl.envs.analysis.workflow import UnreadableWorkflow, judge_trace
from collabrl.episode import play_episode
from collabrl.records import read_text

PERTURBED_BELOW = 0.9
MISSING = frozenset(("", "NA", "N/A", "n/a", "NaN", "nan", "-nan", "null", "NULL", "None", "#N/A"))
"""Cells pandas reads as missing by default (the loader's reader)."""
SHOWN = 5  # failures printed per check


class Check:
    """One check's tally: how many items passed and the first failures."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.passed = 0
        self.failures: list[str] = []

    def tally(self, ok: bool, what: str) -> None:
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)

    def line(self) -> str:
        total = self.passed + len(self.failures)
        head = f"{self.name}: {self.passed}/{total} pass"
        return "\n  ".join([head, *self.failures[:SHOWN]])


def written_cells(text: str) -> list[list[str]]:
    """A CSV's columns as written (header dropped)."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return [list(column) for column in zip(*rows[1:], strict=True)] if len(rows) > 1 else []


def meant(column: list[str]) -> list[Cell]:
    """What a CSV column's cells mean: numbers when every written cell is one, else text."""
    present = [c.strip() for c in column if c.strip() not in MISSING]
    numeric = bool(present) and all(_number(c) is not None for c in present)
    return [None if c.strip() in MISSING else (_number(c) if numeric else c) for c in column]


def _number(text: str) -> float | None:
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _same(read: Cell, expected: Cell) -> bool:
    if expected is None or isinstance(expected, str):
        return read == expected or (isinstance(read, int | float) and str(read) == expected)
    return isinstance(read, int | float) and math.isclose(read, expected, rel_tol=1e-12)


def check_cells(tasks: Iterable[AnalysisTask], folder_of: dict[str, Path]) -> Check:
    """One pass per table column whose every cell is read as the CSV means it."""
    check = Check("cells (table columns read as written)")
    seen: set[int] = set()
    for task in tasks:
        for table in task.tables:
            if id(table) in seen:
                continue
            seen.add(id(table))
            path = _csv_of(table, folder_of[task.name])
            columns = written_cells(read_text(path))
            for index, column in enumerate(table.columns):
                read = [row[index] for row in table.rows]
                bad = [
                    (r, e) for r, e in zip(read, meant(columns[index]), strict=True)
                    if not _same(r, e)
                ]  # fmt: skip
                where = f"{path.name}:{column.name}: {len(bad)} cells differ, e.g. {bad[:1]}"
                check.tally(not bad, where)
    return check


def _csv_of(table: Table, folder: Path) -> Path:
    """The CSV a table was read from (its name is the file's, made an identifier)."""
    from collabrl.envs.analysis.discoverybench import identifier

    return next(p for p in folder.glob("*.csv") if identifier(p.stem, "table") == table.name)


def check_gold(tasks: Iterable[AnalysisTask]) -> Check:
    check = Check("gold (scores 1.0 against itself, both scorers)")
    for task in tasks:
        scores = [score_hypothesis(task.gold, task.gold, s).hms for s in SCORERS]
        check.tally(all(s == 1.0 for s in scores), f"{task.name}: {scores}")
    return check


def check_perturbations(tasks: Iterable[AnalysisTask]) -> tuple[Check, dict[str, int]]:
    """One pass per perturbation scoring below :data:`PERTURBED_BELOW`; also how many of each
    kind applied."""
    check = Check(f"perturbations (score below {PERTURBED_BELOW})")
    applied: dict[str, int] = {}
    for task in tasks:
        for name, changed in counterclaims(task.gold).items():
            applied[name] = applied.get(name, 0) + 1
            hms = score_hypothesis(changed, task.gold).hms
            check.tally(hms < PERTURBED_BELOW, f"{task.name} {name}: {hms} ({changed.sentence})")
    return check, applied


def check_play(
    tasks: Iterable[AnalysisTask],
) -> tuple[Check, Check, list[float], list[dict[str, float | None]]]:
    """The reference analyst's episodes: played to a clean submission; read by the trace judge
    (its scores per task, empty where it could not read the episode)."""
    play = Check("play (reference analyst submits, no wasted cell, sentence fits)")
    judge = Check("judge (offline trace judge reads the episode)")
    scores: list[float] = []
    judgements: list[dict[str, float | None]] = []
    for task in tasks:
        game = AnalysisSection(task=task.name).make_game()
        summary = play_episode(game, {"Ada": AnalysisExpert(), "Bea": AnalysisExpert()}, 0).summary
        wasted = sum(bool(e["wasted"]) for e in summary["trace"])
        fits = len(summary["hypothesis"]["sentence"]) <= MAX_ARGUMENT
        ok = summary["outcome"] == "submitted" and not wasted and fits
        play.tally(ok, f"{task.name}: {summary['outcome']}, {wasted} wasted, fits {fits}")
        scores.append(float(summary["score"]))
        try:
            judged = judge_trace(summary).as_dict()
        except UnreadableWorkflow as err:
            judge.tally(False, f"{task.name}: {err}")
            judgements.append({})
            continue
        judge.tally(
            all(v is None or 0 <= v <= 1 for v in judged.values()), f"{task.name}: {judged}"
        )
        judgements.append(judged)
    return play, judge, scores, judgements


def judged_means(judgements: list[dict[str, float | None]], label: str) -> str:
    """``label: n episodes, coverage C, support S`` (means over the episodes judged)."""
    read = [j for j in judgements if j]
    parts = [f"{label}: {len(read)} judged"]
    for key in ("workflow_coverage", "hypothesis_support"):
        values = [float(v) for j in read if (v := j[key]) is not None]
        if values:
            parts.append(f"mean {key} {sum(values) / len(values):.2f}")
    return ", ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="<repo>/discoverybench/real/test")
    parser.add_argument("--answer-key", type=Path, default=None)
    parser.add_argument("--domains", nargs="+", default=["archaeology"])
    args = parser.parse_args()
    tasks = load_discoverybench(args.root, args.answer_key, domains=args.domains)
    print(f"loaded {len(tasks)} tasks from {args.root} ({', '.join(args.domains)})")
    folder_of = {t.name: args.root / t.domain for t in tasks}
    checks = [check_cells(tasks, folder_of), check_gold(tasks)]
    perturbed, applied = check_perturbations(tasks)
    checks.append(perturbed)
    os.environ[DISCOVERYBENCH_ENV] = str(args.root)
    load_tasks.cache_clear()
    names = {t.name for t in tasks}
    played = [t for t in load_tasks() if t.name in names]
    play, judge, scores, judgements = check_play(played)
    checks += [play, judge]
    for check in checks:
        print(check.line())
    print("perturbations applied: " + ", ".join(f"{k} {v}" for k, v in applied.items()))
    derived = [is_step(t.workflow[0].step) for t in played]
    for flag, label in ((True, "derived workflows"), (False, "free-text workflows")):
        chosen = [j for j, d in zip(judgements, derived, strict=True) if d is flag]
        print(f"trace judge on the reference analyst, {judged_means(chosen, label)}")
    reached = sum(s >= PERTURBED_BELOW and d for s, d in zip(scores, derived, strict=True))
    print(
        f"reference analyst: a workflow derived for {sum(derived)}/{len(played)} tasks; HMS >= "
        f"{PERTURBED_BELOW} reached by analysis on {reached}/{len(played)} (the others keep "
        "DiscoveryBench's free-text workflow, and their analyst words the gold as written)"
    )
    return 1 if any(c.failures for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
