"""The viewer's data: every trajectory file under a path, read into one list of episodes.

Files: ``trajectories.jsonl`` (``collabrl eval`` and ``collabrl serve``), ``rollouts.jsonl``
(training dumps) and ``episodes.jsonl`` (``collabrl play``). They are re-read when they change,
so a training run or a serve session can be watched while it writes; a torn last line (a writer
mid-append) is skipped until it is whole. Only files inside the viewed folder are read (a link
pointing outside it is left out), and a bad line or unreadable file is skipped with a warning the
page shows, so one damaged file never hides the others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collabrl.envs.registry import registered_games
from collabrl.errors import CollabrlError
from collabrl.records import parse_jsonl_skipping, read_text, without_torn_tail

NAMES = ("trajectories.jsonl", "rollouts.jsonl", "episodes.jsonl")
MAX_FILES = 500  # a folder with more is probably not a run folder
LIST_FIELDS = (
    "game",
    "task",
    "profile",
    "player_type",
    "seat",
    "seat_name",
    "seed",
    "iteration",
    "efficiency",
)


def find_files(path: Path) -> tuple[list[Path], list[str]]:
    """The trajectory files at ``path`` (a file, or a folder searched recursively), and a warning
    per file left out because it resolves outside the folder (a symbolic link)."""
    if path.is_file():
        return [path], []
    if not path.is_dir():
        raise CollabrlError(f"{path}: no such file or folder")
    root = path.resolve()
    found = sorted(p for name in NAMES for p in path.rglob(name) if ".old-" not in str(p))
    if len(found) > MAX_FILES:
        raise CollabrlError(f"{path}: more than {MAX_FILES} trajectory files; name a run folder")
    inside = [p for p in found if p.resolve().is_relative_to(root)]
    outside = [
        f"{p.relative_to(path)}: left out, it points outside the viewed folder"
        for p in found
        if p not in inside
    ]
    return inside, outside


def source_of(path: Path, record: dict[str, Any]) -> str:
    """eval, human, train or play."""
    if path.name == "rollouts.jsonl":
        return "train"
    if path.name == "episodes.jsonl":
        return "play"
    stamp = record.get("stamp") or {}
    return stamp.get("source", "eval") if isinstance(stamp, dict) else "eval"


def normalise(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """A record in the trajectory schema (``collabrl play`` episodes lack the job fields)."""
    source = source_of(path, record)
    if source == "play":
        record = _play_record(record)
    return {**record, "source": source}


def _play_record(record: dict[str, Any]) -> dict[str, Any]:
    """A ``collabrl play`` episode with the job fields its game's registry entry gives (none for
    a game that is not installed here, or a record from before episodes named their game)."""
    summary = record.get("summary", {})
    name = record.get("game")
    section = registered_games().get(name) if name else None
    return {
        "game": name,
        "task": section.task_of(summary) if section else None,
        "seed": record.get("seed"),
        "summary": summary,
        "turns": record.get("turns", []),
        "efficiency": summary.get(section.efficiency_metric) if section else None,
    }


def efficiency_metric(game: str | None) -> str | None:
    """The name of a game's efficiency column (household: steps, kitchen: score), for labels;
    None for a game not installed here."""
    section = registered_games().get(game) if game else None
    return section.efficiency_metric if section else None


def success(record: dict[str, Any]) -> bool | None:
    summary = record.get("summary") or {}
    return summary.get("success") if "success" in summary else None


@dataclass
class Library:
    """The episodes under one path, cached per file by (mtime, size)."""

    root: Path
    # path -> ((mtime, size), records, warnings)
    _cache: dict[Path, tuple[tuple[float, int], list[dict[str, Any]], list[str]]] = field(
        default_factory=dict
    )

    def episodes(self) -> list[dict[str, Any]]:
        return self.read()[0]

    def read(self) -> tuple[list[dict[str, Any]], list[str]]:
        """Every episode, and the warnings about what was skipped (files, lines)."""
        files, warnings = find_files(self.root)
        out: list[dict[str, Any]] = []
        for path in files:
            name = str(path.relative_to(self.root) if path != self.root else path.name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            key = (st.st_mtime, st.st_size)
            cached = self._cache.get(path)
            if cached is None or cached[0] != key:
                self._cache[path] = (key, *self._load(path, name))
            _, records, skipped = self._cache[path]
            warnings.extend(skipped)
            out.extend({**record, "file": name, "index": i} for i, record in enumerate(records))
        return out, warnings

    @staticmethod
    def _load(path: Path, name: str) -> tuple[list[dict[str, Any]], list[str]]:
        try:
            text = without_torn_tail(read_text(path))
        except CollabrlError as exc:
            return [], [f"{name}: left out: {exc}"]
        records, skipped = parse_jsonl_skipping(name, text)
        return [normalise(path, r) for r in records], skipped

    def listing(self) -> tuple[list[dict[str, Any]], list[str]]:
        """One light row per episode (no turns) for the list and its filters, and the warnings."""
        rows = []
        episodes, warnings = self.read()
        for n, r in enumerate(episodes):
            row = {k: r.get(k) for k in LIST_FIELDS}
            row.update(id=n, source=r["source"], file=r["file"], success=success(r))
            row["score"] = (r.get("summary") or {}).get("score")
            row["efficiency_metric"] = efficiency_metric(r.get("game"))
            row["decisions"] = len(r.get("turns", []))
            rows.append(row)
        return rows, warnings

    def episode(self, n: int) -> dict[str, Any]:
        episodes = self.episodes()
        if not 0 <= n < len(episodes):
            raise KeyError(n)
        return episodes[n]
