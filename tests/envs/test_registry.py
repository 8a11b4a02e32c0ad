"""The registry with broken plug-ins installed beside the shipped games: every command on the
built-in games works as without them (a warning names each broken plug-in, its package, entry
point and the plug-in's own file and line), and only using a broken game fails, in one line.

The plug-ins are real installed distributions: a ``*.dist-info`` folder with an entry point on
``PYTHONPATH``, which is what ``importlib.metadata`` finds for a pip-installed package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BROKEN = {
    # the entry point names a module that does not exist
    "missing": "no_such_plugin.section:Section",
    # the plug-in's own module fails while importing (line 2 of its file)
    "crashing": "crashing_plugin:Section",
    # a section class without the class facts the evaluation reads
    "factless": "factless_plugin:Section",
    # a section declaring seats before its task field
    "unordered": "unordered_plugin:Section",
}
FACTLESS = """
from typing import Literal
from collabrl.envs.registry import GameSection
from collabrl.sections import SeatNames


class Section(GameSection):
    name: Literal["factless"] = "factless"
    task: str = "t"
    seats: SeatNames = ["A"]

    def make_game(self):
        raise AssertionError("the registry refuses this section before any game is made")

    def efficiency(self, summary):
        return 0.0

    @classmethod
    def tasks(cls, split):
        return ("t",)
"""


UNORDERED = """
from typing import ClassVar, Literal
from collabrl.envs.registry import GameSection
from collabrl.sections import SeatNames


class Section(GameSection):
    name: Literal["unordered"] = "unordered"
    seats: SeatNames = ["A"]
    task: str = "t"

    title: ClassVar[str] = "Unordered"
    description: ClassVar[str] = "a game whose section lists its seats before its task"
    efficiency_metric: ClassVar[str] = "steps"
    lower_is_better: ClassVar[bool] = True

    def make_game(self):
        raise AssertionError("the registry refuses this section before any game is made")

    def efficiency(self, summary):
        return 0.0

    @classmethod
    def tasks(cls, split):
        return ("t",)
"""


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    (root / "crashing_plugin.py").write_text('"""A plug-in that breaks."""\nimport no_such_dep\n')
    (root / "factless_plugin.py").write_text(FACTLESS)
    (root / "unordered_plugin.py").write_text(UNORDERED)
    for name, value in BROKEN.items():
        info = root / f"{name}_game-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-game\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[collabrl.games]\n{name} = {value}\n")
    return root


def collabrl(plugins: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), *sys.path])}
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--help"], marks=pytest.mark.slow),
        ["tasks", "--game", "household"],
        pytest.param(["lint", "household_experts"], marks=pytest.mark.slow),
        pytest.param(
            ["play", "household_experts", "game.max_ticks=30", "output_dir={out}"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_commands_on_the_shipped_games_work_beside_broken_plugins(plugins, tmp_path, args):
    args = [a.format(out=tmp_path / "play") for a in args]
    result = collabrl(plugins, *args)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("collabrl: warning")]
    assert len(warnings) == 4 and all(line.endswith("; left out") for line in warnings)
    missing, crashing, factless, unordered = sorted(
        warnings, key=lambda w: list(BROKEN).index(w.split("'")[1])
    )
    assert (
        "game 'missing' (package missing-game 0.1, entry point no_such_plugin.section:Section)"
        in missing
    )
    assert "ModuleNotFoundError" in missing
    assert "No module named 'no_such_dep'" in crashing
    assert f"(at {plugins / 'crashing_plugin.py'}:2)" in crashing
    assert "does not set the class facts title, description, efficiency_metric" in factless
    assert "must declare the fields name, task, seats first, in that order" in unordered


@pytest.mark.slow
def test_using_a_broken_game_is_a_one_line_error(plugins) -> None:
    result = collabrl(plugins, "tasks", "--game", "crashing")
    assert result.returncode != 0
    errors = [
        line for line in result.stderr.splitlines() if not line.startswith("collabrl: warning")
    ]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    assert "game 'crashing'" in errors[0] and "failed to load" in errors[0]
