"""Every evaluated trajectory with its judge verdicts, as one record (written by
:mod:`collabrl.records` as JSONL and an HF dataset; ``NESTED`` parts are JSON strings there)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from collabrl.eval.runner import EpisodeOutcome

NESTED = ("scores", "summary", "turns", "windows", "stamp", "process")
HF_NESTED = (*NESTED, "frames", "players")  # plus a human session's or recorded trial's parts


def trajectory(outcome: EpisodeOutcome, stamp: dict[str, Any]) -> dict[str, Any]:
    """One episode as a JSON-ready record: keys, result, turns, windows with rationales, scores."""
    job = outcome.job
    return {
        "game": job.game,
        "task": job.task,
        "profile": job.profile_id,
        "player_type": job.player_type,
        "partner": outcome.partner,
        "seat": f"Agent {job.seat}",
        "seat_name": outcome.seat_name,
        "seed": job.seed,
        "efficiency": outcome.efficiency,
        "message_ratio": outcome.message_ratio,
        "tokens_per_step_k": outcome.tokens_per_step_k,
        "scores": outcome.scores,
        "process": outcome.process,
        "summary": outcome.record.summary,
        "turns": _turns(outcome),
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


def _turns(outcome: EpisodeOutcome) -> list[dict[str, Any]]:
    """Every seat's turns, each with the observation text its player was shown (its prompt)."""
    shown = {seat: iter(texts) for seat, texts in outcome.observations.items()}
    return [
        {**asdict(t), "observation": next(shown.get(t.seat, iter(())), None)}
        for t in outcome.record.turns
    ]
