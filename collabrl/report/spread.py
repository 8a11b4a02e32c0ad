"""Diversity of partners as embedding spread (CollabBench Table 9, Figure 3a; the C.2 metrics of
Table 2 are the profile pipeline's, :mod:`collabrl.pipeline.report`).

What the paper measures (D.3.3): players' trajectories cut into segments, embedded
(Qwen3-Embedding-4B), then

- Spread = mean over segments of the cosine distance to the centroid, 1 - cos(x_i, c);
- Cluster_xi = the number of clusters at distance threshold xi = 0.1 (collabrl: single linkage,
  :func:`collabrl.pipeline.fidelity.cluster_count`; the paper's non-integer values suggest a mean
  over tasks, reported here as ``cluster_xi_task_mean``);
- Figure 3a: a t-SNE picture of the segments.

Two sources here, both per game:

- :func:`profile_rows`: the profile library's texts (each profile's persona paragraph, or only its
  behaviour line), per game and split: how far apart the partners are as written;
- :func:`segment_rows`: an evaluation's trajectories, the partner seats' decisions cut into
  windows of ``window`` decisions (think, message and action, as the pipeline embeds them): how
  far apart the partners play, which is the paper's measure. Several folders (e.g. profiled
  partners vs ``partner.use_profile=false``, the paper's CoELA column) give Table 9's columns.

Any sentence-embedding model can embed (``embedder``: a local sentence-transformers folder or a
model id in the local Hugging Face cache); offline the packaged MiniLM when installed, else the
bundled hashing embedder (``hashing``, deterministic, the one the tests pin).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.errors import CollabrlError
from collabrl.pipeline.embed import Embedder, SentenceTransformerEmbedder, make_embedder
from collabrl.pipeline.fidelity import cluster_count, cosine_distances, spread
from collabrl.report.folders import EvalFolder

XI = 0.1  # the paper's Cluster_xi threshold (D.3.3)
WINDOW = 3  # decisions per segment (the paper: "units of three time windows"; C.1 and D.3.3)
KINDS = ("auto", "minilm", "hashing")


def embedder_named(name: str) -> Embedder:
    """``auto``, ``minilm``, ``hashing`` (:func:`collabrl.pipeline.embed.make_embedder`), a local
    sentence-transformers folder, or a model id already in the local Hugging Face cache (never
    downloaded: the embedder runs with the hub offline)."""
    if name in KINDS:
        return make_embedder(name)
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        raise CollabrlError(
            f"embedder {name!r} needs sentence-transformers: pip install sentence-transformers "
            "(or --embedder hashing)"
        )
    folder = Path(name).expanduser()
    try:
        return SentenceTransformerEmbedder(folder if folder.is_dir() else Path(name), name)
    except Exception as err:  # a missing or broken model folder: one line, not a traceback
        raise CollabrlError(
            f"embedder {name!r} does not load ({type(err).__name__}: {str(err)[:160]}); name a "
            "local sentence-transformers folder or a model id in the local Hugging Face cache"
        ) from None


def pairwise(x: np.ndarray) -> float | None:
    """Mean cosine distance over all pairs (None below two vectors)."""
    if len(x) < 2:
        return None
    dist = cosine_distances(x)
    return float(dist[np.triu_indices(len(x), k=1)].mean())


def measures(
    vectors: np.ndarray, tasks: Sequence[str], xi: float = XI
) -> dict[str, float | int | None]:
    """Spread, mean pairwise distance and Cluster_xi of one set, pooled and as means over its
    tasks."""
    per_task: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(tasks):
        per_task[t].append(i)
    task_spreads = [spread(vectors[rows]) for rows in per_task.values() if len(rows) >= 2]
    task_clusters = [cluster_count(vectors[rows], xi) for rows in per_task.values()]
    return {
        "items": len(vectors),
        "tasks": len(per_task),
        "spread": spread(vectors),
        "pairwise": pairwise(vectors),
        "cluster_xi": cluster_count(vectors, xi) if len(vectors) else 0,
        "spread_task_mean": float(np.mean([s for s in task_spreads if s is not None]))
        if task_spreads
        else None,
        "cluster_xi_task_mean": float(np.mean(task_clusters)) if task_clusters else None,
    }


def profile_texts(
    games: Sequence[str] | None = None,
    splits: Sequence[str] = ("train", "test"),
    *,
    text: str = "persona",
    path: str | None = None,
) -> list[dict[str, str]]:
    """One item per profile: game, split, task, id, player type and the embedded text (its
    persona paragraph, or ``text="behavior"``: its behaviour line only)."""
    from collabrl.profiles import load_profiles

    profiles = load_profiles(path=path) if path else load_profiles()
    return [
        {
            "group": f"{p.game}/{p.split}",
            "game": p.game,
            "split": p.split,
            "task": p.task,
            "id": p.id,
            "player_type": p.player_type or "",
            "text": p.persona() if text == "persona" else p.behavior,
        }
        for p in profiles
        if (not games or p.game in games) and p.split in splits
    ]


def segment_texts(
    folder: EvalFolder, *, window: int = WINDOW, seats: str = "partner"
) -> list[dict[str, str]]:
    """One item per window of ``window`` consecutive decisions of a partner seat (``seats=
    "policy"``: of the evaluated policy) in each trajectory of ``folder``; a shorter tail is
    dropped, as in the paper."""
    items = []
    for record in folder.trajectories():
        own = record.get("seat_name")
        by_seat: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for turn in record.get("turns", []):
            mine = turn["seat"] == own
            if mine == (seats == "policy"):
                by_seat[turn["seat"]].append(turn)
        for seat, turns in by_seat.items():
            for start in range(0, len(turns) - window + 1, window):
                chunk = turns[start : start + window]
                items.append(
                    {
                        "group": f"{folder.label}/{record['game']}",
                        "folder": folder.label,
                        "game": record["game"],
                        "task": record["task"],
                        "id": f"{record.get('profile')}:{record['seat']}:{seat}:{start // window}",
                        "player_type": record.get("player_type") or "",
                        "text": "\n".join(
                            f"{t.get('think', '')} {t.get('message', '')} "
                            f"{t.get('action') or 'no valid action'}"
                            for t in chunk
                        ),
                    }
                )
    return items


def rows_for(
    items: Sequence[dict[str, str]], embedder: Embedder, xi: float = XI
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Per group (game/split, or folder/game): its measures; and every item's vector (rows in
    ``items`` order)."""
    if not items:
        raise CollabrlError("nothing to embed: no profiles or trajectory windows selected")
    vectors = embedder.embed([i["text"] for i in items])
    groups: dict[str, list[int]] = defaultdict(list)
    for n, item in enumerate(items):
        groups[item["group"]].append(n)
    rows = []
    for group, index in groups.items():
        first = items[index[0]]
        row: dict[str, Any] = {
            "group": group,
            "game": first["game"],
            **({"split": first["split"]} if "split" in first else {"folder": first["folder"]}),
            "embedder": embedder.name,
        }
        row.update(measures(vectors[index], [items[i]["task"] for i in index], xi))
        rows.append(row)
    return rows, vectors


