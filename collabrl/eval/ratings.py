"""People's ratings of judged windows: validated, kept in one SQLite file, exported as CSV.

Every submission is appended with its wall-clock time and a sequence number, never changed or
deleted: a rater who rates a window again adds a row, and the latest row of a (rater, window)
pair is the one agreement counts (:func:`latest`). A rating gives each CB-Affective dimension a
whole number on the judges' window scale, 0-5 (5: nothing to deduct), and an optional comment.

Why SQLite (stdlib): one file a lab can copy and audit, writes that survive a killed server,
readers (``collabrl report agreement``) while the rating page runs. The file is created next to
the evaluation (``ratings.sqlite`` in its folder) unless ``--ratings`` names another; agreement
also reads the CSV this module writes (hand-made sets of ratings, ratings collected elsewhere).
"""

from __future__ import annotations

import csv
import re
import sqlite3
import time
from collections.abc import Collection, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from collabrl.errors import CollabrlError
from collabrl.eval.rated_windows import SCALE
from collabrl.records import csv_cell
from collabrl.rewards.judges import DIMENSIONS

DEFAULT_NAME = "ratings.sqlite"
RATER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
MAX_COMMENT = 2000
CONTEXT = ("game", "task", "profile", "seat", "seed", "decisions")
COLUMNS = ("seq", "time", "rater", "window", *CONTEXT, *DIMENSIONS, "comment")
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS ratings (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, t REAL NOT NULL, rater TEXT NOT NULL,
  window TEXT NOT NULL, {", ".join(f"{c} TEXT" for c in CONTEXT)},
  {", ".join(f"{d} INTEGER NOT NULL" for d in DIMENSIONS)}, comment TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS ratings_by_rater ON ratings (rater, window);
"""


def default_path(path: Path) -> Path:
    """Where the rating page keeps the ratings of the evaluation at ``path``: ``ratings.sqlite``
    in its folder (next to the file when ``path`` is a trajectories file)."""
    return (path.parent if path.is_file() else path) / DEFAULT_NAME


class RatingError(CollabrlError):
    """A submission that cannot be stored, with the reason a person can act on."""


@dataclass(frozen=True)
class Rating:
    rater: str
    window: str
    scores: dict[str, int]
    comment: str = ""
    t: float = 0.0
    seq: int = 0
    context: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        stamp = datetime.fromtimestamp(self.t, timezone.utc).isoformat(timespec="seconds")
        return {
            "seq": self.seq,
            "time": stamp,
            "rater": self.rater,
            "window": self.window,
            **{c: self.context.get(c) for c in CONTEXT},
            **self.scores,
            "comment": self.comment,
        }


def check_rater(rater: Any) -> str:
    if not isinstance(rater, str) or not rater.strip():
        raise RatingError("rater: missing; enter your rater id")
    rater = rater.strip()
    if not RATER.fullmatch(rater):
        raise RatingError(
            "rater: 1-64 letters, digits or . _ @ - (starting with a letter or digit)"
        )
    return rater


def check_score(dimension: str, value: Any) -> int:
    """A whole number on the scale; a number given as text ("4") is taken, 4.0 too."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in SCALE:
        raise RatingError(
            f"{dimension}: {repr(value)[:20]} is not a whole number from {SCALE[0]} to {SCALE[-1]}"
        )
    return value


def validate(payload: Any, known: Collection[str]) -> Rating:
    """A submission (``{rater, window, scores: {dimension: 0-5}, comment?}``) as a rating, or
    :class:`RatingError` naming the first problem: missing fields, an unknown window, a score
    off the scale, an unknown key."""
    if not isinstance(payload, dict):
        raise RatingError("the rating must be a JSON object {rater, window, scores, comment}")
    extra = set(payload) - {"rater", "window", "scores", "comment"}
    if extra:
        raise RatingError(f"unknown field(s): {', '.join(sorted(map(str, extra)))[:200]}")
    rater = check_rater(payload.get("rater"))
    window = payload.get("window")
    if not isinstance(window, str) or not window:
        raise RatingError("window: missing")
    if window not in known:
        raise RatingError(f"window {window[:80]!r}: no such judged window in this evaluation")
    scores = payload.get("scores")
    if not isinstance(scores, dict):
        raise RatingError(f"scores: missing; rate {', '.join(DIMENSIONS)}")
    missing = [d for d in DIMENSIONS if scores.get(d) in (None, "")]
    if missing:
        raise RatingError(f"scores: missing {', '.join(missing)}; every dimension needs a rating")
    unknown = set(scores) - set(DIMENSIONS)
    if unknown:
        raise RatingError(f"scores: unknown dimension(s) {', '.join(sorted(map(str, unknown)))}")
    comment = payload.get("comment") or ""
    if not isinstance(comment, str):
        raise RatingError("comment: must be text")
    if len(comment) > MAX_COMMENT:
        raise RatingError(f"comment: at most {MAX_COMMENT} characters")
    return Rating(rater, window, {d: check_score(d, scores[d]) for d in DIMENSIONS}, comment)


class RatingStore:
    """The ratings file: append-only, one connection per call (the page's few writes a minute
    need no pool, and a reader never holds the file)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise CollabrlError(f"{self.path}: is a folder; name the ratings file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(self._connect()) as db, db:
                db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise CollabrlError(
                f"{self.path}: not a usable ratings database ({exc}); name another with --ratings"
            ) from None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    def add(self, rating: Rating, context: dict[str, Any] | None = None) -> Rating:
        """Append ``rating`` (stamped now) and return it with its time and sequence number."""
        t = time.time()
        ctx = {c: (None if v is None else str(v)) for c, v in (context or {}).items()}
        values = [t, rating.rater, rating.window, *(ctx.get(c) for c in CONTEXT)]
        values += [rating.scores[d] for d in DIMENSIONS] + [rating.comment]
        columns = ["t", "rater", "window", *CONTEXT, *DIMENSIONS, "comment"]
        try:
            with closing(self._connect()) as db, db:
                cur = db.execute(
                    f"INSERT INTO ratings ({', '.join(columns)}) "
                    f"VALUES ({', '.join('?' * len(columns))})",
                    values,
                )
                seq = int(cur.lastrowid or 0)
        except sqlite3.Error as exc:
            raise CollabrlError(f"{self.path}: the rating was not stored ({exc})") from None
        return Rating(rating.rater, rating.window, rating.scores, rating.comment, t, seq, ctx)

    def all(self) -> list[Rating]:
        """Every submission, oldest first."""
        with closing(self._connect()) as db:
            db.row_factory = sqlite3.Row
            rows = db.execute("SELECT * FROM ratings ORDER BY seq").fetchall()
        return [
            Rating(
                r["rater"],
                r["window"],
                {d: int(r[d]) for d in DIMENSIONS},
                r["comment"],
                float(r["t"]),
                int(r["seq"]),
                {c: r[c] for c in CONTEXT},
            )
            for r in rows
        ]

    def of_rater(self, rater: str) -> dict[str, Rating]:
        """The rater's latest rating per window."""
        return {r.window: r for r in latest(self.all()) if r.rater == rater}


def latest(ratings: Iterable[Rating]) -> list[Rating]:
    """The last submission of each (rater, window), in order of first rating."""
    last: dict[tuple[str, str], Rating] = {}
    for r in sorted(ratings, key=lambda r: (r.t, r.seq)):
        last.pop((r.rater, r.window), None)
        last[(r.rater, r.window)] = r
    return list(last.values())


def write_csv(ratings: Iterable[Rating], out: IO[str]) -> None:
    """Every submission as CSV (``COLUMNS``; cells made safe for spreadsheets)."""
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS))
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in r.row().items()} for r in ratings)


