"""Reliability and robustness of an evaluation, from its episode rows (``episodes.csv``).

Means with intervals say how well a policy does on average; these say how dependably and against
whom it does well:

- **pass^k** (tau-bench): the chance that all ``k`` trials of one job succeed. A job is one
  (game, task, partner profile, seat[, team]) played over several seeds; with ``n`` trials and
  ``c`` successes the unbiased estimate is ``C(c, k) / C(n, k)`` (tau-bench's), averaged over
  the jobs with at least ``k`` trials, with a Student-t interval over jobs (clipped to [0, 1]). pass^1 is the
  success rate; pass^k falls with k unless every job either always or never succeeds.
  Stalled episodes count as failures. Games without a ``success`` summary have none.
- **player-type drops** (tau-Trait's trait stress): for each partner player type
  (:func:`partner_type`), how much worse the policy does with it than on average, relative to
  the mean of every finished episode of the same game and seat: ``(mean - type mean) / |mean|`` where higher is better, the sign
  turned where lower is better (Step), so a positive drop always means "worse with this type".
  Its interval is the Student-t interval of the type's per-episode relative differences (the
  overall mean taken as the reference, as tau-Trait compares each trait with the baseline).
- **worst type**: the player type with the largest drop.
- **BR-Prox** (ZSC-Eval's best-response proximity, :func:`br_proximity`): over a partner
  population, each partner's score as a fraction of the best response's score to that partner,
  aggregated by the interquartile mean, with a percentile bootstrap interval over partners. A
  partner is a test profile, or a population member or human proxy on one task
  (:func:`held_out_partner`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

from collabrl.stats import Interval, mean_ci

TRIAL_KEYS = ("game", "task", "profile", "seat", "team_size", "structure", "composition")
"""The episode columns that name one job; the seed is what varies between its trials."""
BOOTSTRAP_RESAMPLES = 2000


def _flag(value: Any) -> bool | None:
    """An episode row's boolean (``True`` or ``"True"`` from a CSV; None when empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "1")


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's unbiased pass^k of one job: ``C(c, k) / C(n, k)`` (n trials, c successes)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    return math.comb(c, k) / math.comb(n, k)


def trials(rows: Iterable[Mapping[str, Any]]) -> dict[tuple, tuple[int, int]]:
    """job -> (trials, successes) over rows that carry a success flag (a stalled episode is a
    failure)."""
    out: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        success = _flag(r.get("success"))
        if success is None:
            continue
        counts = out[tuple(r.get(k) for k in TRIAL_KEYS)]
        counts[0] += 1
        counts[1] += int(success and not _flag(r.get("stalled")))
    return {job: (n, c) for job, (n, c) in out.items()}


def pass_k(rows: Iterable[Mapping[str, Any]], k: int) -> Interval:
    """pass^k over the jobs of ``rows`` that have at least ``k`` trials: the mean of their
    :func:`pass_hat_k` with a Student-t interval over jobs, clipped to [0, 1] since it is a
    probability (n: the jobs counted)."""
    iv = mean_ci([pass_hat_k(n, c, k) for n, c in trials(rows).values() if n >= k])
    return Interval(iv.n, iv.mean, max(iv.low, 0.0), min(iv.high, 1.0))


def default_ks(rows: Iterable[Mapping[str, Any]]) -> tuple[int, ...]:
    """pass^1 and pass^n, n the fewest trials any job has (the largest k every job supports)."""
    counts = [n for n, _ in trials(rows).values()]
    return tuple(sorted({1, min(counts)})) if counts else ()


def type_drops(rows: Sequence[Mapping[str, Any]], lower_is_better: bool) -> dict[str, Interval]:
    """player type -> its relative drop against the mean efficiency of all finished ``rows``
    (positive: worse with that type), with its interval; empty without types or a zero mean."""
    finished = [
        (partner_type(r), e)
        for r in rows
        if not _flag(r.get("stalled")) and (e := _number(r.get("efficiency"))) is not None
    ]
    if not finished:
        return {}
    mean = math.fsum(e for _, e in finished) / len(finished)
    if mean == 0:
        return {}
    sign = 1.0 if lower_is_better else -1.0
    by_type: dict[str, list[float]] = defaultdict(list)
    for player_type, e in finished:
        if player_type:
            by_type[player_type].append(sign * (e - mean) / abs(mean))
    return {t: mean_ci(values) for t, values in sorted(by_type.items())}


def partner_type(row: Mapping[str, Any]) -> str:
    """The player type an episode row's partner was: the partner kind where the ``partner``
    column names a population member or human proxy (``population``, ``human_proxy``; the
    profile only seeded its draw), else the profile's player type ("" when unknown)."""
    if row.get("partner"):
        kinds = (seat.partition(":")[0] for seat in str(row["partner"]).split("+"))
        return "+".join(dict.fromkeys(kinds))
    return str(row.get("player_type") or "")


