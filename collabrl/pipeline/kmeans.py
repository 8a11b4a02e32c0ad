"""k-means of the profile pipeline's window embeddings, by scikit-learn.

Why scikit-learn and no fallback: it is the well-kept implementation (k-means++ seeding, the best
of ``n_init`` runs), a core dependency, and a single backend means one run's clusters never
depend on what else happens to be installed. The seed makes CPU runs reproducible.
scikit-learn is imported when a clustering runs, not with this module: importing it (and the SciPy
it loads) was half the start-up of every ``collabrl`` command, since the command line imports the
pipeline.
"""

from __future__ import annotations

from importlib.metadata import version

import numpy as np

BACKEND = f"scikit-learn {version('scikit-learn')}"
"""What the cluster stage's summary names as its k-means."""


def kmeans(points: np.ndarray, k: int, seed: int, n_init: int = 10) -> np.ndarray:
    """Labels 0..k'-1 (k' <= k: never more clusters than distinct points), numbered in order of
    first appearance."""
    from sklearn.cluster import KMeans

    k = max(1, min(k, len(np.unique(points, axis=0))))
    labels = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit_predict(points)
    return _compact(labels)


def _compact(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..n-1 in order of first appearance (drops empty clusters' numbers)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].astype(int)
