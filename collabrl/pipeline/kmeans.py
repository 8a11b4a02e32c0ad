"""k-means: scikit-learn's when installed, else a small seeded NumPy k-means++ / Lloyd.

Why: clustering windows must work on a bare install; both paths take a seed, so CPU runs are
reproducible, and both return plain integer labels.
"""

from __future__ import annotations

import importlib.util

import numpy as np


def kmeans(points: np.ndarray, k: int, seed: int, n_init: int = 10) -> tuple[np.ndarray, str]:
    """Labels 0..k'-1 (k' <= k: never more clusters than distinct points) and the backend used."""
    k = max(1, min(k, len(np.unique(points, axis=0))))
    if importlib.util.find_spec("sklearn") is not None:
        from sklearn.cluster import KMeans

        labels = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit_predict(points)
        return _compact(labels), "scikit-learn"
    return _compact(numpy_kmeans(points, k, seed, n_init)), "numpy"


def numpy_kmeans(
    points: np.ndarray, k: int, seed: int, n_init: int = 10, max_iter: int = 100
) -> np.ndarray:
    """Best of ``n_init`` k-means++-initialised Lloyd runs (lowest within-cluster squared error)."""
    rng = np.random.default_rng(seed)
    x = np.asarray(points, dtype=np.float64)
    best, best_inertia = np.zeros(len(x), dtype=int), np.inf
    for _ in range(n_init):
        centers = _plus_plus(x, k, rng)
        for _ in range(max_iter):
            labels = _sq_dist(x, centers).argmin(axis=1)
            moved = np.array(
                [
                    x[labels == c].mean(axis=0) if np.any(labels == c) else centers[c]
                    for c in range(k)
                ]
            )
            if np.allclose(moved, centers):
                break
            centers = moved
        labels = _sq_dist(x, centers).argmin(axis=1)
        inertia = _sq_dist(x, centers)[np.arange(len(x)), labels].sum()
        if inertia < best_inertia:
            best, best_inertia = labels, inertia
    return best


def _plus_plus(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    centers = [x[rng.integers(len(x))]]
    for _ in range(1, k):
        d = _sq_dist(x, np.array(centers)).min(axis=1)
        total = d.sum()
        pick = rng.choice(len(x), p=d / total) if total > 0 else rng.integers(len(x))
        centers.append(x[pick])
    return np.array(centers)


def _sq_dist(x: np.ndarray, centers: np.ndarray) -> np.ndarray:
    d = (x**2).sum(axis=1)[:, None] - 2 * x @ centers.T + (centers**2).sum(axis=1)[None, :]
    return np.maximum(d, 0.0)


def _compact(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..n-1 in order of first appearance (drops empty clusters' numbers)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].astype(int)
