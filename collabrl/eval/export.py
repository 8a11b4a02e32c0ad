"""Write every evaluated trajectory with its judge verdicts: JSONL, and an HF dataset on disk.

Why both: JSONL is greppable and dependency-free; the HF dataset (``datasets.save_to_disk``) is
what analysis notebooks and later SFT/reward-model work load. Nested parts are JSON strings in the
dataset so both games share one Arrow schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from collabrl.eval.runner import EpisodeOutcome

HF_EXTRA_HINT = "pip install datasets (the 'datasets' package; add it to collabrl's eval extra)"


def trajectory(outcome: EpisodeOutcome, stamp: dict[str, Any]) -> dict[str, Any]:
    """One episode as a JSON-ready record: keys, result, turns, windows with rationales, scores."""
    job = outcome.job
    return {
        "game": job.game,
        "task": job.task,
        "profile": job.profile.id,
        "player_type": job.profile.player_type,
        "seat": f"Agent {job.seat}",
        "seat_name": outcome.seat_name,
        "seed": job.seed,
        "efficiency": outcome.efficiency,
        "message_ratio": outcome.message_ratio,
        "tokens_per_step_k": outcome.tokens_per_step_k,
        "scores": outcome.scores,
        "summary": outcome.record.summary,
        "turns": [asdict(t) for t in outcome.record.turns],
        "windows": [
            {
                "decisions": indices,
                "ticks": [outcome.views[i].tick for i in indices],
                "judgements": {d: asdict(j) for d, j in verdict.items()},
            }
            for indices, verdict in zip(outcome.windows, outcome.judgements, strict=True)
        ],
        "stamp": stamp,
    }


def write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def write_hf_dataset(path: Path, records: Sequence[dict[str, Any]]) -> str | None:
    """Save ``records`` with ``datasets``; returns a one-line warning instead when it is missing."""
    try:
        import datasets
    except ImportError:
        return f"warning: HF dataset not written ({path.name}): {HF_EXTRA_HINT}"
    nested = ("scores", "summary", "turns", "windows", "stamp")
    rows = [
        {
            k: json.dumps(v, ensure_ascii=False, default=str) if k in nested else v
            for k, v in r.items()
        }
        for r in records
    ]
    datasets.Dataset.from_list(rows).save_to_disk(str(path))
    return None
