"""Population training methods for kitchen partners, built from several PPO trainers stepped in
lockstep (:class:`~collabrl.envs.kitchen.ppo.PPOTrainer`).

- Maximum-Entropy Population training (MEP, Zhao et al. 2023), first stage:
  :func:`train_entropy_population` trains several self-play agents side by side, each rewarded
  on every tick with ``-alpha * log`` of the population's mean probability of the move it made
  (so a member gains by moves the others would not make: the population spreads out). Its second
  stage is :func:`~collabrl.envs.kitchen.ppo.train` against the population with
  ``settings.priority > 0`` (rank-based prioritised sampling of partners).
- Population-based training (PBT, Jaderberg et al. 2017, the form Carroll et al. 2019 train for
  Overcooked): :func:`train_pbt`, several agents each trained beside members of the population,
  the weakest periodically replaced by a perturbed copy of the strongest.
- Cooperative Open-ended LEarning (COLE, Li et al. 2023), in its Shapley-value form (COLE-SV):
  :func:`train_cole`, one agent that grows its own population, a snapshot per generation, and
  trains beside it, drawing most often the members the population cooperates with worst (lowest
  Shapley value of the cross-play game, :func:`shapley_values`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from collabrl.envs.kitchen.engine import ACTIONS, KitchenEngine
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.motion_partner import MotionModel
from collabrl.envs.kitchen.ppo import (
    DEFAULT_SETTINGS,
    HORIZON,
    Bonus,
    PPOSettings,
    PPOTrainer,
    TrainResult,
    one_torch_thread,
)
from collabrl.envs.kitchen.proxy_features import Featurizer

PBT_PERTURB = (0.8, 1.2)
"""PBT's explore step: a copied member's learning rate and entropy weight are each multiplied by
one of these, drawn (the factors of Jaderberg et al.'s "perturb")."""


def population_entropy_bonus(actors: Sequence[Any], alpha: float) -> Bonus:
    """MEP's reward for a member's move: ``-alpha * log`` of the population's mean probability
    of that move (the actors' softmax averaged), an estimate of the mean policy's entropy."""
    import torch

    def bonus(x: np.ndarray, actions: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            xt = torch.from_numpy(x)
            mean = torch.stack([torch.softmax(actor(xt), -1) for actor in actors]).mean(0)
            chosen = mean[torch.arange(len(actions)), torch.from_numpy(actions)]
        return (-alpha * torch.log(chosen)).numpy()

    return bonus


def copy_and_perturb(loser: PPOTrainer, best: PPOTrainer, rng: np.random.Generator) -> None:
    """PBT's exploit and explore: ``loser`` takes ``best``'s networks and optimiser state (a copy:
    the two go on learning apart), then its learning rate and entropy weight are each multiplied
    by a factor of :data:`PBT_PERTURB`."""
    import copy

    loser.actor.load_state_dict(best.actor.state_dict())
    loser.critic.load_state_dict(best.critic.state_dict())
    loser.optimiser.load_state_dict(copy.deepcopy(best.optimiser.state_dict()))
    loser.entropy = best.entropy * float(rng.choice(PBT_PERTURB))
    for group in loser.optimiser.param_groups:
        group["lr"] *= float(rng.choice(PBT_PERTURB))


def train_pbt(
    layout: str,
    *,
    seeds: Sequence[int],
    settings: PPOSettings = DEFAULT_SETTINGS,
    ready: int = 20,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> tuple[list[TrainResult], list[dict[str, float]]]:
    """Population-based training: one agent per seed. At each update every member plays its
    ``envs`` episodes beside members drawn from the population as it is at that update (itself
    included; frozen for the update), then learns. Every ``ready`` updates the member with the
    lowest mean training score over those updates takes the best one's networks and optimiser
    (exploit) with its learning rate and entropy weight each multiplied by a factor of
    :data:`PBT_PERTURB` (explore). Returns each member's result and its final hyperparameters
    (``learning_rate``, ``entropy``, ``copied``: how many times it was replaced)."""
    restore = one_torch_thread()
    started = time.process_time()
    rng = np.random.default_rng(list(seeds))
    try:
        trainers = [PPOTrainer(layout, seed, settings, []) for seed in seeds]
        results = [TrainResult({}) for _ in trainers]
        copied = [0] * len(trainers)
        for update in range(settings.updates + 1):
            pool = [t.snapshot({}) for t in trainers]
            for t in trainers:
                t.set_pool(pool)
            scores = [t.step(update, r) for t, r in zip(trainers, results, strict=True)]
            if update == settings.updates:
                break
            progress(update + 1, float(np.mean(scores)))
            if (update + 1) % ready == 0 and len(trainers) > 1:
                recent = [float(np.mean(r.scores[-ready:])) for r in results]
                worst, best = int(np.argmin(recent)), int(np.argmax(recent))
                if recent[worst] < recent[best]:
                    copy_and_perturb(trainers[worst], trainers[best], rng)
                    copied[worst] += 1
    finally:
        restore()
    for r in results:
        r.cpu_seconds = (time.process_time() - started) / len(results)
    hyper = [
        {
            "learning_rate": t.optimiser.param_groups[0]["lr"],
            "entropy": t.entropy,
            "copied": copied[k],
        }
        for k, t in enumerate(trainers)
    ]
    return results, hyper


def train_entropy_population(
    layout: str,
    *,
    seeds: Sequence[int],
    alpha: float,
    settings: PPOSettings = DEFAULT_SETTINGS,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> list[TrainResult]:
    """MEP's first stage: one self-play agent per seed, trained in lockstep, each paid
    :func:`population_entropy_bonus` of the whole population (as it is at that update) on top
    of the game's and the shaping rewards. ``progress`` gets the population's mean score.
    Each result's CPU seconds are the stage's, shared equally."""
    restore = one_torch_thread()
    started = time.process_time()
    try:
        trainers = [PPOTrainer(layout, seed, settings, []) for seed in seeds]
        bonus = population_entropy_bonus([t.actor for t in trainers], alpha)
        for t in trainers:
            t.bonus = bonus
        results = [TrainResult({}) for _ in trainers]
        for update in range(settings.updates + 1):
            scores = [t.step(update, r) for t, r in zip(trainers, results, strict=True)]
            if update < settings.updates:
                progress(update + 1, float(np.mean(scores)))
    finally:
        restore()
    for r in results:
        r.cpu_seconds = (time.process_time() - started) / len(results)
    return results


@cache
def _engine_and_featurizer(layout: str) -> tuple[KitchenEngine, Featurizer]:
    """One engine and featurizer per layout (both stateless: a state is passed in)."""
    engine = KitchenEngine(load_layout(layout), cook_mode="auto")
    return engine, Featurizer(engine.layout)


def play_models(
    layout: str, first: MotionModel, second: MotionModel, seed: int, horizon: int = HORIZON
) -> tuple[list[tuple[str, str]], int]:
    """One episode of ``first`` (seat 0) beside ``second`` (seat 1) on the bare engine, moves
    sampled with ``seed``: the joint actions and the team score."""
    engine, featurizer = _engine_and_featurizer(layout)
    rng = np.random.default_rng(seed)
    state = engine.start_state()
    joint_actions: list[tuple[str, str]] = []
    for _ in range(horizon):
        moves = []
        for seat, model in enumerate((first, second)):
            p = model.probabilities(featurizer.features(state, seat)[None, :])[0]
            p = p.astype(np.float64)
            moves.append(ACTIONS[int(rng.choice(len(ACTIONS), p=p / p.sum()))])
        joint_actions.append((moves[0], moves[1]))
        engine.step(state, moves)
    return joint_actions, state.score


def crossplay_payoffs(
    layout: str,
    members: Sequence[MotionModel],
    episodes: int,
    seed: int,
    horizon: int = HORIZON,
) -> np.ndarray:
    """COLE's graphic-form game: entry ``[i, j]`` is the mean team score of ``members[i]``
    beside ``members[j]`` over ``episodes`` episodes, the seats alternating (symmetric; the
    diagonal is self-play)."""
    n = len(members)
    payoffs = np.zeros((n, n))
    for i, j in itertools.combinations_with_replacement(range(n), 2):
        scores = []
        for e in range(episodes):
            pair = (members[i], members[j]) if e % 2 == 0 else (members[j], members[i])
            scores.append(play_models(layout, *pair, seed * 1_000_003 + e, horizon)[1])
        payoffs[i, j] = payoffs[j, i] = np.mean(scores)
    return payoffs


def shapley_values(payoffs: np.ndarray) -> np.ndarray:
    """Each member's Shapley value in the cooperative game whose coalition value is the mean
    payoff over the coalition's pairs (itself included; the empty coalition is worth 0): how
    much a member adds, on average over orders of joining, to how well a team drawn from the
    population cooperates. Exact (every subset): populations here hold a handful of members."""
    n = len(payoffs)

    def value(coalition: tuple[int, ...]) -> float:
        return float(payoffs[np.ix_(coalition, coalition)].mean()) if coalition else 0.0

    phi = np.zeros(n)
    for i in range(n):
        others = [k for k in range(n) if k != i]
        for size in range(n):
            weight = math.factorial(size) * math.factorial(n - size - 1) / math.factorial(n)
            for subset in itertools.combinations(others, size):
                phi[i] += weight * (value(tuple(sorted((*subset, i)))) - value(subset))
    return phi


def train_cole(
    layout: str,
    *,
    seed: int,
    generations: int,
    priority: float,
    episodes: int,
    settings: PPOSettings = DEFAULT_SETTINGS,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> tuple[TrainResult, list[MotionModel], list[dict[str, list[float]]]]:
    """COLE-SV on one learner: the population starts as the learner's untrained snapshot; each
    of ``generations`` equal stages first scores the population's cross-play game
    (:func:`crossplay_payoffs`, ``episodes`` per pair), then trains the learner beside members
    drawn by :func:`~collabrl.envs.kitchen.ppo.priorities` of their Shapley values (exponent
    ``priority``: the member the population cooperates with worst is drawn most), and ends by
    adding the learner's snapshot to the population. Returns the learner's result, the
    population (its last member is the final learner) and each generation's game."""
    restore = one_torch_thread()
    started = time.process_time()
    per_generation = max(1, settings.updates // generations)
    trainer = PPOTrainer(layout, seed, dataclasses.replace(settings, priority=priority), [])
    population = [trainer.snapshot({"generation": 0})]
    games: list[dict[str, list[float]]] = []
    result = TrainResult({})
    try:
        for update in range(settings.updates + 1):
            if update % per_generation == 0 and update < settings.updates:
                if update:
                    population.append(trainer.snapshot({"generation": len(population)}))
                payoffs = crossplay_payoffs(
                    layout, population, episodes, seed + update, settings.horizon
                )
                shapley = shapley_values(payoffs)  # the draw follows the game, not running scores
                games.append(
                    {"payoffs": payoffs.round(1).tolist(), "shapley": shapley.round(2).tolist()}
                )
                trainer.set_pool(population)
                trainer.hold_partner_scores(shapley)
            score = trainer.step(update, result)
            if update < settings.updates:
                progress(update + 1, score)
        population.append(trainer.snapshot({"generation": len(population)}))
    finally:
        restore()
    result.cpu_seconds = time.process_time() - started
    return result, population, games
