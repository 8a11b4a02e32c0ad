"""The whole CollabBench evaluation: play, judge, score, tabulate, write, stamp.

``run_evaluation`` is the library entry; ``collabrl eval`` is a thin CLI over it. Every output is
stamped with the policy, the partner set, the judge and its prompt versions, and the seeds.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tqdm import tqdm

from collabrl.agents.prompts import role_prompt_stamps
from collabrl.config import EvalSpec
from collabrl.engines.batching import LockstepBatcher
from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError
from collabrl.eval import export, reliability_table, report
from collabrl.eval.journal import JOURNAL, Journal, job_key
from collabrl.eval.players import partner_factory, policy_factory
from collabrl.eval.runner import (
    EpisodeOutcome,
    Job,
    judge_traces,
    play_all,
    rescore_hypotheses,
    select_jobs,
)
from collabrl.eval.scoring import judge_outcomes, score_outcome
from collabrl.eval.servers import check_servers
from collabrl.eval.team_study import study_markdown, study_rows
from collabrl.eval.teams import team_markdown, team_tables
from collabrl.eval.tokens import cl100k_counter
from collabrl.factory import EngineCache, LockstepEngines, make_judge, player_label
from collabrl.records import output_set, write_hf_dataset, write_jsonl
from collabrl.rewards.judges import DIMENSIONS, Judge
from collabrl.rewards.judges.heuristic import VERSION as HEURISTIC_VERSION
from collabrl.rewards.judges.hypothesis import judgement_counts
from collabrl.rewards.judges.prompts import window_prompt_stamp
from collabrl.rewards.judges.trace import trace_judgement_counts

PROXY_NOTE = (
    "OFFLINE PROXY: affective scores come from the heuristic proxy judge (rule-based cue "
    "counting), not from an LLM judge; they are not comparable with CollabBench's numbers."
)
STAND_IN_PARTNERS = {
    "persona": "persona-scripted partners (no LLM)",
    "expert": "rule-based expert partners (no LLM, profile-blind)",
}


def proxy_note(judge_is_proxy: bool, partners: str) -> str | None:
    """The label tables carry when an offline stand-in judged them or played the partners (None:
    LLM partners and an LLM judge, the paper's protocol): :data:`PROXY_NOTE`, naming the
    scripted partners too when they stood in for the paper's LLM-simulated players (the
    ``collabbench_proxy`` recipe), or the stand-in partners alone under an LLM judge."""
    if not judge_is_proxy:
        if partners not in STAND_IN_PARTNERS:
            return None
        return (
            f"STAND-IN PARTNERS: {STAND_IN_PARTNERS[partners]} stand in for the paper's "
            "LLM-simulated players; the numbers are not comparable with CollabBench's."
        )
    if partners not in STAND_IN_PARTNERS:
        return PROXY_NOTE
    return (
        f"OFFLINE PROXY: {STAND_IN_PARTNERS[partners]} and the heuristic proxy judge (rule-based "
        "cue counting) stand in for the paper's LLM-simulated players and LLM judges; the "
        "numbers are not comparable with CollabBench's."
    )


OUTPUT_SET = "eval"
"""The name of the eval outputs' set: readers check them with
``collabrl.records.check_complete(path, OUTPUT_SET, ...)`` (``eval.incomplete`` flags a mix)."""

TRAJECTORY_STAMP = (
    "policy",
    "policy_attempts",
    "oracle",
    "role_prompts",
    "judge",
    "judge_is_proxy",
    "judge_prompts",
    "seeds",
)
"""The stamp fields repeated on every trajectory record (the full stamp is in results.json)."""

RESUME_FREE = ("output_dir", "workers", "judge_batch_size")
"""Eval keys a resumed evaluation may change: where it writes and how fast it runs, not what it
plays or how it scores (see :func:`resume_settings`)."""


@dataclass
class EvalResult:
    outcomes: list[EpisodeOutcome]
    tables: dict[str, Any]
    stamp: dict[str, Any]
    output_dir: Path
    warnings: list[str]
    teams: list[dict[str, Any]] = field(default_factory=list)  # the team grid's rows
    resumed: int = 0  # jobs whose episode an earlier, killed run had recorded in its journal


def attempts_label(retries: int) -> str:
    """How the tables name the policy's reply attempts."""
    return "single pass" if retries == 0 else f"1 + {retries} retr{'y' if retries == 1 else 'ies'}"


