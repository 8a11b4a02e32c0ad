"""The job journal of ``collabrl eval``: each finished job appended durably, so a killed
evaluation resumes from the jobs it had finished.

Why: an evaluation with an LLM policy or judge runs for hours; without a record per job, a crash
near the end loses every episode and judge call. ``eval_jobs.jsonl`` in the output folder holds:

- a header: the settings hashes of the evaluation (:func:`collabrl.records.settings_hashes` of
  :func:`collabrl.eval.protocol.resume_settings`); a journal of other settings is refused;
- a ``played`` record per job when its episode ends (the episode, the evaluated seat's decisions
  in context, its efficiency, tokens and process metrics);
- a ``judged`` record per job when its last window is judged (the windows and their verdicts).

Each record is one line, flushed and fsynced before the next job is reported done. A last line
torn by a kill is dropped on reading (that job is redone); any other bad line is an error. Scores
and tables are recomputed from the records, so a resumed run writes what an uninterrupted one
would (except with a local model and ``eval.workers`` above 1, whose draws depend on which jobs
share a decoding round: there the remaining jobs are fresh draws). The views' structured game state is not kept: the window judges never read it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from collabrl.episode import EpisodeRecord, Turn
from collabrl.errors import CollabrlError
from collabrl.eval.runner import EpisodeOutcome, Job
from collabrl.records import jsonl_line, read_jsonl, settings_hashes, write_jsonl
from collabrl.rewards.judges import StepView, WindowJudgement
from collabrl.rewards.judges.records import Violation

JOURNAL = "eval_jobs.jsonl"
"""The journal's file name in the evaluation's output folder."""

REDO = "pass --overwrite to move the folder aside and start afresh"

_PLAYED = (
    "seat_name",
    "efficiency",
    "tokens_per_step_k",
    "stalled",
    "efficiency_reward",
    "process",
    "observations",
)
"""The plain fields of a played outcome (the episode record and views are converted apart)."""

_VIEW_TUPLES = ("heard", "events", "own_messages_before")
"""StepView fields that are tuples (JSON gives lists back)."""


def job_key(job: Job) -> str:
    """A job's identity as text: its game, task, profiles, seat, seed and team cell (with the
    composition, in a composition grid)."""
    team = [p.id if p is not None else None for p in job.team]
    cell = [job.game, job.task, job.profile_id, job.seat, job.seed, job.size, job.structure, team]
    if job.composition is not None:  # a composition grid's cell (older keys stay as they were)
        cell.append(list(job.composition))
    return json.dumps(cell)


class Journal:
    """The journal of one evaluation: what earlier runs recorded, and thread-safe appends.

    Opening reads an existing journal (checking its settings) and rewrites it without a torn
    tail; a new journal is created at the first record, so a run that fails before any job
    leaves none.
    """

    def __init__(self, path: Path, settings: dict[str, Any], jobs: Sequence[Job]) -> None:
        self.path = path
        self.hashes = settings_hashes(settings)
        self._jobs = {job_key(job): job for job in jobs}
        self.outcomes: dict[str, EpisodeOutcome] = {}  # played, by job key
        self.judged: set[str] = set()
        self._lock = threading.Lock()
        if path.exists():
            write_jsonl(path, [self._header(), *self._read()])

    def played(self, job: Job) -> EpisodeOutcome | None:
        """The recorded outcome of ``job`` (judged or not), or None when it must be played."""
        return self.outcomes.get(job_key(job))

    def is_judged(self, job: Job) -> bool:
        """Whether ``job``'s windows were judged and recorded."""
        return job_key(job) in self.judged

    def record_played(self, outcome: EpisodeOutcome) -> None:
        """Append the ``played`` record of a finished episode."""
        self._append({"job": json.loads(job_key(outcome.job)), "played": _played(outcome)})

    def record_judged(self, outcome: EpisodeOutcome) -> None:
        """Append the ``judged`` record of an episode whose every window has its verdicts."""
        judged = {
            "windows": outcome.windows,
            "judgements": [{d: asdict(j) for d, j in w.items()} for w in outcome.judgements],
        }
        self._append({"job": json.loads(job_key(outcome.job)), "judged": judged})

    def _append(self, record: dict[str, Any]) -> None:
        """One line, on disk before returning (fsync): the job counts as done only then."""
        with self._lock:
            new = not self.path.exists()
            if new:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                if new:
                    f.write(jsonl_line(self._header()) + "\n")
                f.write(jsonl_line(record) + "\n")
                f.flush()
                os.fsync(f.fileno())

    def _header(self) -> dict[str, Any]:
        return {"journal": "collabrl eval jobs", "settings_sha256": self.hashes}

    def _read(self) -> list[dict[str, Any]]:
        """The records of the existing journal (a torn last line dropped), loaded into
        ``outcomes`` and ``judged``; a journal of other settings or a bad record is an error."""
        records = read_jsonl(self.path, torn_tail=True)
        if not records:
            return []
        self._check_header(records[0])
        for line, record in enumerate(records[1:], 2):
            try:
                self._load(record)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise CollabrlError(
                    f"{self.path}:{line}: not a job record of this evaluation "
                    f"({type(exc).__name__}: {str(exc)[:80]}); {REDO}"
                ) from None
        return records[1:]

    def _check_header(self, header: dict[str, Any]) -> None:
        old = header.get("settings_sha256")
        if not isinstance(old, dict):
            raise CollabrlError(f"{self.path}:1: not a collabrl eval journal; {REDO}")
        differ = sorted(
            k for k in old.keys() | self.hashes.keys() if old.get(k) != self.hashes.get(k)
        )
        if differ:
            raise CollabrlError(
                f"{self.path} records an evaluation with other settings (differing: "
                f"{', '.join(differ)}); rerun with its settings to resume it, or {REDO}"
            )

    def _load(self, record: dict[str, Any]) -> None:
        key = json.dumps(record["job"])
        job = self._jobs[key]
        if "played" in record:
            self.outcomes[key] = _outcome(job, record["played"])
            self.judged.discard(key)
        else:
            outcome = self.outcomes[key]  # a verdict without its episode: a KeyError
            outcome.windows = [list(w) for w in record["judged"]["windows"]]
            outcome.judgements = [
                {d: _judgement(j) for d, j in w.items()} for w in record["judged"]["judgements"]
            ]
            if len(outcome.windows) != len(outcome.judgements):
                raise ValueError("windows and judgements differ in number")
            self.judged.add(key)