def read_csv(path: Path) -> list[Rating]:
    """Ratings from a CSV with at least ``rater``, ``window`` and one column per dimension
    (``seq`` and ``time`` optional: without them, later rows are later ratings)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError) as exc:
        raise CollabrlError(f"{path}: cannot read ({exc})") from None
    out = []
    for n, row in enumerate(rows, start=2):
        try:
            missing = [c for c in ("rater", "window", *DIMENSIONS) if not row.get(c)]
            if missing:
                raise RatingError(f"missing {', '.join(missing)}")
            when = row.get("time") or ""
            t = datetime.fromisoformat(when).timestamp() if when else float(n)
            out.append(
                Rating(
                    check_rater(row["rater"]),
                    row["window"].strip(),
                    {d: check_score(d, row[d]) for d in DIMENSIONS},
                    row.get("comment") or "",
                    t,
                    int(row.get("seq") or n),
                    {c: row.get(c) for c in CONTEXT},
                )
            )
        except (RatingError, ValueError) as exc:
            raise CollabrlError(f"{path}, line {n}: {exc}") from None
    return out


def read_ratings(path: Path) -> list[Rating]:
    """Every submission in a ratings file: the SQLite store, or a CSV (``.csv``)."""
    path = Path(path)
    if not path.is_file():
        raise CollabrlError(f"{path}: no such ratings file (rate with `collabrl view DIR --rate`)")
    if path.suffix.lower() == ".csv":
        return read_csv(path)
    return RatingStore(path).all()
