"""Finished ``collabrl eval`` folders as the analyses read them: stamp, table rows, episodes,
trajectories, and the settings two folders must share before their numbers sit in one table.

Why a reader of its own: the comparison table, the heatmaps, the score correlation and the
trajectory spread all start from one or more evaluation folders, and all must refuse a folder a
killed run left half written, or two folders that played different jobs under different judges.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.records import check_complete, read_jsonl, read_text

OUTPUT_SET = "eval"  # collabrl.eval.protocol.OUTPUT_SET (the set name its writer flags)

HUMAN_PROXY = "human_proxy"  # the partner kind of an evaluation beside the held-out human proxy
HUMAN_PROXY_MAY_DIFFER = ("tasks", "profiles", "partners", "jobs")
"""What an evaluation beside the human proxy may differ in from the others of a table: its
partner (profile-blind, so no profiles) and the games' tasks it has a proxy for (the kitchen's)."""

PER_GAME = ("game versions", "game options")  # settings held per game

JOB = ("game", "task", "profile", "seat", "seed")
"""The episode columns that name one job (team runs add team size and structure)."""


@dataclass
class EvalFolder:
    """One evaluation's outputs (``results.json`` and ``episodes.csv``; trajectories on demand)."""

    path: Path
    stamp: dict[str, Any]
    tables: list[dict[str, Any]]  # results.json "tables": game, task, seat, method, metrics
    episodes: list[dict[str, str]]  # episodes.csv rows
    label: str = ""
    _trajectories: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def proxy(self) -> bool:
        """Whether its scores come from stand-ins: the heuristic proxy judge, or scripted
        partners (persona or expert) in place of the paper's LLM-simulated players."""
        from collabrl.eval.protocol import STAND_IN_PARTNERS

        partners = self.stamp.get("partner_set", {}).get("kind")
        return bool(self.stamp.get("judge_is_proxy")) or partners in STAND_IN_PARTNERS

    @property
    def oracle(self) -> bool:
        return bool(self.stamp.get("oracle"))

    @property
    def beside_human_proxy(self) -> bool:
        """Whether it played beside the human proxy (``partner.kind=human_proxy``): the held-out
        human-like partner, a row of its own in the joined table."""
        return self.stamp.get("partner_set", {}).get("kind") == HUMAN_PROXY

    def trajectories(self) -> list[dict[str, Any]]:
        """The trajectory records (``trajectories.jsonl``), read once."""
        if self._trajectories is None:
            path = self.path / "trajectories.jsonl"
            if not path.is_file():
                raise CollabrlError(f"{self.path}: no trajectories.jsonl")
            self._trajectories = read_jsonl(check_complete(path, OUTPUT_SET, _REDO))
        return self._trajectories

    def games(self) -> list[str]:
        """Its games, in first-seen order of the episodes."""
        return list(dict.fromkeys(r["game"] for r in self.episodes))


_REDO = "rerun its `collabrl eval`"