def markdown(rows: Sequence[dict[str, Any]], title: str, xi: float = XI) -> str:
    """The measures as a Table 9-style table: measures as rows, groups as columns."""
    from tabulate import tabulate

    names = [
        ("items", "Items"),
        ("tasks", "Tasks"),
        ("spread", "Spread ↑"),
        ("pairwise", "Mean pairwise distance ↑"),
        ("cluster_xi", f"Cluster_xi (xi = {xi}) ↑"),
        ("spread_task_mean", "Spread, mean over tasks ↑"),
        ("cluster_xi_task_mean", "Cluster_xi, mean over tasks ↑"),
    ]

    def cell(v: Any) -> str:
        if v is None:
            return "—"
        return str(v) if isinstance(v, int) else f"{v:.4f}"

    lines = [[label, *(cell(r[key]) for r in rows)] for key, label in names]
    embedder = rows[0]["embedder"] if rows else "?"
    table = tabulate(
        lines, ["Metric", *(r["group"] for r in rows)], tablefmt="github", disable_numparse=True
    )
    return f"### {title}\n\n{table}\n\n_Embedder: {embedder}; cosine distances._\n"


def scatter(
    path: Path,
    vectors: np.ndarray,
    items: Sequence[dict[str, str]],
    *,
    projection: str = "pca",
    seed: int = 0,
) -> None:
    """A 2-D picture of the vectors coloured by group (Figure 3a): PCA (numpy), or t-SNE (the
    paper's; needs scikit-learn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.asarray(vectors, dtype=np.float64)
    if projection == "tsne":
        try:
            from sklearn.manifold import TSNE
        except ImportError:
            raise CollabrlError(
                "--projection tsne needs scikit-learn: pip install scikit-learn (or use pca)"
            ) from None
        perplexity = max(2.0, min(30.0, (len(x) - 1) / 3))
        xy = TSNE(2, perplexity=perplexity, random_state=seed, init="pca").fit_transform(x)
    else:
        centred = x - x.mean(axis=0, keepdims=True)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        xy = centred @ vt[:2].T if len(vt) >= 2 else np.c_[centred @ vt[:1].T, np.zeros(len(x))]
    fig, ax = plt.subplots(figsize=(6.5, 5.0))
    for group in dict.fromkeys(i["group"] for i in items):
        index = [n for n, i in enumerate(items) if i["group"] == group]
        ax.scatter(xy[index, 0], xy[index, 1], s=12, alpha=0.7, label=f"{group} ({len(index)})")
    ax.set_title(f"Embedding spread ({projection.upper()})", fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