def _played(outcome: EpisodeOutcome) -> dict[str, Any]:
    """The JSON of a played outcome (no windows or verdicts yet; scores are recomputed)."""
    views = [
        {f.name: getattr(v, f.name) for f in fields(StepView) if f.name != "state"}
        for v in outcome.views
    ]
    plain = {name: getattr(outcome, name) for name in _PLAYED}
    return {**plain, "partner": outcome.partner, "record": outcome.record.to_dict(), "views": views}


def _outcome(job: Job, data: dict[str, Any]) -> EpisodeOutcome:
    """A played outcome rebuilt from its record."""
    record = data["record"]
    turns = [Turn(**t) for t in record["turns"]]
    views = [StepView(**{**v, **{k: _tuples(v[k]) for k in _VIEW_TUPLES}}) for v in data["views"]]
    return EpisodeOutcome(
        job=job,
        record=EpisodeRecord(**{**record, "turns": turns}),
        views=views,
        **{name: data[name] for name in _PLAYED},
        partner=data.get("partner"),  # absent from journals written before it was recorded
    )


def _judgement(data: dict[str, Any]) -> WindowJudgement:
    return WindowJudgement(**{**data, "violations": [Violation(**v) for v in data["violations"]]})


def _tuples(value: Any) -> Any:
    """Lists (nested too) as tuples again."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
