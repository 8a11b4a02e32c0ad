"""The judged windows of recorded evaluations, as people rate them and as agreement reads them.

A window is the one the CB-Affective judges rated: K consecutive decisions of the evaluated seat
(``windows`` of a ``trajectories.jsonl`` record: decision indices, their ticks, one verdict per
dimension). Its id names the trajectory by content, not by file or position:
``<episode key>:<first>-<last decision>``, the episode key a hash of the job (game, task,
profile, seat, seed) and every turn's reply. So a rating stays attached to the interaction it
rated when the folder is copied or the file reordered, and the same recorded trajectories judged
again by another judge (Table 14's rows) carry the same window ids; a different trajectory of the
same job never does.

What a rater is shown (:func:`window_content`) is the interaction alone, as the evaluation
judges see it (no partner profile, paper E.4) and never the judge's verdict: the turns of every
seat since the evaluated seat's decision before the window up to the window's last decision,
the window's own decisions with their reasoning, message, action and the prompt the seat saw.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.records import parse_jsonl_skipping, read_text, without_torn_tail
from collabrl.rewards.judges import DIMENSIONS

SCALE = (0, 1, 2, 3, 4, 5)
"""The judges' window scale: s_w = max(0, 5 - V_w), whole points (deductions are 1-3 each)."""
TOP = 5
TRAJECTORIES = "trajectories.jsonl"
MAX_FILES = 500


@dataclass(frozen=True)
class JudgedWindow:
    """One judged window of one recorded episode."""

    id: str
    episode: str  # the episode key
    record: int  # index of the record in the list it was read from
    decisions: tuple[int, ...]
    ticks: tuple[int, ...]
    # dimension -> the judge's summed deductions V_w (None: the judge call failed for it)
    judge_deductions: dict[str, float | None]
    judge: str  # the judge's name as recorded (e.g. heuristic-proxy, an LLM's name)

    def judge_score(self, dimension: str) -> float | None:
        """s_w = max(0, 5 - V_w) for ``dimension`` (None: the judge call failed)."""
        v = self.judge_deductions.get(dimension)
        return None if v is None else max(0.0, TOP - v)

    def describe(self, record: dict[str, Any]) -> dict[str, Any]:
        """The job and place of the window, for lists and exports (no verdict)."""
        return {
            "window": self.id,
            "game": record.get("game"),
            "task": record.get("task"),
            "profile": record.get("profile"),
            "seat": record.get("seat"),
            "seed": record.get("seed"),
            "decisions": f"{self.decisions[0]}-{self.decisions[-1]}",
            "ticks": f"{self.ticks[0]}-{self.ticks[-1]}" if self.ticks else "",
        }


def episode_key(record: dict[str, Any]) -> str:
    """A short content hash of one episode: its job and every turn's seat, tick and reply."""
    job = {k: record.get(k) for k in ("game", "task", "profile", "seat", "seed")}
    turns = [
        [t.get("seat"), t.get("tick"), t.get("response", t.get("action"))]
        for t in record.get("turns") or ()
    ]
    text = json.dumps([job, turns], sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def window_id(key: str, decisions: Sequence[int]) -> str:
    return f"{key}:{decisions[0]}-{decisions[-1]}"


def deduction(verdict: dict[str, Any] | None) -> float | None:
    """V_w, the summed deductions of a recorded verdict; None for a failed or missing one."""
    if not verdict or verdict.get("error") is not None:
        return None
    return float(sum(float(v.get("deduction", 0)) for v in verdict.get("violations") or ()))


def windows_of(records: Sequence[dict[str, Any]]) -> list[JudgedWindow]:
    """Every judged window of ``records`` in order (records without windows add none; a window
    seen before, the same episode in two files, is kept once)."""
    out: list[JudgedWindow] = []
    seen: set[str] = set()
    for n, record in enumerate(records):
        windows = record.get("windows") or ()
        if not windows:
            continue
        key = episode_key(record)
        for w in windows:
            decisions = tuple(int(d) for d in w.get("decisions") or ())
            if not decisions:
                continue
            wid = window_id(key, decisions)
            if wid in seen:
                continue
            seen.add(wid)
            verdicts = w.get("judgements") or {}
            names = [v.get("judge") for v in verdicts.values() if isinstance(v, dict)]
            out.append(
                JudgedWindow(
                    id=wid,
                    episode=key,
                    record=n,
                    decisions=decisions,
                    ticks=tuple(int(t) for t in w.get("ticks") or ()),
                    judge_deductions={d: deduction(verdicts.get(d)) for d in DIMENSIONS},
                    judge=str(next((x for x in names if x), None) or _stamp_judge(record)),
                )
            )
    return out


def _stamp_judge(record: dict[str, Any]) -> str:
    stamp = record.get("stamp")
    return str(stamp.get("judge", "judge")) if isinstance(stamp, dict) else "judge"


def seat_turns(record: dict[str, Any]) -> list[int]:
    """Indices into ``record["turns"]`` of the evaluated seat's decisions, in order (decision
    ``i`` of a window is ``turns[seat_turns(record)[i]]``)."""
    me = record.get("seat_name")
    return [i for i, t in enumerate(record.get("turns") or ()) if t.get("seat") == me]


def window_content(record: dict[str, Any], window: JudgedWindow) -> dict[str, Any]:
    """What a rater sees of ``window``: the job (no profile text), and every turn from just after
    the seat's previous decision to the window's last decision, the window's own marked."""
    mine = seat_turns(record)
    turns = record.get("turns") or []
    if window.decisions[-1] >= len(mine):
        raise CollabrlError(f"window {window.id}: the record has only {len(mine)} decisions")
    first = window.decisions[0]
    start = mine[first - 1] + 1 if first > 0 else 0
    end = mine[window.decisions[-1]]
    judged = {mine[d] for d in window.decisions}
    shown = []
    for i in range(start, end + 1):
        t = turns[i]
        own = i in judged
        shown.append(
            {
                "tick": t.get("tick"),
                "seat": t.get("seat"),
                "judged": own,
                "think": t.get("think", "") if own else "",
                "message": t.get("message", ""),
                "action": t.get("action"),
                "valid": t.get("valid", True),
                "observation": (t.get("observation") or "") if own else "",
            }
        )
    return {
        **window.describe(record),
        "seat_name": record.get("seat_name"),
        "turns": shown,
    }


def trajectory_files(path: Path) -> list[Path]:
    """The ``trajectories.jsonl`` files of an evaluation folder (or the file itself); aside
    copies (``.old-``) are left out."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CollabrlError(f"{path}: no such file or folder")
    found = sorted(p for p in path.rglob(TRAJECTORIES) if ".old-" not in str(p))
    if len(found) > MAX_FILES:
        raise CollabrlError(f"{path}: more than {MAX_FILES} trajectory files; name one evaluation")
    return found


def read_evaluation(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record of the evaluation at ``path`` and warnings about skipped lines."""
    records: list[dict[str, Any]] = []
    warnings: list[str] = []
    for file in trajectory_files(path):
        text = without_torn_tail(read_text(file))
        parsed, skipped = parse_jsonl_skipping(str(file), text)
        records += parsed
        warnings += skipped
    return records, warnings


def judged_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("windows")]