def judge_prompts(proxy: bool) -> dict[str, str]:
    """The judge prompt versions a run is stamped with: the heuristic proxy's version, or each
    LLM window prompt's stamp."""
    if proxy:
        return {"window": HEURISTIC_VERSION}
    return {d: window_prompt_stamp(d) for d in DIMENSIONS}


def resume_settings(spec: EvalSpec, jobs: list[Job], *, proxy: bool) -> dict[str, Any]:
    """What decides an evaluation's jobs and their results, hashed into ``run.json`` and the
    job journal: the eval section (less :data:`RESUME_FREE`), the jobs, and the versions of the
    games and prompts (``proxy``: the judge is the heuristic one).

    Why: a rerun may resume a folder only when every job recorded there is one it would play
    and judge the same way; anything else would mix two evaluations in one table.
    """
    return {
        **spec.model_dump(mode="json", exclude=set(RESUME_FREE)),
        "jobs": [job_key(job) for job in jobs],
        "game_versions": {game: get_game(game).version for game in spec.games or ()},
        "role_prompts": role_prompt_stamps(),
        "judge_prompts": judge_prompts(proxy),
    }


def _stamp(
    spec: EvalSpec, judge: Judge, profiles: list[str | None], wall_s: float
) -> dict[str, Any]:
    try:
        pkg = version("collabrl")
    except PackageNotFoundError:
        pkg = "unknown"
    prompts = judge_prompts(judge.proxy)
    return {
        "collabrl": pkg,
        "policy": player_label(spec.policy),
        "policy_spec": spec.policy.model_dump(),
        "oracle": spec.oracle,
        "policy_attempts": attempts_label(spec.policy_retries),
        "role_prompts": role_prompt_stamps(),
        "partner_set": {
            "kind": spec.partner.label,
            "split": spec.split,
            "profiles": sum(p is not None for p in profiles),
            "profile_ids": profiles,
            **_partner_model(spec),
        },
        "game_versions": {game: get_game(game).version for game in spec.games or ()},
        "judge": judge.name,
        "judge_is_proxy": judge.proxy,
        "judge_prompts": prompts,
        "seeds": list(spec.seeds),
        "seats": [f"Agent {s}" for s in spec.seats],
        "tokens": spec.tokens,
        "window": spec.window,
        "a": spec.a,
        "b": spec.b,
        "message_penalty": {"eps": 0.15, "k": 4.0, "p_max": 2.0},
        "wall_s": round(wall_s, 2),
        "spec": spec.model_dump(),
    }


def _partner_model(spec: EvalSpec) -> dict[str, str]:
    """An LLM partner's model id (the pinned version it was asked for) and reply attempts, for
    the stamp."""
    engine = spec.partner.engine
    if spec.partner.kind != "llm" or not engine:
        return {}
    return {"model": engine.model, "attempts": attempts_label(spec.partner.retries)}


def _profile_ids(jobs: list[Job]) -> list[str | None]:
    """Every profile played (each teammate's in the team grid), sorted; a job without any
    profile (a profile-free game, a team of one) adds None, listed first."""
    ids = {p.id if p is not None else None for j in jobs for p in (j.team or (j.profile,))}
    return sorted(ids, key=lambda i: (i is not None, i or ""))


