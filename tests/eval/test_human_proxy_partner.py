"""``collabrl eval`` with ``partner.kind=human_proxy``: the proxy moves the partner's chef tick by
tick beside the evaluated policy, and a missing proxy is a one-line error."""

import json
from pathlib import Path

from click.testing import CliRunner

from collabrl.envs.kitchen.engine import ACTIONS
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.errors import CollabrlError
from collabrl.eval.cli import eval_command

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"
ARGS = [
    "games=[kitchen]",
    "tasks=[cramped_room]",
    "max_profiles=1",
    "policy.kind=expert",
    "partner.kind=human_proxy",
    "game_options={kitchen: {horizon: 40}}",
    "--quiet",
]


def test_a_human_proxy_partners_the_evaluated_policy(tmp_path: Path) -> None:
    trials = [
        t for t in trials_of(read_frame("test", FIXTURE), "test") if t.layout == "cramped_room"
    ]
    save_proxy(train_proxy("cramped_room", trials, epochs=5, hidden=8), tmp_path / "proxies")
    out = tmp_path / "eval"
    result = CliRunner().invoke(
        eval_command,
        [*ARGS, f"partner.proxies={tmp_path / 'proxies'}", f"output_dir={out}"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert len(records) == 2  # the policy in either seat
    for record in records:
        mate = next(s for s in record["summary"]["decisions"] if s != record["seat_name"])
        assert record["summary"]["motion_seats"] == [mate]
        moves = [t["action"] for t in record["turns"] if t["seat"] == mate]
        assert len(moves) == 40 and set(moves) <= set(ACTIONS)


def test_without_built_proxies_the_evaluation_stops_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        eval_command, [*ARGS, f"partner.proxies={tmp_path}", f"output_dir={tmp_path / 'eval'}"]
    )
    assert isinstance(result.exception, CollabrlError)
    assert "no human proxy for cramped_room" in str(result.exception)
    assert "\n" not in str(result.exception)