def worst_type(drops: Mapping[str, Interval]) -> str | None:
    """The player type with the largest drop (None when there are none)."""
    return max(drops, key=lambda t: drops[t].mean) if drops else None


def interquartile_mean(values: Sequence[float]) -> float:
    """The mean of the middle half (ZSC-Eval's and rliable's IQM), SciPy's 25% trimmed mean."""
    return float(stats.trim_mean(values, 0.25))


def br_proximity(
    scores: Mapping[str, float],
    best: Mapping[str, float],
    lower_is_better: bool,
    *,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """ZSC-Eval-style best-response proximity of one policy over a partner population.

    ``scores``: partner -> the policy's mean score with it; ``best``: partner -> the best
    response's. Per partner the proximity is ``score / best`` (``best / score`` where lower is
    better), 1 when the policy is the best response; partners whose ratio is undefined (a zero)
    are left out. The point is the interquartile mean over partners, the interval a percentile
    bootstrap over partners (``scipy.stats.bootstrap``, seeded)."""
    ratios = []
    for partner, score in scores.items():
        top = best.get(partner)
        num, den = (top, score) if lower_is_better else (score, top)
        if num is not None and den:
            ratios.append(num / den)
    if not ratios:
        return Interval(0, math.nan, math.nan, math.nan)
    point = interquartile_mean(ratios)
    if len(ratios) < 2 or min(ratios) == max(ratios):
        return Interval(len(ratios), point, point, point)
    result = stats.bootstrap(
        (np.asarray(ratios),),
        interquartile_mean,
        vectorized=False,
        n_resamples=BOOTSTRAP_RESAMPLES,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(len(ratios), point, float(ci.low), float(ci.high))


def held_out_partner(row: Mapping[str, Any]) -> str | None:
    """The held-out partner an episode row was played with: its population member or human proxy
    on its task (the ``partner`` column; a member of one layout is another partner than the
    same-named member of the next), else its profile; None when neither is known.

    Exports written before the ``partner`` column existed name their partners by profile alone."""
    if row.get("partner"):
        return f"{row['partner']} on {row.get('task')}"
    return str(row["profile"]) if row.get("profile") else None


def partner_means(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """held-out partner (:func:`held_out_partner`) -> mean efficiency of its finished episodes
    (rows that name no partner are left out)."""
    by_partner: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        e = _number(r.get("efficiency"))
        partner = held_out_partner(r)
        if partner and e is not None and not _flag(r.get("stalled")):
            by_partner[partner].append(e)
    return {p: math.fsum(v) / len(v) for p, v in by_partner.items()}


def best_responses(
    populations: Sequence[Mapping[str, float]], lower_is_better: bool
) -> dict[str, float]:
    """partner -> the best mean any of ``populations`` (one per policy) reached with it: the
    stand-in for a trained best response when none was trained."""
    pick = min if lower_is_better else max
    partners = {p for means in populations for p in means}
    return {p: pick(m[p] for m in populations if p in m) for p in partners}


def reliability(
    rows: Sequence[Mapping[str, Any]], lower_is_better: bool, ks: Sequence[int]
) -> dict[str, Any]:
    """The reliability cells of one game and seat: ``pass^k`` per k, the player-type drops and
    the worst type (intervals as :class:`collabrl.stats.Interval`)."""
    drops = type_drops(rows, lower_is_better)
    return {
        "pass_k": {k: pass_k(rows, k) for k in ks},
        "drops": drops,
        "worst_type": worst_type(drops),
    }


def flat(cells: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`reliability`'s cells as flat JSON/CSV columns (means and interval ends)."""
    out: dict[str, Any] = {}
    for k, iv in cells["pass_k"].items():
        out.update(interval_columns(f"pass^{k}", iv))
    worst = cells["worst_type"]
    out["worst_type"] = worst
    if worst is not None:
        out.update(interval_columns("worst_type_drop", cells["drops"][worst]))
    for t, iv in cells["drops"].items():
        out.update(interval_columns(f"drop_{t}", iv))
    return out


def interval_columns(name: str, iv: Interval) -> dict[str, Any]:
    """``name``, ``name_low``, ``name_high`` (None when undefined) and ``name_n`` of ``iv``."""
    nan = math.isnan(iv.mean)
    return {
        name: None if nan else iv.mean,
        f"{name}_low": None if nan else iv.low,
        f"{name}_high": None if nan else iv.high,
        f"{name}_n": iv.n,
    }