def read_folder(path: Path) -> EvalFolder:
    """The evaluation in ``path``; a missing, unfinished or foreign folder is one error."""
    path = Path(path)
    results = path / "results.json"
    episodes = path / "episodes.csv"
    if not results.is_file() or not episodes.is_file():
        raise CollabrlError(
            f"{path}: no results.json and episodes.csv; is it a `collabrl eval` output folder?"
        )
    check_complete(results, OUTPUT_SET, _REDO)
    try:
        payload = json.loads(read_text(results))
    except json.JSONDecodeError as err:
        raise CollabrlError(f"{results}: not JSON ({err.msg}, line {err.lineno})") from None
    if not isinstance(payload, dict) or "stamp" not in payload or "tables" not in payload:
        raise CollabrlError(f"{results}: no stamp and tables; not written by `collabrl eval`")
    with open(episodes, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise CollabrlError(f"{episodes}: no episodes")
    return EvalFolder(
        path, payload["stamp"], payload["tables"], rows, label=default_label(payload["stamp"])
    )


def default_label(stamp: dict[str, Any]) -> str:
    """How a folder's policy is named in a joined table: the model of an LLM policy (its id or
    local folder), else the policy kind (``expert``, ``idle``, ...)."""
    policy = str(stamp.get("policy", "?"))
    if policy.startswith("llm:"):
        return policy.split(":", 2)[-1]
    return policy


def settings(folder: EvalFolder) -> dict[str, Any]:
    """What must match for two evaluations to share a table: the jobs played (games, tasks,
    partner profiles, seats, seeds), the partners, the judge and its prompts, the windowing and
    affective constants, the game versions and options, the role prompts. The policy, the Oracle
    flag and the policy's reply attempts may differ (they are what a table compares)."""
    stamp, spec = folder.stamp, folder.stamp.get("spec", {})
    partners = stamp.get("partner_set", {})
    return {
        "tasks": sorted({(r["game"], r["task"]) for r in folder.episodes}),
        "profiles": partners.get("profile_ids"),
        "partners": partners.get("kind"),
        "seats": stamp.get("seats"),
        "seeds": stamp.get("seeds"),
        "jobs": sorted({tuple(r.get(k, "") for k in JOB) for r in folder.episodes}),
        "judge": stamp.get("judge"),
        "judge prompts": stamp.get("judge_prompts"),
        "window": stamp.get("window"),
        "token count": stamp.get("tokens", "engine"),
        "a, b": (stamp.get("a"), stamp.get("b")),
        "game versions": stamp.get("game_versions"),
        "game options": spec.get("game_options"),
        "teams": spec.get("teams"),
        "role prompts": stamp.get("role_prompts"),
    }


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _difference(key: str, a: Any, b: Any) -> str:
    """One setting's difference: two lists by their counts and first items only one side has,
    anything else by both values."""
    if isinstance(a, list) and isinstance(b, list):
        only_a = [x for x in a if x not in b]
        only_b = [x for x in b if x not in a]
        sides = [f"only first: {_shown(x[0], 40)}" for x in (only_a,) if x]
        sides += [f"only second: {_shown(x[0], 40)}" for x in (only_b,) if x]
        return f"{key}: {len(a)} vs {len(b)} ({', '.join(sides) or 'other order'})"
    return f"{key}: {_shown(a)} vs {_shown(b)}"


AFFECTIVE_ONLY = ("judge", "judge prompts", "window", "a, b", "role prompts")
"""Settings that change only the affective scores (a table of efficiency alone may mix them)."""


def check_same_settings(
    folders: list[EvalFolder], *, force: bool = False, ignore: tuple[str, ...] = ()
) -> list[str]:
    """Refuse (one error) folders evaluated under different settings (less ``ignore``), naming
    the first pair and what differs; with ``force`` the differences come back as warnings. A
    folder beside the human proxy may differ in :data:`HUMAN_PROXY_MAY_DIFFER`."""
    warnings = []
    reference = next((f for f in folders if not f.beside_human_proxy), folders[0])
    first = settings(reference)
    for other in (f for f in folders if f is not reference):
        theirs = settings(other)
        may_differ = ignore
        if other.beside_human_proxy != reference.beside_human_proxy:
            may_differ = (*ignore, *HUMAN_PROXY_MAY_DIFFER)
            for key in PER_GAME:  # only the games both played must agree
                theirs[key] = {**(first[key] or {}), **(theirs[key] or {})}
        differ = [k for k in first if k not in may_differ and first[k] != theirs[k]]
        if not differ:
            continue
        shown = "; ".join(
            _difference(k, first[k], theirs[k]) for k in differ if k != "jobs" or len(differ) == 1
        )
        line = (
            f"{reference.path} and {other.path} were evaluated under different settings ({shown})"
        )
        if not force:
            raise CollabrlError(f"{line}; pass --force to join them anyway")
        warnings.append(f"warning: {line}")
    return warnings


def read_folders(
    paths: list[Path],
    labels: tuple[str, ...] = (),
    *,
    force: bool = False,
    ignore: tuple[str, ...] = (),
    unique_labels: bool = False,
) -> tuple[list[EvalFolder], list[str]]:
    """The folders (labelled by ``labels`` in order, the rest by their stamps) and the warnings of
    a forced join of differing settings (``ignore``: settings that may differ)."""
    if len(labels) > len(paths):
        raise CollabrlError(f"{len(labels)} --label values for {len(paths)} folders")
    folders = [read_folder(p) for p in paths]
    for folder, label in zip(folders, labels, strict=False):
        folder.label = label
    names = [f.label for f in folders]
    twice = sorted({n for n in names if names.count(n) > 1})
    if unique_labels and twice:
        raise CollabrlError(
            f"two folders are both named {twice[0]!r}: name each with --label, in folder order"
        )
    return folders, check_same_settings(folders, force=force, ignore=ignore)
