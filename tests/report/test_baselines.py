"""The non-LLM baselines (Tables 4-5): the silent expert and the random player as `collabrl eval`
policies, and `collabrl report baselines` laying them out per task and seat."""

from __future__ import annotations

import csv
import statistics

import pytest

from collabrl.agents.baselines import RandomPlayer, SilentPlayer
from collabrl.agents.protocol import parse_response
from collabrl.envs.base import Decision
from collabrl.envs.registry import get_game
from collabrl.factory import make_expert
from collabrl.profiles import load_profiles
from collabrl.report.baselines import NOT_RUNNABLE
from tests.report.conftest import run_cli


def read_csv(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("kind", ["silent", "random"])
def test_baselines_never_send_a_message(eval_dirs, kind) -> None:
    episodes = read_csv(eval_dirs[kind] / "episodes.csv")
    assert len(episodes) == 12  # two games x three profiles x two seats
    assert all(float(e["message_ratio"]) == 0 for e in episodes)
    assert all(e["messages_agent"] == "0" for e in episodes)
    # the experts they are compared with do talk
    expert = read_csv(eval_dirs["trained"] / "episodes.csv")
    assert any(float(e["message_ratio"]) > 0 for e in expert)


def test_random_player_is_seeded_by_episode_and_seat() -> None:
    game = game_section().make_game()
    obs = game.reset(seed=0)
    seat = next(iter(obs))
    picks = []
    for _ in range(2):
        p = RandomPlayer()
        p.reset(seat, 7)
        picks.append([parse_response(p.act(obs[seat]), obs[seat].actions).action for _ in range(5)])
    assert picks[0] == picks[1]
    assert all(a in obs[seat].actions and a != obs[seat].message_action for a in picks[0])


def test_silent_expert_moves_where_the_expert_talks() -> None:
    section = game_section()
    game = section.make_game()
    obs = game.reset(seed=0)
    seat = next(iter(obs))
    expert, silent = make_expert(section), SilentPlayer(make_expert(section))
    expert.reset(seat, 0)
    silent.reset(seat, 0)
    talked = parse_response(expert.act(obs[seat]), obs[seat].actions)
    moved = parse_response(silent.act(obs[seat]), obs[seat].actions)
    assert talked.action == obs[seat].message_action  # the expert opens by reporting a find
    assert moved.valid and moved.action != obs[seat].message_action and moved.message == ""
    game.step({seat: Decision(moved.action)})


def game_section():
    return get_game("household").model_validate({"name": "household", "task": "0_read_book"})


def test_baselines_table_layout(eval_dirs, tmp_path) -> None:
    d = eval_dirs
    text = run_cli(
        "report",
        "baselines",
        str(d["silent"]),
        str(d["random"]),
        str(d["base"]),
        "--out",
        str(tmp_path),
    )
    assert "### CWAH-MultiPlayer (household): non-LLM baselines (Tables 4-5 layout)" in text
    header = next(line for line in text.splitlines() if line.startswith("| Task"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[:5] == [
        "Task",
        "silent Step ↓ Agent 1",
        "silent Step ↓ Agent 2",
        "silent Std. Agent 1",
        "silent Std. Agent 2",
    ]
    assert "idle Score ↑ Agent 1" in text  # the kitchen's heading
    assert all(f"- {name}:" in text for name in NOT_RUNNABLE)
    rows = read_csv(tmp_path / "baselines.csv")
    assert [(r["game"], r["task"]) for r in rows] == [
        ("household", "0_read_book"),
        ("household", "Total"),
        ("kitchen", "cramped_room"),
        ("kitchen", "Total"),
    ]
    tables = read_csv(d["silent"] / "tables.csv")
    mine = next(r for r in tables if r["game"] == "kitchen" and r["task"] == "Overall")
    total = rows[3]
    assert float(total["silent efficiency agent1"]) == pytest.approx(float(mine["efficiency"]))
    assert float(total["silent std agent1"]) == pytest.approx(float(mine["std"]))


def test_baselines_need_distinct_names(eval_dirs) -> None:
    d = eval_dirs
    text = run_cli("report", "baselines", str(d["trained"]), str(d["oracle"]), code=2)
    assert "both named 'expert'" in text
    ok = run_cli(
        "report", "baselines", str(d["trained"]), str(d["oracle"]), "--label", "a", "--label", "b"
    )
    assert "a Step ↓ Agent 1" in ok


def test_every_tables_4_5_baseline_is_run_or_explained() -> None:
    assert set(NOT_RUNNABLE) == {"MHP (CWAH)"}
    assert load_profiles("household", "test")  # the partners the baselines play with


@pytest.mark.parametrize(("game", "std"), [("household", "pstdev"), ("kitchen", "stdev")])
def test_an_evaluation_std_follows_its_game(eval_dirs, game, std) -> None:
    """The Std. cells of a real evaluation: CWAH's across profiles as a population std, Cook's as
    a sample std (Table 7), one seed per profile here."""
    episodes = read_csv(eval_dirs["trained"] / "episodes.csv")
    tables = [r for r in read_csv(eval_dirs["trained"] / "tables.csv") if r["game"] == game]
    assert any(float(r["std"]) > 0 for r in tables)
    for row in tables:
        mine = [
            float(e["efficiency"])
            for e in episodes
            if e["game"] == game and e["seat"] == row["seat"]
        ]
        assert float(row["std"]) == pytest.approx(getattr(statistics, std)(mine))
