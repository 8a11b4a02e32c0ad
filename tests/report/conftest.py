"""Small real evaluation folders shared by the report tests (one household task and one kitchen
layout, three test profiles each, the offline proxy judge): a few seconds in all."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.errors import CollabrlError
from collabrl.eval.cli import eval_command

SMALL = (
    "collabbench_proxy",  # the offline protocol: persona partners, heuristic judge
    "games=[household,kitchen]",
    "tasks=[0_read_book,cramped_room]",
    "max_profiles=3",
    "--quiet",
)


def run_cli(*args: str, code: int = 0) -> str:
    """``collabrl ARGS`` in-process; a user error counts as ``collabrl.cli.main`` shows it (exit
    code 2, ``error: ...``). Returns stdout and stderr together."""
    result = CliRunner().invoke(cli, list(args))
    if isinstance(result.exception, CollabrlError):
        got, text = 2, f"{result.output}error: {result.exception}\n"
    else:
        got, text = result.exit_code, result.output
    assert got == code, text
    return text


def evaluate(out: Path, *args: str) -> Path:
    """``collabrl eval`` of the small selection into ``out``."""
    result = CliRunner().invoke(
        eval_command, [*SMALL, *args, f"output_dir={out}"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def eval_dirs(tmp_path_factory) -> dict[str, Path]:
    """Finished evaluations: oracle (the expert with --oracle), base (idle), trained (the
    expert), silent and random (the non-LLM baselines)."""
    root = tmp_path_factory.mktemp("evals")
    return {
        "oracle": evaluate(root / "oracle", "policy.kind=expert", "--oracle"),
        "base": evaluate(root / "base", "policy.kind=idle"),
        "trained": evaluate(root / "trained", "policy.kind=expert"),
        "silent": evaluate(root / "silent", "policy.kind=silent"),
        "random": evaluate(root / "random", "policy.kind=random"),
    }
