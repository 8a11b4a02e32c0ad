"""Fidelity and diversity metrics of window embeddings labelled by profile (CollabBench C.2, D.3.3).

All distances are cosine distances d = 1 - cos(x_i, x_j); a zero vector is at distance 1 from
everything. Definitions:
- D_intra: per profile, the mean pairwise distance of its windows; averaged over profiles that
  have at least two windows (smaller = tighter).
- LC^k: per window, the share of its k nearest other windows (ties by order) with its label;
  averaged over windows (k is capped at n - 1).
- Consistency score: gamma * LC^k + (1 - gamma) / (1 + D_intra) if D_intra > 0, else 0.
- Spread: mean distance of the windows to their centroid.
- Cluster_xi: collabrl reads the paper's threshold clustering as the number of connected
  groups when windows closer than or at distance xi are linked (single linkage at xi).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cosine_distances(x: np.ndarray) -> np.ndarray:
    """Pairwise cosine distances, in [0, 2] (scikit-learn's; a zero vector is at 1 from all)."""
    from sklearn.metrics.pairwise import cosine_distances as pairwise

    return pairwise(np.asarray(x, dtype=np.float64))


def d_intra(x: np.ndarray, labels: Sequence[str]) -> float | None:
    """Mean over profiles (with >= 2 windows) of their mean pairwise distance."""
    dist, labels_arr = cosine_distances(x), np.asarray(labels)
    per_profile = []
    for label in sorted(set(labels)):
        idx = np.flatnonzero(labels_arr == label)
        if len(idx) >= 2:
            sub = dist[np.ix_(idx, idx)]
            per_profile.append(sub[np.triu_indices(len(idx), k=1)].mean())
    return float(np.mean(per_profile)) if per_profile else None


def knn_label_consistency(x: np.ndarray, labels: Sequence[str], k: int) -> float | None:
    """Mean share of each window's k nearest other windows that carry its label."""
    n = len(labels)
    if n < 2:
        return None
    k = min(k, n - 1)
    dist = cosine_distances(x)
    np.fill_diagonal(dist, np.inf)
    neighbours = np.argsort(dist, axis=1, kind="stable")[:, :k]
    labels_arr = np.asarray(labels)
    return float((labels_arr[neighbours] == labels_arr[:, None]).mean())


def consistency_score(lc_k: float | None, intra: float | None, gamma: float) -> float:
    """gamma * LC^k + (1 - gamma) / (1 + D_intra) when D_intra > 0, else 0."""
    if lc_k is None or intra is None or intra <= 0:
        return 0.0
    return gamma * lc_k + (1 - gamma) / (1 + intra)


def spread(x: np.ndarray) -> float | None:
    """Mean cosine distance of the windows to their centroid."""
    if len(x) == 0:
        return None
    x = np.asarray(x, dtype=np.float64)
    centroid = x.mean(axis=0, keepdims=True)
    return float(cosine_distances(np.vstack([centroid, x]))[0, 1:].mean())


def cluster_count(x: np.ndarray, xi: float) -> int:
    """Number of connected groups when windows at distance <= xi are linked (SciPy's connected
    components of that graph)."""
    from scipy.sparse.csgraph import connected_components

    if len(x) == 0:
        return 0
    groups, _ = connected_components(cosine_distances(x) <= xi, directed=False)
    return int(groups)


def fidelity(
    x: np.ndarray, labels: Sequence[str], *, k: int, gamma: float, xi: float
) -> dict[str, float | int | None]:
    """Every metric for one labelled set of windows."""
    intra, lc = d_intra(x, labels), knn_label_consistency(x, labels, k)
    return {
        "profiles": len(set(labels)),
        "windows": len(labels),
        "d_intra": intra,
        "lc_k": lc,
        "consistency": consistency_score(lc, intra, gamma),
        "spread": spread(x),
        "cluster_xi": cluster_count(x, xi),
    }