def run_evaluation(
    spec: EvalSpec,
    *,
    judge: Judge | None = None,
    engines: EngineCache | None = None,
    progress: bool = True,
    journal: bool = False,
) -> EvalResult:
    """Run the protocol in ``spec`` and write tables, CSV, JSON and trajectories.

    ``judge`` and ``engines`` replace the ones the spec would build (tests, shared servers).
    ``journal``: record every finished job in ``output_dir/eval_jobs.jsonl`` as it finishes, and
    take the jobs an earlier run of the same settings recorded there instead of playing them
    again (:mod:`collabrl.eval.journal`; ``collabrl eval`` does this).
    """
    start = time.perf_counter()
    jobs = select_jobs(spec)
    if not jobs:  # never an empty table with exit code 0
        raise CollabrlError(
            f"no evaluation episodes for games={spec.games} tasks={spec.tasks} "
            f"profiles={spec.profiles}: widen the selection"
        )
    if spec.tokens == "cl100k_base":
        cl100k_counter()  # its vocabulary is there before any episode is played
    if engines is None:  # the engines this run builds need their servers
        check_servers(spec, judge=judge is None)
    engines = engines or EngineCache()
    try:
        judge = judge or make_judge(spec.judge, engines.get(spec.judge.engine))
        log = None
        if journal:
            settings = resume_settings(spec, jobs, proxy=judge.proxy)
            log = Journal(Path(spec.output_dir) / JOURNAL, settings, jobs)
        batcher = LockstepBatcher() if spec.workers > 1 else None
        outcomes = _play(spec, jobs, engines, batcher, log, progress)
        rescore_hypotheses(spec, outcomes, judge)
        judge_traces(spec, outcomes, judge)
        _judge(spec, outcomes, judge, log, progress)
    finally:
        engines.close()
    for outcome in outcomes:
        score_outcome(outcome, a=spec.a, b=spec.b)
    profiles = _profile_ids(jobs)
    stamp = _stamp(spec, judge, profiles, time.perf_counter() - start)
    stamp["merged_calls"] = merged_calls(batcher.sizes) if batcher else None
    result = EvalResult(
        outcomes,
        report.build_tables(outcomes),
        stamp,
        Path(spec.output_dir),
        [],
        team_tables(outcomes) if spec.teams is not None else [],
        resumed=sum(log.played(job) is not None for job in jobs) if log else 0,
    )
    write_outputs(result, proxy=judge.proxy)
    return result


def merged_calls(sizes: list[int]) -> dict[str, float]:
    """How the workers' decisions were batched (``eval.workers`` above 1): engine calls and their
    rows."""
    return {
        "calls": len(sizes),
        "rows": sum(sizes),
        "rows_per_call": round(sum(sizes) / len(sizes), 2) if sizes else 0.0,
    }


def _play(
    spec: EvalSpec,
    jobs: list[Job],
    engines: EngineCache,
    batcher: LockstepBatcher | None,
    log: Journal | None,
    progress: bool,
) -> list[EpisodeOutcome]:
    """Every job's played outcome, in job order: the journal's where it has one, the rest
    played now (each recorded in the journal as it ends); with a ``batcher``, the local engines
    answer the workers through it."""
    recorded = [log.played(job) if log else None for job in jobs]
    todo = [job for job, outcome in zip(jobs, recorded, strict=True) if outcome is None]

    def finished(outcome: EpisodeOutcome) -> None:
        if log:
            log.record_played(outcome)
        bar.update(1)

    initial = len(jobs) - len(todo)
    source = LockstepEngines(engines, batcher) if batcher else engines
    policy = policy_factory(spec.policy, source, spec.policy_retries)
    with tqdm(total=len(jobs), initial=initial, desc="episodes", disable=not progress) as bar:
        fresh = iter(
            play_all(
                spec,
                todo,
                policy,
                partner_factory(spec.partner, source, policy),
                progress=finished,
                batcher=batcher,
            )
        )
    return [outcome if outcome is not None else next(fresh) for outcome in recorded]


