"""Stage 4: interaction-based filtering. Play each candidate, judge its windows, keep the best.

Why: a profile is high-fidelity only if a player prompted with it reasons in character and acts
on its reasoning (CollabBench 4.1.2). Each candidate plays ``filter.games`` episodes (|Omega|),
every window is judged on both dimensions, Eq. (1) scores them, S_ALL = beta * S_PR +
(1 - beta) * S_RA ranks them and the top ``filter.top_k`` per task are kept. Judge failures are
recorded and left out of the scores (counted in the summary), never scored as 0.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean
from typing import Any

from pydantic import ValidationError
from tqdm import tqdm

from collabrl.engines.types import Engine
from collabrl.errors import first_problem
from collabrl.pipeline.asking import ask_all, text_params
from collabrl.pipeline.config import PipelineConfig, PipelineError
from collabrl.pipeline.consistency import combined, profile_score
from collabrl.pipeline.judge import (
    DIMENSIONS,
    judge_prompt,
    prompt_version,
    read_judgement,
)
from collabrl.pipeline.parsing import ReplyError
from collabrl.pipeline.players import PlayerFactory, play_trajectory
from collabrl.pipeline.rundir import (
    CANDIDATES,
    FILTER_TRAJECTORIES,
    JUDGEMENTS,
    PROFILES,
    SCORES,
    RunDir,
)
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.windows import Window, segment
from collabrl.profiles.schema import Profile


def read_candidates(run: RunDir) -> list[Profile]:
    """The candidate profiles of stage 3 (an empty file is allowed: every cluster was dropped)."""
    out = []
    for n, record in enumerate(run.read_jsonl(CANDIDATES), 1):
        try:
            out.append(Profile.model_validate(record))
        except ValidationError as err:
            raise PipelineError(  # one line: pydantic's own text spans lines and echoes input
                f"{run.path(CANDIDATES)}: record {n} is not a profile: {first_problem(err)}"
            ) from None
    return out


def filter_profiles(
    run: RunDir,
    config: PipelineConfig,
    factory: PlayerFactory,
    judge: Engine,
    *,
    progress: bool = True,
) -> StageSummary:
    """Write ``filter_trajectories.jsonl``, ``judgements.jsonl``, ``scores.jsonl``, ``profiles.jsonl``."""
    spec = config.filter
    candidates = read_candidates(run)
    trajectories = [
        play_trajectory(
            factory,
            traj_id=f"{p.id}-g{j}",
            section=config.section(p.game, p.task),
            seed=config.seed + j,
            source=p.id,
            persona=p.persona(),
        )
        for p in tqdm(candidates, desc="filter: play", disable=not progress)
        for j in range(spec.games)
    ]
    windows = [w for t in trajectories for w in segment(t, config.cluster.window)]
    judgements = _judge(windows, {p.id: p.persona() for p in candidates}, judge, config, progress)
    scores = _score(candidates, windows, judgements, config)
    kept_ids = {s["profile"] for s in scores if s["kept"]}
    files = [
        run.write_jsonl(FILTER_TRAJECTORIES, (t.to_dict() for t in trajectories)),
        run.write_jsonl(JUDGEMENTS, judgements),
        run.write_jsonl(SCORES, scores),
        run.write_jsonl(
            PROFILES, (p.model_dump(mode="json") for p in candidates if p.id in kept_ids)
        ),
    ]
    summary = StageSummary("filter", files=[str(f) for f in files])
    summary.add("candidates", len(candidates))
    summary.add("episodes played", len(trajectories))
    summary.add("windows judged (x2 dimensions)", len(windows))
    summary.add("judge failures (excluded)", sum(j["severities"] is None for j in judgements))
    summary.add("unscored candidates", sum(s["s_all"] is None for s in scores))
    summary.add("kept profiles", len(kept_ids))
    for label, chosen in (("all", scores), ("kept", [s for s in scores if s["kept"]])):
        values = [s["s_all"] for s in chosen if s["s_all"] is not None]
        summary.add(f"mean S_ALL ({label})", round(fmean(values), 3) if values else "-")
    return summary


def _judge(
    windows: list[Window],
    personas: dict[str, str],
    engine: Engine,
    config: PipelineConfig,
    progress: bool,
) -> list[dict[str, Any]]:
    """One record per (window, dimension): the reply and its severities (None = failed)."""
    jobs = [(w, d) for w in windows for d in DIMENSIONS]
    prompts = [judge_prompt(d, w, personas[w.source]) for w, d in jobs]
    params = text_params(config.filter.judge_max_new_tokens, seed=config.seed)
    results = ask_all(engine, prompts, params, desc="filter: judge", progress=progress)
    records = []
    for (w, d), result in zip(jobs, results, strict=True):
        record: dict[str, Any] = {
            "window": w.id,
            "trajectory": w.trajectory,
            "profile": w.source,
            "dimension": d,
            "prompt_version": prompt_version(d),
            "reply": result.text,
            "severities": None,
            "error": None,
        }
        try:
            record["severities"] = read_judgement(result.error, result.text)
        except ReplyError as err:
            record["error"] = str(err)
        records.append(record)
    return records


def _score(
    candidates: list[Profile],
    windows: list[Window],
    judgements: list[dict[str, Any]],
    config: PipelineConfig,
) -> list[dict[str, Any]]:
    """Per candidate: S_PR, S_RA, S_ALL, failure counts, and whether it is in its task's top k."""
    # profile -> dimension -> trajectory -> severities of each judged window
    judged: dict[str, dict[str, dict[str, list[list[int]]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    failures: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(DIMENSIONS, 0))
    for j in judgements:
        if j["severities"] is None:
            failures[j["profile"]][j["dimension"]] += 1
        else:
            judged[j["profile"]][j["dimension"]][j["trajectory"]].append(j["severities"])
    counts: dict[str, int] = defaultdict(int)
    for w in windows:
        counts[w.source] += 1
    rows: list[dict[str, Any]] = []
    for p in candidates:
        coefficients = config.filter.coefficients[p.game]
        dims = {d: profile_score(list(judged[p.id][d].values()), coefficients) for d in DIMENSIONS}
        s_pr, s_ra = dims["personality_reasoning"], dims["reasoning_action"]
        s_all = None if s_pr is None or s_ra is None else combined(s_pr, s_ra, config.filter.beta)
        rows.append(
            {
                "profile": p.id,
                "game": p.game,
                "task": p.task,
                "windows": counts[p.id],
                "judge_failures": failures[p.id],
                "s_pr": s_pr,
                "s_ra": s_ra,
                "s_all": s_all,
                "rank": None,
                "kept": False,
            }
        )
    by_task: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["s_all"] is not None:
            by_task[(row["game"], row["task"])].append(row)
    for group in by_task.values():
        group.sort(key=lambda r: (-r["s_all"], r["profile"]))
        for rank, row in enumerate(group, 1):
            row["rank"], row["kept"] = rank, rank <= config.filter.top_k
    return rows
