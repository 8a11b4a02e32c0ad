"""Stage 3: an LLM turns each cluster into a candidate profile (Big Five, behaviour, type).

Why: a cluster is a behaviour pattern without words; the summariser names the personality and
play style it shows (CollabBench 4.1.2, E.1). Replies are parsed tolerantly; a "Fail", a failed
request or an unusable reply drops that cluster with the reason recorded, never the run.
Duplicate behaviour texts within a task are dropped too (the redundancy filter).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from pydantic import ValidationError

from collabrl.engines.types import Engine
from collabrl.envs.registry import get_game
from collabrl.pipeline.asking import ask_all, text_params
from collabrl.pipeline.config import PipelineConfig
from collabrl.pipeline.parsing import ReplyError, extract_object, is_fail
from collabrl.pipeline.prompting import game_context, load_prompt
from collabrl.pipeline.rundir import (
    CANDIDATES,
    CLUSTERS,
    SUMMARIES,
    TRAJECTORIES,
    WINDOWS,
    RunDir,
)
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.windows import Window
from collabrl.profiles.schema import PLAYER_TYPES, TRAITS, Profile

MAX_DESCRIPTORS = 8  # descriptor lines shown per cluster (most frequent first)
_LEVEL_WORDS = {
    "low": "low",
    "medium": "medium",
    "moderate": "medium",
    "mid": "medium",
    "average": "medium",
    "high": "high",
    "unknown": "unknown",
    "unclear": "unknown",
    "n/a": "unknown",
}


def summarise(
    run: RunDir, config: PipelineConfig, engine: Engine, *, progress: bool = True
) -> StageSummary:
    """Write ``summaries.jsonl`` (every cluster's outcome) and ``candidates.jsonl`` (profiles)."""
    name = config.run_name(run.root)
    clusters = run.read_jsonl(CLUSTERS)
    windows = {w["id"]: Window.from_dict(w) for w in run.read_jsonl(WINDOWS)}
    personas = {t["source"]: t["persona"] for t in run.read_jsonl(TRAJECTORIES)}
    prompt = load_prompt("summarise")
    prompts = [
        summary_prompt(c, windows, personas, config.summarise.samples, config.seed)
        for c in clusters
    ]
    params = text_params(config.summarise.max_new_tokens, seed=config.seed)
    results = ask_all(engine, prompts, params, desc="summarise", progress=progress)
    outcomes, profiles = [], []
    seen: dict[tuple[str, str], str] = {}
    for c, result in zip(clusters, results, strict=True):
        outcome: dict[str, Any] = {
            "cluster": c["id"],
            "game": c["game"],
            "task": c["task"],
            "prompt_version": prompt.version,
            "reply": result.text,
        }
        try:
            profile = _read_reply(result.error, result.text, c, name, config.summarise.split)
            key = (profile.task, " ".join(profile.behavior.lower().split()))
            if key in seen:
                raise ReplyError(f"duplicate behaviour (same as {seen[key]})")
            seen[key] = profile.id
        except ReplyError as err:
            outcome.update(status="dropped", reason=str(err))
        else:
            outcome.update(status="kept", profile=profile.id)
            profiles.append(profile)
        outcomes.append(outcome)
    files = [
        run.write_jsonl(SUMMARIES, outcomes),
        run.write_jsonl(CANDIDATES, (p.model_dump(mode="json") for p in profiles)),
    ]
    summary = StageSummary("summarise", files=[str(f) for f in files])
    summary.add("clusters", len(clusters))
    summary.add("candidate profiles", len(profiles))
    reasons = Counter(_reason_kind(o["reason"]) for o in outcomes if o["status"] == "dropped")
    for reason, count in sorted(reasons.items()):
        summary.add(f"dropped: {reason}", count)
    return summary


def summary_prompt(
    cluster: dict[str, Any],
    windows: dict[str, Window],
    personas: dict[str, str],
    samples: int,
    seed: int,
) -> str:
    """The summariser prompt for one cluster: descriptors behind it and sampled windows."""
    rng = random.Random(f"{seed}-{cluster['id']}")
    ids = sorted(cluster["windows"])
    chosen = sorted(rng.sample(ids, min(samples, len(ids))))
    shown = list(cluster["sources"].items())[:MAX_DESCRIPTORS]
    descriptors = "\n".join(f"- [{n}] {personas.get(s, s)}" for s, n in shown)
    body = "\n\n".join(f"Snippet {i}:\n{windows[w].prompt_text()}" for i, w in enumerate(chosen, 1))
    return load_prompt("summarise").render(
        game_context=game_context(cluster["game"]),
        window_size=str(len(windows[chosen[0]].steps)),
        descriptors=descriptors,
        windows=body,
    )


def _read_reply(
    error: str | None, text: str, cluster: dict[str, Any], run_name: str, split: str
) -> Profile:
    if error:
        raise ReplyError(f"request failed: {error}")
    if is_fail(text):
        raise ReplyError("summariser answered Fail")
    obj = extract_object(text)
    levels = obj.get("big_five")
    if not isinstance(levels, dict):
        raise ReplyError("big_five missing or not an object")
    big_five = {t: _level(t, levels.get(t)) for t in TRAITS}
    behavior = " ".join(str(obj.get("behavior", "")).split())
    player_type = (
        str(obj.get("player_type", "")).strip().lower().replace(" ", "_").replace("-", "_")
    )
    if player_type not in PLAYER_TYPES:
        raise ReplyError(f"player_type not recognised ({obj.get('player_type')!r})")
    game, task = cluster["game"], cluster["task"]
    if split == "auto":
        section = get_game(game)
        only_test = task in section.tasks("test") and task not in section.tasks("train")
        split = "test" if only_test else "train"
    try:
        return Profile(
            id=f"{run_name}-{cluster['id']}",
            game=game,
            task=task,
            big_five=big_five,
            behavior=behavior,
            player_type=player_type,
            split=split,
            provenance=f"pipeline:{run_name}",
        )
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "profile"
        raise ReplyError(f"invalid profile ({where}: {first['msg']})") from None


def _level(trait: str, value: object) -> str:
    level = _LEVEL_WORDS.get(str(value).strip().lower()) if value is not None else None
    if level is None:
        raise ReplyError(f"big_five.{trait} not low/medium/high/unknown ({value!r})")
    return level


def _reason_kind(reason: str) -> str:
    """Group drop reasons for the summary table (details stay in summaries.jsonl)."""
    return reason.split(" (")[0].split(":")[0]