def _judge(
    spec: EvalSpec,
    outcomes: list[EpisodeOutcome],
    judge: Judge,
    log: Journal | None,
    progress: bool,
) -> None:
    """Judge the windows of every outcome the journal holds no verdicts for (each recorded in
    the journal once its last window is judged)."""
    todo = [o for o in outcomes if not (log and log.is_judged(o.job))]
    n_windows = sum(o.decisions // spec.window for o in todo)
    with tqdm(total=n_windows, desc="judge windows", disable=not progress) as bar:
        judge_outcomes(
            todo,
            judge,
            k=spec.window,
            batch_size=spec.judge_batch_size,
            progress=bar.update,
            finished=log.record_judged if log else lambda _o: None,
        )


def write_outputs(result: EvalResult, *, proxy: bool) -> None:
    """tables.md, tables.csv, episodes.csv, results.json, trajectories.jsonl, trajectories_hf/
    (and, for the team grid, teams.md and teams.csv; for a composition grid also the
    team-structures study's Tables 2 and 3, study.md and study.csv).

    They are written as one set (:func:`collabrl.records.output_set`): staged, then moved into
    ``output_dir`` together, so a killed eval never leaves new results beside old trajectories.
    """
    with output_set(result.output_dir, OUTPUT_SET) as staging:
        _write_files(result, staging, proxy=proxy)


def _write_files(result: EvalResult, out: Path, *, proxy: bool) -> None:
    """Every eval output, into the folder ``out``."""
    method = ("Oracle " if result.stamp["oracle"] else "") + result.stamp["policy"]
    if result.stamp["policy_spec"]["kind"] == "llm":
        method += f" ({result.stamp['policy_attempts']})"
    note = proxy_note(proxy, result.stamp["partner_set"]["kind"])
    profiles = result.stamp["partner_set"]["profiles"]
    model = result.stamp["partner_set"].get("model")
    stamp_line = (
        f"policy={result.stamp['policy']} partners={result.stamp['partner_set']['kind']}"
        f"({result.stamp['partner_set']['split']}, "
        f"{f'{profiles} profiles' if profiles else 'no profiles'})"
        f"{f' partner model={model}' if model else ''}"
        f" judge={result.stamp['judge']}"
        f" prompts={result.stamp['judge_prompts']} seeds={result.stamp['seeds']}"
        f" policy attempts={result.stamp['policy_attempts']}"
        f" role prompts={result.stamp['role_prompts']}"
    )
    episodes = report.episode_rows(result.outcomes)
    robustness = reliability_table.build({method: episodes})
    (out / "tables.md").write_text(
        f"{report.markdown(result.tables, method, note, result.stamp['tokens'])}\n"
        f"{reliability_table.markdown(robustness, proxy=bool(note))}\n_{stamp_line}_\n",
        encoding="utf-8",
    )
    rows = report.table_rows(result.tables, method)
    report.write_csv(out / "tables.csv", rows)
    report.write_csv(out / "episodes.csv", episodes)
    failures = report.judge_failures(result.outcomes)
    payload = {
        "stamp": result.stamp,
        "note": note,
        "tables": rows,
        "reliability": robustness,
        "judge_failures": failures,
    }
    if result.stamp["spec"]["hypothesis_judge"] != "exact":
        payload["hypothesis_judge"] = judgement_counts(o.record.summary for o in result.outcomes)
    trace_note = ""
    if result.stamp["spec"]["trace_judge"] == "llm":
        counts = trace_judgement_counts(o.record.summary for o in result.outcomes)
        payload["trace_judge"] = counts
        trace_note = (
            f"_Trace judgements (C wf, S hyp, A profile): LLM judge {result.stamp['judge']}, "
            f"prompt {counts['prompt']}; {counts['judged']} episodes judged, {counts['failed']} "
            "failed (left empty)._\n"
        )
    if result.teams:
        (out / "teams.md").write_text(
            f"{team_markdown(result.teams)}\n_{stamp_line}_\n", encoding="utf-8"
        )
        report.write_csv(out / "teams.csv", result.teams)
        payload["teams"] = result.teams
    study = study_rows(result.outcomes)
    if study:
        tables = [
            study_markdown([r for r in study if r["game"] == game], get_game(game).title)
            for game in dict.fromkeys(r["game"] for r in study)
        ]
        (out / "study.md").write_text(
            "\n".join(tables) + f"\n{trace_note}_{stamp_line}_\n", encoding="utf-8"
        )
        report.write_csv(out / "study.csv", study)
        payload["study"] = study
    (out / "results.json").write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    short = {k: result.stamp[k] for k in TRAJECTORY_STAMP}
    short["partners"] = result.stamp["partner_set"]["kind"]
    records = [export.trajectory(o, short) for o in result.outcomes]
    write_jsonl(out / "trajectories.jsonl", records)
    write_hf_dataset(out / "trajectories_hf", records, export.NESTED)
