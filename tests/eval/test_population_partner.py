"""``partner.kind=population``: a trained population member moves the partner's chef tick by tick
beside the evaluated policy, drawn per episode seed, each member a held-out partner of its own in
BR-Prox; and the cross-play and Table 5 reports."""

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.envs.kitchen.population import draw_member, train_selfplay
from collabrl.envs.kitchen.ppo import PPOSettings
from collabrl.eval import reliability_table
from collabrl.eval.cli import eval_command
from collabrl.report.baselines import population_markdown
from tests.eval.conftest import MotionPartnerEval, kitchen_partner_args

TINY = PPOSettings(updates=1, envs=1, horizon=20, hidden=8, minibatch=64, epochs=1)
ARGS = kitchen_partner_args("population", 30)


def test_a_population_member_partners_the_evaluated_policy(
    tmp_path: Path, motion_partner_moves_every_tick: MotionPartnerEval
) -> None:
    train_selfplay("cramped_room", seed=0, settings=TINY, folder=tmp_path / "pop")
    motion_partner_moves_every_tick("population", 30, [f"partner.population={tmp_path / 'pop'}"])


def test_without_a_population_the_evaluation_stops_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        eval_command,
        [
            *ARGS,
            "partner.members=[fcp0]",
            f"partner.population={tmp_path}",
            f"output_dir={tmp_path / 'e'}",
        ],
    )
    assert "no population member 'fcp0' for cramped_room" in str(result.exception)
    assert "\n" not in str(result.exception)


def test_table_5_rows_stand_beside_the_trained_agents() -> None:
    crossplay = {
        "episodes": 4,
        "stamp": {"commit": "abc1234", "date": "2026-12-06"},
        "paper": {
            "SP": {"cramped_room": (40.0, 11.47, 101.33, 36.12), "Total": (55.2, 0, 103.47, 0)}
        },
        "scores": {
            "cramped_room": {
                "sp0_final": {"persona": [100.0, 20.0, 60.0, 40.0], "sp0_final": [80.0, 40.0]},
            }
        },
    }
    text = population_markdown(crossplay)
    row = next(line for line in text.splitlines() if line.startswith("| cramped_room"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # SP: paper A1, A2; ours beside personas in seat 1 (even episodes) and 2 (odd); self-play
    assert cells[1:6] == ["40.00", "101.33", "80.00", "30.00", "60.00"]
    assert cells[6:] == ["—"] * 20  # no PBT, FCP, MEP or COLE agent trained, none printed
    assert "commit abc1234" in text


@pytest.mark.slow  # trains a (tiny) population
def test_each_population_member_is_a_held_out_partner_of_its_own(tmp_path: Path) -> None:
    # two members, drawn per episode seed (seeds 0, 1 draw sp0_final; 4, 5 draw sp0_mid50)
    train_selfplay("cramped_room", seed=0, settings=TINY, folder=tmp_path / "pop")
    members = ["sp0_mid50", "sp0_final"]
    assert [draw_member(members, s) for s in (0, 1, 4, 5)] == [members[1]] * 2 + [members[0]] * 2
    episodes = {}
    for policy in ("expert", "idle"):
        out = tmp_path / policy
        args = [
            *kitchen_partner_args("population", 60),
            f"partner.population={tmp_path / 'pop'}",
            f"partner.members=[{','.join(members)}]",
            "seeds=[0,1,4,5]",
            "seats=[1]",
            f"policy.kind={policy}",
            f"output_dir={out}",
        ]
        result = CliRunner().invoke(eval_command, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        with (out / "episodes.csv").open(newline="") as f:
            episodes[policy] = list(csv.DictReader(f))
        records = [json.loads(line) for line in (out / "trajectories.jsonl").open()]
        assert [r["partner"] for r in records] == [r["partner"] for r in episodes[policy]]
    # every row names the member its seed drew, though all share one test profile
    for rows in episodes.values():
        assert [(r["seed"], r["partner"]) for r in rows] == [
            ("0", "population:sp0_final"),
            ("1", "population:sp0_final"),
            ("4", "population:sp0_mid50"),
            ("5", "population:sp0_mid50"),
        ]
        assert len({r["profile"] for r in rows}) == 1
    # the expert serves one soup (20) beside either member, the idle policy none (0): the expert
    # is each member's best response (ratio 1), the idle one reaches 0 / 20 with each
    assert {r["efficiency"] for r in episodes["expert"]} == {"20.0"}
    assert {r["efficiency"] for r in episodes["idle"]} == {"0.0"}
    table = {r["method"]: r for r in reliability_table.build(episodes)}
    assert (table["expert"]["br_prox"], table["expert"]["br_prox_n"]) == (1.0, 2)
    assert (table["idle"]["br_prox"], table["idle"]["br_prox_n"]) == (0.0, 2)
