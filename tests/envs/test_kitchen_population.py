"""Kitchen partner populations: PPO self-play (pinned on a tiny seeded run), overcooked-ai's
reward shaping, FCP's pool from stored self-play checkpoints, and members drawn reproducibly."""

from pathlib import Path

import numpy as np
import pytest

from collabrl.envs.kitchen.engine import DISH, ONION, Chef, KitchenState, Soup
from collabrl.envs.kitchen.population import (
    draw_member,
    fcp_pool,
    load_member,
    member_names,
    train_fcp,
    train_selfplay,
)
from collabrl.envs.kitchen.ppo import (
    DISH_PICKUP,
    ONION_IN_POT,
    SOUP_PICKUP,
    PPOSettings,
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
