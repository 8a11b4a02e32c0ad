"""One torch thread per pytest-xdist worker.

The inner loop (``python -m pytest``) runs one xdist worker per core. Each worker's torch would
otherwise start a thread per core too, so two workers on two cores run four busy threads that wait
on each other: measured on a quiet 2-core machine, the default run took 137-149 CPU seconds and
65-84 s of wall time that way, 108-116 and 60-65 with one thread per worker. The serial run
(``-n 0``, as CI runs the full suite) keeps torch's default.
"""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ["OMP_NUM_THREADS"] = "1"  # the subprocesses a test starts (CLI runs) inherit it
        import torch

        torch.set_num_threads(1)
