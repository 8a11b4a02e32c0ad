"""The reliability and robustness table (:mod:`collabrl.eval.reliability`) of one or several
evaluations: per game, one row per method and seat with pass^k, the worst partner type and its
drop, every type's drop, and, when several methods share the partners, BR-Prox.

Why one builder for both commands: ``collabrl eval`` prints it for its one method (no BR-Prox:
a best response needs other policies to stand in for it), ``collabrl report table`` for every
folder it joins, where the best method per partner is the best-response stand-in (the Oracle
row, which sees the partner's profile, is the closest to a trained best response).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tabulate import tabulate

from collabrl.envs.registry import get_game
from collabrl.errors import CollabrlError
from collabrl.eval.reliability import (
    best_responses,
    br_proximity,
    default_ks,
    flat,
    interval_columns,
    partner_means,
    reliability,
    trials,
)

BR_PROX = "br_prox"


def by_method(folders: Sequence[Any]) -> dict[str, Sequence[Mapping[str, Any]]]:
    """label -> episode rows of evaluation folders (``collabrl.report.folders.EvalFolder``); a
    label two folders share gets its folder's path, so neither's episodes hide the other's."""
    labels = [f.label for f in folders]
    return {
        f.label if labels.count(f.label) == 1 else f"{f.label} ({f.path})": f.episodes
        for f in folders
    }


def build(
    episodes: Mapping[str, Sequence[Mapping[str, Any]]], ks: Sequence[int] = ()
) -> list[dict[str, Any]]:
    """Flat rows (game, method, seat, then :func:`collabrl.eval.reliability.flat`'s columns and,
    with two or more methods, ``br_prox``) from ``method -> episode rows``; ``ks``: the pass^k
    columns (default :func:`collabrl.eval.reliability.default_ks` of each game)."""
    out = []
    games = dict.fromkeys(r["game"] for rows in episodes.values() for r in rows)
    for game in games:
        lower = get_game(game).lower_is_better
        mine = {m: [r for r in rows if r["game"] == game] for m, rows in episodes.items()}
        seats = sorted({str(r["seat"]) for rows in mine.values() for r in rows})
        game_ks = _checked(game, ks, list(mine.values()))
        for seat in seats:
            by_method = {m: [r for r in rows if str(r["seat"]) == seat] for m, rows in mine.items()}
            means = {m: partner_means(rows) for m, rows in by_method.items()}
            best = best_responses(list(means.values()), lower) if len(means) > 1 else None
            for method, rows in by_method.items():
                if not rows:
                    continue
                row = {"game": game, "method": method, "seat": seat}
                row.update(flat(reliability(rows, lower, game_ks)))
                if best is not None:
                    row.update(interval_columns(BR_PROX, br_proximity(means[method], best, lower)))
                out.append(row)
    return out


def _checked(
    game: str, ks: Sequence[int], methods: Sequence[Sequence[Mapping[str, Any]]]
) -> tuple[int, ...]:
    """``ks``, or the game's default ones (those every method supports); one error for a k no
    job has enough trials for."""
    if not ks:
        supported = [ks for rows in methods if (ks := default_ks(rows))]
        return min(supported, key=max, default=())
    most = max((n for rows in methods for n, _ in trials(rows).values()), default=0)
    for k in ks:
        if k > most:
            raise CollabrlError(
                f"pass^{k} needs {k} trials (seeds) of a job; the {game} jobs have at most {most}"
            )
    return tuple(sorted(set(ks)))


def _shown(row: Mapping[str, Any], name: str, percent: bool = False) -> str:
    mean = row.get(name)
    if mean is None:
        return "—"
    low, high = row[f"{name}_low"], row[f"{name}_high"]
    if percent:
        return f"{mean:+.1%} [{low:+.1%}, {high:+.1%}]"
    return f"{mean:.2f} [{low:.2f}, {high:.2f}]"


def markdown(rows: Sequence[Mapping[str, Any]], proxy: bool = False) -> str:
    """Per game, the table as GitHub Markdown with a line saying how to read it (empty when
    there are no rows); ``proxy``: the partners or judges are stand-ins, said in every title."""
    parts = []
    for game in dict.fromkeys(r["game"] for r in rows):
        mine = [r for r in rows if r["game"] == game]
        passes = list(dict.fromkeys(k for r in mine for k in r if _is_pass(k)))
        types = list(dict.fromkeys(k for r in mine for k in r if _is_drop(k)))
        br = any(BR_PROX in r for r in mine)
        head = ["Method", "Seat", *passes, "Worst type", "Worst drop ↓", *[t[5:] for t in types]]
        body = [
            [
                r["method"],
                r["seat"],
                *(_shown(r, p) for p in passes),
                r.get("worst_type") or "—",
                _shown(r, "worst_type_drop", True),
                *(_shown(r, t, True) for t in types),
                *([_shown(r, BR_PROX)] if br else []),
            ]
            for r in mine
        ]
        head += ["BR-Prox ↑"] if br else []
        label = ", offline proxy" if proxy else ""
        parts.append(f"### {get_game(game).title}: reliability and robustness{label}\n")
        parts.append(tabulate(body, head, tablefmt="github", disable_numparse=True))
        parts.append(f"\n{LEGEND}\n")
    return "\n".join(parts)


LEGEND = (
    "_pass^k: the chance that all k trials (seeds) of a job succeed (tau-bench's unbiased "
    "estimate, 95% t interval over jobs). Drops: how much worse than its mean the policy does "
    "with each partner type (relative; positive = worse; tau-Trait's trait stress). BR-Prox: "
    "the interquartile mean over partners of the score as a fraction of the best method's with "
    "that partner (ZSC-Eval style; 95% bootstrap interval over partners)._"
)


def _is_pass(key: str) -> bool:
    return key.startswith("pass^") and key.count("_") == 0


def _is_drop(key: str) -> bool:
    return key.startswith("drop_") and not key.endswith(("_low", "_high", "_n"))
