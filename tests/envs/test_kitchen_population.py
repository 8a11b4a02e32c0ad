"""Kitchen partner populations: PPO self-play (pinned on a tiny seeded run), overcooked-ai's
reward shaping, FCP's pool from stored self-play checkpoints, MEP's population-entropy reward and
prioritised sampling, PBT's exploit-and-explore step, COLE's cross-play game and Shapley values,
and members drawn reproducibly."""

from pathlib import Path

import numpy as np
import pytest

from collabrl.envs.kitchen.engine import DISH, ONION, Chef, KitchenState, Soup
from collabrl.envs.kitchen.population import (
    COLE_PRIORITY,
    MEP_PRIORITY,
    PBT_READY,
    draw_member,
    fcp_pool,
    load_member,
    member_names,
    mep_pool,
    train_cole_agent,
    train_fcp,
    train_mep,
    train_pbt_population,
    train_selfplay,
)
from collabrl.envs.kitchen.population_training import (
    PBT_PERTURB,
    copy_and_perturb,
    crossplay_payoffs,
    population_entropy_bonus,
    shapley_values,
)
from collabrl.envs.kitchen.ppo import (
    DISH_PICKUP,
    ONION_IN_POT,
    SOUP_PICKUP,
    PPOSettings,
    PPOTrainer,
    gae,
    priorities,
    shaped_reward,
    train,
)
from collabrl.errors import CollabrlError

TINY = PPOSettings(updates=2, envs=2, horizon=40, hidden=8, minibatch=64, epochs=2)


def _sums(model) -> list[float]:
    return [round(float(w.sum()), 4) for w in model.weights]


def test_a_tiny_selfplay_run_is_pinned_and_reproducible() -> None:
    first = train("cramped_room", seed=3, settings=TINY)
    again = train("cramped_room", seed=3, settings=TINY)
    assert list(first.checkpoints) == ["init", "mid50", "final"]
    assert first.scores == again.scores
    final, init = first.checkpoints["final"], first.checkpoints["init"]
    assert _sums(final) == _sums(again.checkpoints["final"])
    assert _sums(final) != _sums(init)  # two updates moved the weights
    assert first.scores == PINNED_SCORES
    assert _sums(final) == pytest.approx(PINNED_SUMS, abs=2e-4)
    assert first.cpu_seconds > 0


PINNED_SCORES = [0.0, 0.0]  # 40 ticks of a barely trained pair deliver nothing
PINNED_SUMS = [-0.9565, -0.0442, 0.7097, 0.2116, -1.0177, 0.0217]  # each actor tensor's sum


def _state(held, pots=None) -> KitchenState:
    """Chef 0 at (1, 1) facing north (the pot above it in the tests), chef 1 elsewhere."""
    return KitchenState([Chef((1, 1), (0, -1), held), Chef((3, 1))], pots=pots or {})


def test_shaping_follows_overcooked_ai() -> None:
    into_pot = _state(None, {(1, 0): Soup(1)})
    assert shaped_reward((ONION, None), into_pot, 0) == ONION_IN_POT == 3
    onto_counter = _state(None)  # the onion left the hand but no pot holds it
    assert shaped_reward((ONION, None), onto_counter, 0) == 0
    full = _state(DISH, {(2, 0): Soup(3, 5)})
    assert shaped_reward((None, None), full, 0) == DISH_PICKUP == 3
    assert shaped_reward((None, None), _state(DISH), 0) == 0  # no pot waits for a dish
    assert shaped_reward((DISH, None), _state(Soup(3, 20)), 0) == SOUP_PICKUP == 5
    assert shaped_reward((None, None), _state(None), 0) == 0


def test_fcp_trains_against_every_stored_selfplay_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(CollabrlError, match="no self-play agents for cramped_room"):
        fcp_pool("cramped_room", tmp_path)
    facts = train_selfplay("cramped_room", seed=0, settings=TINY, folder=tmp_path)
    assert facts["kind"] == "sp" and len(facts["scores"]) == 2
    assert fcp_pool("cramped_room", tmp_path) == ["sp0_final", "sp0_init", "sp0_mid50"]
    fcp = train_fcp("cramped_room", seed=1, settings=TINY, folder=tmp_path)
    assert fcp["pool"] == ["sp0_final", "sp0_init", "sp0_mid50"]
    assert member_names("cramped_room", tmp_path) == [
        "fcp1",
        "sp0_final",
        "sp0_init",
        "sp0_mid50",
    ]
    stored = load_member("cramped_room", "fcp1", tmp_path)
    assert stored.facts["kind"] == "fcp" and stored.facts["seed"] == 1
    p = stored.probabilities(np.zeros((1, stored.weights[0].shape[1]), dtype=np.float32))
    assert p.shape == (1, 6) and p.sum() == pytest.approx(1.0)


def test_a_missing_member_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(CollabrlError, match="no population member 'fcp0' for cramped_room") as e:
        load_member("cramped_room", "fcp0", tmp_path)
    assert "\n" not in str(e.value)


