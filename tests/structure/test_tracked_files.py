"""Only sources, docs and small shipped data are tracked in git.

A tool cache or a build output in git is rewritten by every run of that tool, and each commit then
carries megabytes of churn: one session's submission was refused for its size that way (a tracked
``.mypy_cache``). This test reads the index of the checkout it runs in, so CI, which runs in a
fresh clone, checks exactly what was submitted.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_BYTES = 1_000_000  # the largest tracked file today is a ~520 KB screenshot
CACHE_DIRS = (".mypy_cache", ".ruff_cache", ".pytest_cache", "__pycache__", ".venv", "runs")


def tracked_files() -> list[str]:
    """Paths in the git index of this checkout (CI runs in a clone, where git is present)."""
    if not (REPO / ".git").exists():
        pytest.fail("the tests run from a git checkout: this one has no .git")
    out = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], check=True, capture_output=True
    ).stdout
    return [p for p in out.decode().split("\0") if p]


def test_no_tool_cache_or_run_folder_is_tracked() -> None:
    cached = [p for p in tracked_files() if set(Path(p).parts) & set(CACHE_DIRS)]
    assert not cached, f"untrack these (git rm --cached) and ignore them: {cached[:5]}"


def test_no_tracked_file_is_large() -> None:
    large = {
        p: size
        for p in tracked_files()
        if (REPO / p).is_file() and (size := (REPO / p).stat().st_size) > MAX_BYTES
    }
    assert not large, f"files over {MAX_BYTES} bytes are tracked: {large}"
