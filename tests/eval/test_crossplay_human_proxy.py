"""``collabrl partners crossplay``: the human proxy is a partner column beside the population's
members and the persona players, its cells the scores of the agent playing beside it."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_partners import HUMAN_PARTNERS
from collabrl.envs.kitchen.human_proxy import HumanProxy, save_proxy, train_proxy
from collabrl.envs.kitchen.population import (
    PopulationPartner,
    train_cole_agent,
    train_fcp,
    train_mep,
    train_selfplay,
)
from collabrl.envs.kitchen.ppo import PPOSettings
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.eval.crossplay import PROXY, play_pair
from collabrl.stats import mean_ci

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"
TINY = PPOSettings(updates=1, envs=1, horizon=20, hidden=8, minibatch=64, epochs=1)


@pytest.mark.slow  # plays 64 kitchen episodes of 400 ticks
def test_the_human_proxy_is_a_crossplay_column(tmp_path: Path) -> None:
    """With MEP and COLE agents stored, they join the agents and the member partners."""
    trials = trials_of(read_frame("test", FIXTURE), "test")
    mine = [t for t in trials if t.layout == "cramped_room"]
    proxies, pop, out = tmp_path / "proxies", tmp_path / "pop", tmp_path / "out"
    save_proxy(train_proxy("cramped_room", mine, epochs=5, hidden=8), proxies)
    train_selfplay("cramped_room", seed=0, settings=TINY, folder=pop)
    train_fcp("cramped_room", seed=0, settings=TINY, folder=pop)
    train_mep("cramped_room", seed=0, settings=TINY, members=2, folder=pop)
    train_cole_agent("cramped_room", seed=0, settings=TINY, generations=1, folder=pop)
    args = ["partners", "crossplay", "--task", "cramped_room", "--episodes", "2"]
    args += ["--population", str(pop), "--proxies", str(proxies), "--out", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    facts = json.loads((out / "crossplay.json").read_text())
    assert PROXY in facts["partners"] and {"mep0", "cole0"} <= set(facts["partners"])
    assert facts["agents"] == ["sp0_final", "fcp0", "mep0", "cole0"]
    # by hand: each agent in seat 1 (episode 0, seed 0) and seat 2 (episode 1, seed 1)
    base = KitchenSection.model_validate(
        {**HUMAN_PARTNERS.section("cramped_room").model_dump(), **KitchenSection.eval_options}
    )
    played = HUMAN_PARTNERS.for_proxies(base, base.seats)
    text = (out / "crossplay.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| task"))
    column = [c.strip() for c in header.strip("|").split("|")].index(PROXY)
    tables = text.split("####")[1:]
    for agent in facts["agents"]:
        by_hand = [
            play_pair(
                played,
                HUMAN_PARTNERS,
                PopulationPartner([agent], pop),
                HumanProxy(proxies),
                e,
                e,
            )
            for e in (0, 1)
        ]
        assert facts["scores"]["cramped_room"][agent][PROXY] == by_hand
        table = next(t for t in tables if t.lstrip().startswith(agent))
        cells = next(line for line in table.splitlines() if line.startswith("| cramped_room"))
        assert [c.strip() for c in cells.strip("|").split("|")][column] == (
            mean_ci(by_hand).cell(1)
        )