def test_members_are_drawn_per_seed_reproducibly() -> None:
    members = ["fcp0", "sp0_final", "sp0_mid50"]
    draws = [draw_member(members, seed) for seed in range(30)]
    assert draws == [draw_member(members, seed) for seed in range(30)]
    assert set(draws) == set(members)
    assert draws[:6] == PINNED_DRAWS
    with pytest.raises(CollabrlError, match="empty partner population"):
        draw_member([], 0)


PINNED_DRAWS = ["fcp0", "fcp0", "sp0_mid50", "fcp0", "sp0_final", "sp0_final"]


def test_gae_on_a_constructed_episode() -> None:
    rewards = np.array([[1.0], [0.0], [2.0]], dtype=np.float32)
    values = np.array([[0.5], [1.0], [0.0], [4.0]], dtype=np.float32)  # the last: bootstrapped
    gamma, lam = 0.5, 0.5
    d2 = 2.0 + 0.5 * 4.0 - 0.0  # delta_t = r_t + gamma * V_{t+1} - V_t
    d1 = 0.0 + 0.5 * 0.0 - 1.0
    d0 = 1.0 + 0.5 * 1.0 - 0.5
    expected = [d0 + 0.25 * (d1 + 0.25 * d2), d1 + 0.25 * d2, d2]
    assert gae(rewards, values, gamma, lam)[:, 0] == pytest.approx(expected)


def test_prioritised_sampling_favours_the_partners_scored_least_beside() -> None:
    scores = np.array([10.0, 0.0, 5.0])  # ranks: 1 (best), 3 (worst), 2
    assert priorities(scores, 1.0) == pytest.approx([1 / 6, 3 / 6, 2 / 6])
    assert priorities(scores, 3.0) == pytest.approx([1 / 36, 27 / 36, 8 / 36])
    assert priorities(scores, 0.0) == pytest.approx([1 / 3] * 3)
    assert priorities(np.array([1.0, 1.0]), 3.0) == pytest.approx([1 / 9, 8 / 9])  # ties: order


def test_the_population_entropy_bonus_is_minus_log_of_the_mean_policy() -> None:
    import torch

    uniform = lambda x: torch.zeros(len(x), 6)  # noqa: E731
    keen = lambda x: torch.log(torch.tensor([[4.0, 1, 1, 1, 1, 1]])).expand(len(x), 6)  # noqa: E731
    bonus = population_entropy_bonus([uniform, keen], alpha=0.1)
    got = bonus(np.zeros((2, 3), dtype=np.float32), np.array([0, 1]))
    # action 0: (1/6 + 4/9) / 2 = 11/36; action 1: (1/6 + 1/9) / 2 = 5/36
    assert got == pytest.approx([-0.1 * np.log(11 / 36), -0.1 * np.log(5 / 36)], rel=1e-5)


def test_mep_trains_a_population_then_its_agent_against_it(tmp_path: Path) -> None:
    with pytest.raises(CollabrlError, match="no MEP population mep0 for cramped_room"):
        mep_pool("cramped_room", 0, tmp_path)
    facts = train_mep("cramped_room", seed=0, settings=TINY, members=2, folder=tmp_path)
    pool = ["mep0_p0_final", "mep0_p0_mid50", "mep0_p1_final", "mep0_p1_mid50"]
    assert facts["kind"] == "mep" and facts["pool"] == pool == mep_pool("cramped_room", 0, tmp_path)
    assert facts["priority"] == MEP_PRIORITY and facts["members"] == 2
    # both stages counted (at 0.1 s, the tiny agent stage may round to nothing)
    assert 0 < facts["population_cpu_seconds"] <= facts["cpu_seconds"]
    assert "mep0" in member_names("cramped_room", tmp_path)
    first = load_member("cramped_room", "mep0_p0_final", tmp_path)
    second = load_member("cramped_room", "mep0_p1_final", tmp_path)
    assert first.facts["kind"] == "mep-member" and first.facts["alpha"] == facts["alpha"]
    assert _sums(first) != _sums(second)  # members start from their own seeds
    # the entropy reward changes what a member learns: plain self-play from its seed differs
    plain = train("cramped_room", seed=first.facts["seed"], settings=TINY).checkpoints["final"]
    assert _sums(first) != _sums(plain)
    assert _sums(load_member("cramped_room", "mep0", tmp_path)) == pytest.approx(
        PINNED_MEP_SUMS, abs=2e-4
    )


PINNED_MEP_SUMS = [0.4168, -0.1388, -0.8444, 0.0947, -0.8335, 0.1461]  # the agent's tensors


