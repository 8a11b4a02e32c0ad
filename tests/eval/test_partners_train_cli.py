"""``collabrl partners train-<method>``: each command trains and stores its member, and says so."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli, main
from collabrl.envs.kitchen.population import member_names
from collabrl.eval.partners_cli import POPULATION_COMMANDS


def test_every_table_5_method_has_a_command() -> None:
    assert set(POPULATION_COMMANDS) == {"sp", "fcp", "mep", "pbt", "cole"}


@pytest.mark.parametrize(
    ("method", "stored"),
    [
        ("sp", ["sp0_final", "sp0_init", "sp0_mid50"]),
        ("cole", ["cole0", "cole0_g0", "cole0_g1"]),
    ],
)
def test_a_train_command_stores_its_member(tmp_path: Path, method: str, stored: list[str]) -> None:
    args = ["partners", f"train-{method}", "cramped_room", "--updates", "2", "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"{method}0 on cramped_room: 2 updates" in result.output
    assert member_names("cramped_room", tmp_path) == stored


def test_fcp_without_self_play_agents_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["partners", "train-fcp", "cramped_room", "--updates", "1", "--out", str(tmp_path)]
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no self-play agents for cramped_room") and err.count("\n") == 1
