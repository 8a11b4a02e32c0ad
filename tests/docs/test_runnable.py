"""Every command block the Markdown marks runnable runs, and exits 0.

A block is marked by the line ``<!-- runnable -->`` just before its fence (invisible on GitHub and
on the site); ``<!-- runnable: needs MODULE from EXTRA -->`` marks a block that needs an optional
extra: where MODULE is not installed it skips, naming the install (under CI it fails: CI installs
every extra). A bash block runs as one ``set -e`` script, a python block as a script, each in a
scratch folder (where run folders land) with ``examples/`` linked in, so the paths the docs write
work, and each under a time limit. The blocks are cheap by rule (CONTRIBUTING.md): tiny settings,
no model server, no GPU.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.markdown import OUTSIDE_SITE, REPO, SITE_PAGES
from tests.needs import missing

MARKED = re.compile(
    r"^<!-- runnable(?:: needs ([\w.]+) from (\S+))? -->\n```(bash|python)\n(.*?)^```", re.M | re.S
)
TIMEOUT_S = 120


def runnable_blocks() -> list[tuple[str, str, str, tuple[str, str] | None]]:
    """(where, language, code, needs) of every marked block, ``where`` as ``file:line``,
    ``needs`` the (module, extra) the block needs or None."""
    blocks = []
    for path in SITE_PAGES + OUTSIDE_SITE:
        text = path.read_text(encoding="utf-8")
        for match in MARKED.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            module, extra, language, code = match.groups()
            needs = (module, extra) if module else None
            blocks.append((f"{path.relative_to(REPO)}:{line}", language, code, needs))
    return blocks


BLOCKS = runnable_blocks()


def test_the_docs_mark_blocks_runnable() -> None:
    # a marker that stopped matching (a changed fence, a typo) would leave nothing to run
    assert len(BLOCKS) >= 5, BLOCKS


@pytest.mark.slow  # each block starts collabrl afresh: seconds apiece, so CI's full run has them
@pytest.mark.parametrize(("where", "language", "code", "needs"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_runnable_block_runs(
    where: str, language: str, code: str, needs: tuple[str, str] | None, tmp_path: Path
) -> None:
    if needs and importlib.util.find_spec(needs[0]) is None:
        missing(f"{where} needs {needs[0]}: pip install '{needs[1]}'")
    (tmp_path / "examples").symlink_to(REPO / "examples")
    command = ["bash", "-e", "-c", code] if language == "bash" else [sys.executable, "-c", code]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    try:
        done = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}: still running after {TIMEOUT_S} s")
    assert done.returncode == 0, f"{where} exited {done.returncode}:\n{done.stderr[-2000:]}"
