"""Fixtures shared by the evaluation tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.envs.kitchen.engine import ACTIONS
from collabrl.eval.cli import eval_command

MotionPartnerEval = Callable[[str, int, list[str]], None]


def kitchen_partner_args(kind: str, horizon: int) -> list[str]:
    """``collabrl eval`` arguments: the expert on cramped_room, one profile, beside a partner of
    ``partner.kind=KIND`` over a kitchen horizon of ``horizon`` ticks."""
    return [
        "games=[kitchen]",
        "tasks=[cramped_room]",
        "max_profiles=1",
        "policy.kind=expert",
        f"partner.kind={kind}",
        f"game_options={{kitchen: {{horizon: {horizon}}}}}",
        "--quiet",
    ]


@pytest.fixture
def motion_partner_moves_every_tick(tmp_path: Path) -> MotionPartnerEval:
    """Checks a motion-level kitchen partner (a population member, a human proxy) end to end:
    ``collabrl eval`` of :func:`kitchen_partner_args` with the partner's own settings, then, in
    each of the two records (the policy in either seat), the partner's chef is the one motion seat
    and moves on every tick of the horizon, and the record names it. One check, so every such partner is held to the same
    bar."""

    def check(kind: str, horizon: int, partner_settings: list[str]) -> None:
        out = tmp_path / "eval"
        args = [*kitchen_partner_args(kind, horizon), *partner_settings, f"output_dir={out}"]
        result = CliRunner().invoke(eval_command, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        lines = (out / "trajectories.jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
        assert len(records) == 2  # the policy in either seat
        for record in records:
            mate = next(s for s in record["summary"]["decisions"] if s != record["seat_name"])
            assert record["summary"]["motion_seats"] == [mate]
            assert record["partner"].partition(":")[0] == kind  # the member or proxy that played
            moves = [t["action"] for t in record["turns"] if t["seat"] == mate]
            assert len(moves) == horizon and set(moves) <= set(ACTIONS)

    return check
