"""`collabrl check GAME`: the conformance checker on an installed game, from the command line."""

import pytest
from click.testing import CliRunner

from collabrl.cli import cli, main
from collabrl.envs.checker import RULES


@pytest.mark.slow
def test_check_passes_the_shipped_games_on_a_train_and_a_test_task() -> None:
    out = CliRunner().invoke(cli, ["check", "kitchen", "--seeds", "0"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [
        f"kitchen cramped_room: passes all {len(RULES)} rules (seeds 0)"
    ]
    out = CliRunner().invoke(cli, ["check", "household", "--task", "5_read_book", "--seeds", "3"])
    assert out.exit_code == 0 and "household 5_read_book: passes" in out.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["check", "chess"], "unknown game 'chess'"),
        (["check", "household", "--task", "nope"], "household task 'nope'"),
        (["check", "household", "--seeds", "a,b"], "--seeds takes integers"),
    ],
)
def test_check_names_a_bad_game_task_or_seed_in_one_line(args, said, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and said in err and len(err.strip().splitlines()) == 1