def test_pbt_copies_the_best_member_and_perturbs_its_hyperparameters() -> None:
    import torch

    weak, best = (PPOTrainer("cramped_room", seed, TINY, []) for seed in (0, 1))
    best.optimiser.step()  # give the best member an optimiser state of its own to copy
    copy_and_perturb(weak, best, np.random.default_rng(0))
    for mine, theirs in zip(weak.actor.parameters(), best.actor.parameters(), strict=True):
        assert torch.equal(mine, theirs) and mine is not theirs
    assert weak.entropy / best.entropy in PBT_PERTURB
    ratio = weak.optimiser.param_groups[0]["lr"] / best.optimiser.param_groups[0]["lr"]
    assert ratio == pytest.approx(PBT_PERTURB[0]) or ratio == pytest.approx(PBT_PERTURB[1])
    # the copy learns on its own: stepping it leaves the best member's weights alone
    before = [p.clone() for p in best.actor.parameters()]
    for p in weak.actor.parameters():
        p.grad = torch.ones_like(p)
    weak.optimiser.step()
    assert all(torch.equal(b, p) for b, p in zip(before, best.actor.parameters(), strict=True))


def test_a_pbt_population_is_stored_with_its_best_member_as_the_agent(tmp_path: Path) -> None:
    facts = train_pbt_population("cramped_room", seed=0, settings=TINY, members=2, folder=tmp_path)
    assert facts["kind"] == "pbt" and facts["ready"] == PBT_READY and facts["members"] == 2
    assert [h["copied"] for h in facts["hyperparameters"]] == [0, 0]  # 2 updates: no PBT step
    names = member_names("cramped_room", tmp_path)
    assert names == [
        "pbt0",
        *(f"pbt0_p{k}_{s}" for k in (0, 1) for s in ("final", "init", "mid50")),
    ]
    agent = load_member("cramped_room", "pbt0", tmp_path)
    best = load_member("cramped_room", facts["best"] + "_final", tmp_path)
    assert _sums(agent) == _sums(best)
    assert agent.facts["kind"] == "pbt" and facts["cpu_seconds"] > 0


def test_shapley_values_of_the_crossplay_game_by_hand() -> None:
    # coalition values: {0} 100, {1} 0, {0, 1} the mean of its four ordered pairs (100+0+40+40)/4
    phi = shapley_values(np.array([[100.0, 40.0], [40.0, 0.0]]))
    assert phi == pytest.approx([0.5 * 100 + 0.5 * (45 - 0), 0.5 * 0 + 0.5 * (45 - 100)])
    rng = np.random.default_rng(0)
    upper = np.triu(rng.uniform(0, 200, (4, 4)))
    game = upper + np.triu(upper, 1).T
    # efficiency: the values share out the whole population's value; symmetric members get equal
    assert shapley_values(game).sum() == pytest.approx(game.mean())
    twins = np.array([[50.0, 50.0, 10.0], [50.0, 50.0, 10.0], [10.0, 10.0, 90.0]])
    assert shapley_values(twins)[0] == pytest.approx(shapley_values(twins)[1])


def test_the_crossplay_game_of_one_member_twice_is_flat() -> None:
    model = train("cramped_room", seed=3, settings=TINY).checkpoints["final"]
    payoffs = crossplay_payoffs("cramped_room", [model, model], episodes=2, seed=0, horizon=60)
    assert payoffs.shape == (2, 2) and np.all(payoffs == payoffs[0, 0])


def test_cole_grows_its_population_a_generation_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn_by: list[tuple[float, list[float]]] = []  # (exponent, scores) behind each draw
    original = PPOTrainer.draw_partners

    def recording(self: PPOTrainer, n: int) -> list[int]:
        drawn_by.append((self.s.priority, self.partner_scores.tolist()))
        return original(self, n)

    monkeypatch.setattr(PPOTrainer, "draw_partners", recording)
    settings = PPOSettings(updates=4, envs=2, horizon=40, hidden=8, minibatch=64, epochs=2)
    facts = train_cole_agent(
        "cramped_room", seed=0, settings=settings, generations=2, folder=tmp_path
    )
    assert member_names("cramped_room", tmp_path) == ["cole0", "cole0_g0", "cole0_g1"]
    assert facts["kind"] == "cole" and facts["priority"] == COLE_PRIORITY
    games = facts["games"]
    assert [len(g["payoffs"]) for g in games] == [1, 2]  # a member joins each generation
    assert games[0]["shapley"] == pytest.approx([games[0]["payoffs"][0][0]])
    second = np.array(games[1]["payoffs"])
    assert sum(games[1]["shapley"]) == pytest.approx(second.mean(), abs=0.02)
    # every update draws by its generation's Shapley values, at COLE's exponent
    expected = [games[0]["shapley"]] * 2 + [games[1]["shapley"]] * 2
    assert drawn_by == [(COLE_PRIORITY, shapley) for shapley in expected]
    g1 = load_member("cramped_room", "cole0_g1", tmp_path)
    assert g1.facts["generation"] == 1 and len(facts["scores"]) == 4
    assert _sums(load_member("cramped_room", "cole0", tmp_path)) != _sums(g1)  # it went on
    assert _sums(load_member("cramped_room", "cole0", tmp_path)) == pytest.approx(
        PINNED_COLE_SUMS, abs=2e-4
    )


PINNED_COLE_SUMS = [-0.152, -0.1539, -0.7619, 0.1211, -0.8781, 0.146]  # the agent's tensors
