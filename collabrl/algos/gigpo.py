"""GiGPO advantages (group-in-group policy optimisation), vectorised with NumPy.

For every step sample of a rollout:
    R_t  = r_t + gamma * R_{t+1}                       step return within its episode
    A_E  = norm(episode return | episodes of its group)  one value per episode
    A_S  = norm(R_t | samples of its group with the same anchor state)
    A    = A_E + omega * A_S
with norm(x) = (x - mean) / (std + eps) ("mean_std_norm", unbiased std) or x - mean ("mean_norm").
A group holding one episode gets A_E = 0 and an anchor group of one sample gets A_S = 0.
GRPO is the special case omega = 0.

``step_mode`` normalises the step level its own way (default: as ``mode``). With "mean_norm" an
anchor group whose step rewards barely differ (two judge levels a tenth apart) keeps that small
difference instead of being scaled up to the size of the episode level's contrast.

``episode_norm="samples"`` is verl-agent's form of the episode level: each step sample carries
its own score (which may differ within an episode) and A_E normalises the scores over all step
samples of the group, so long episodes weigh more; a group of one sample gets A_E = 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

Mode = Literal["mean_std_norm", "mean_norm"]
EpisodeNorm = Literal["episodes", "samples"]


def _codes(keys: Sequence[Hashable]) -> np.ndarray:
    """Dense integer codes for arbitrary hashable keys (first appearance order)."""
    table: dict[Hashable, int] = {}
    return np.fromiter((table.setdefault(k, len(table)) for k in keys), np.int64, len(keys))


def _normalise(values: np.ndarray, codes: np.ndarray, mode: Mode, eps: float) -> np.ndarray:
    """Normalise ``values`` within the groups given by ``codes``; singleton groups give 0."""
    counts = np.bincount(codes)
    mean = np.bincount(codes, weights=values) / counts
    centred = values - mean[codes]
    if mode == "mean_norm":
        out = centred
    elif mode == "mean_std_norm":
        squares = np.bincount(codes, weights=centred**2)
        std = np.sqrt(squares / np.maximum(counts - 1, 1))  # unbiased (n - 1)
        denom = std[codes] + eps
        out = np.divide(centred, denom, out=np.zeros_like(centred), where=denom > 0)
    else:
        raise ValueError(f"mode must be 'mean_std_norm' or 'mean_norm', got {mode!r}")
    return np.where(counts[codes] > 1, out, 0.0)


def step_returns(episode_codes: np.ndarray, rewards: np.ndarray, gamma: float) -> np.ndarray:
    """Discounted reward-to-go within each episode (samples of an episode in time order)."""
    if gamma == 0.0:
        return rewards.copy()
    returns = np.empty_like(rewards)
    following: dict[int, float] = {}  # episode -> return of its next (later) sample
    for i in range(len(rewards) - 1, -1, -1):
        e = int(episode_codes[i])
        following[e] = returns[i] = rewards[i] + gamma * following.get(e, 0.0)
    return returns


@dataclass(frozen=True)
class AdvantageParts:
    """The two levels of GiGPO's advantage, per sample: ``episode`` (A_E) and ``step``
    (omega * A_S). Their sum is the advantage; kept apart so that a run can log how much of its
    gradient each level supplies."""

    episode: np.ndarray
    step: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.episode + self.step


def gigpo_advantages(
    group: Sequence[Hashable],
    episode: Sequence[Hashable],
    anchor: Sequence[Hashable],
    step_reward: Sequence[float],
    episode_return: Sequence[float],
    *,
    gamma: float = 0.0,
    omega: float = 1.0,
    mode: Mode = "mean_std_norm",
    eps: float = 1e-6,
    episode_norm: EpisodeNorm = "episodes",
    step_mode: Mode | None = None,
) -> np.ndarray:
    """Per-sample GiGPO advantages (contract; see the module docstring for the maths)."""
    return gigpo_parts(
        group,
        episode,
        anchor,
        step_reward,
        episode_return,
        gamma=gamma,
        omega=omega,
        mode=mode,
        eps=eps,
        episode_norm=episode_norm,
        step_mode=step_mode,
    ).total


def gigpo_parts(
    group: Sequence[Hashable],
    episode: Sequence[Hashable],
    anchor: Sequence[Hashable],
    step_reward: Sequence[float],
    episode_return: Sequence[float],
    *,
    gamma: float = 0.0,
    omega: float = 1.0,
    mode: Mode = "mean_std_norm",
    eps: float = 1e-6,
    episode_norm: EpisodeNorm = "episodes",
    step_mode: Mode | None = None,
) -> AdvantageParts:
    """:func:`gigpo_advantages` with its two levels apart (same arguments)."""
    n = len(group)
    if not (len(episode) == len(anchor) == len(step_reward) == len(episode_return) == n):
        raise ValueError("group, episode, anchor, step_reward and episode_return differ in length")
    if n == 0:
        return AdvantageParts(np.zeros(0), np.zeros(0))
    group_codes = _codes(group)
    # Episode ids need only be unique within a group.
    episode_codes = _codes(list(zip(group_codes.tolist(), episode, strict=True)))
    rewards = np.asarray(step_reward, dtype=np.float64)
    ep_returns = np.asarray(episode_return, dtype=np.float64)

    if episode_norm == "episodes":  # one value per episode, normalised over the group's episodes
        first = np.unique(episode_codes, return_index=True)[1]
        episode_group = group_codes[first]
        a_episode = _normalise(ep_returns[first], episode_group, mode, eps)[episode_codes]
    elif episode_norm == "samples":  # every sample's score, normalised over the group's samples
        a_episode = _normalise(ep_returns, group_codes, mode, eps)
    else:
        raise ValueError(f"episode_norm must be 'episodes' or 'samples', got {episode_norm!r}")

    # Step level: step returns normalised within (group, anchor) groups.
    anchor_codes = _codes(list(zip(group_codes.tolist(), anchor, strict=True)))
    returns = step_returns(episode_codes, rewards, gamma)
    a_step = _normalise(returns, anchor_codes, step_mode or mode, eps)
    return AdvantageParts(a_episode, omega * a_step)
