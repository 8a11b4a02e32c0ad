"""The export's ``checks.csv``: every graded answer a participant gave, one row each.

- a comprehension quiz's attempt (a survey page with a bounded ``retry:``): the attempt's number,
  whether it passed and the page it led to (``quiz_attempt`` events);
- an attention check (a question of kind ``attention``): the answer given, the one expected and
  whether they matched (``attention_check`` events).

A researcher screens participants out of the analysis from this one file; the pretest shows the
same counts (:func:`check_counts`) before anyone is recruited. Read from the event log, as the
rest of the export is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collabrl.study.store.db import StudyDB

CHECK_EVENTS = ("quiz_attempt", "attention_check")


def check_rows(db: StudyDB, stamp: Callable[[float], str]) -> list[dict[str, Any]]:
    """One row per quiz attempt or attention check, in log order."""
    found = sorted((e for k in CHECK_EVENTS for e in db.events(k)), key=lambda e: e["seq"])
    rows = []
    for e in found:
        data = e["data"]
        quiz = e["kind"] == "quiz_attempt"
        rows.append(
            {
                "time": stamp(e["t"]),
                "participant": e["pid"],
                "check": "quiz" if quiz else "attention",
                "item": e["node"] if quiz else f"{e['node']}.{data['question']}",
                "passed": data["passed"],
                "attempt": data["attempt"] if quiz else "",
                "led_to": (data["to"] or "") if quiz else "",
                "answer": "" if quiz else data["answer"],
                "expected": "" if quiz else data["expected"],
            }
        )
    return rows


def check_counts(db: StudyDB) -> dict[str, dict[str, int]]:
    """Per quiz page or attention question, how many attempts passed and failed."""
    counts: dict[str, dict[str, int]] = {}
    for row in check_rows(db, str):
        item = counts.setdefault(f"{row['check']} {row['item']}", {"passed": 0, "failed": 0})
        item["passed" if row["passed"] else "failed"] += 1
    return counts
