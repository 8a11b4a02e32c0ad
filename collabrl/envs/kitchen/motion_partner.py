"""What every learnt kitchen partner shares: a small perceptron that moves a chef tick by tick.

Human proxies (cloned from people, :mod:`collabrl.envs.kitchen.human_proxy`) and population
members (trained by PPO, :mod:`collabrl.envs.kitchen.population`) are the same kind of object: a
three-layer perceptron over the featurised state (:mod:`collabrl.envs.kitchen.proxy_features`)
giving a distribution over Overcooked's six low-level actions, stored as ``<name>.safetensors``
with a ``<name>.json`` of facts, and played on a motion seat by sampling that distribution,
seeded by the episode seed and seat. One model class, one reader and writer, and one seat player
(:class:`MotionPartner`), so the two kinds differ only in which model they load and in how a
human proxy breaks out of a stuck state.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from zlib import crc32

import numpy as np

from collabrl.envs.base import Observation, format_response
from collabrl.envs.kitchen.engine import ACTIONS, KitchenState
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.proxy_features import Featurizer
from collabrl.envs.kitchen.render import frame_state
from collabrl.errors import CollabrlError


@dataclass
class MotionModel:
    """A trained perceptron: its weights as numpy arrays, and its facts."""

    layout: str
    weights: list[np.ndarray]  # w1, b1, w2, b2, w3, b3
    facts: dict[str, Any]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Action probabilities (Overcooked's action order) for inputs ``x`` (rows)."""
        w1, b1, w2, b2, w3, b3 = self.weights
        h = np.maximum(x @ w1.T + b1, 0.0)
        h = np.maximum(h @ w2.T + b2, 0.0)
        logits = h @ w3.T + b3
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)

    def scores(self, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
        """Accuracy of the most likely action and mean log-likelihood of the recorded ones."""
        p = self.probabilities(x)
        return {
            "accuracy": float((p.argmax(axis=1) == y).mean()),
            "log_likelihood": float(np.log(p[np.arange(len(y)), y] + 1e-12).mean()),
        }


def cache_folder(folder: Path | None, variable: str, name: str) -> Path:
    """``folder``, else ``$variable``, else ``name`` in collabrl's user cache: where trained
    kitchen partners (human proxies, populations) are stored."""
    if folder is not None:
        return folder
    if os.environ.get(variable):
        return Path(os.environ[variable])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "collabrl" / name


def save_model(model: MotionModel, path: Path) -> Path:
    """Write ``path`` (``<name>.safetensors``) and its facts beside it (``<name>.json``)."""
    from safetensors.numpy import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    save_file({f"w{i}": w for i, w in enumerate(model.weights)}, str(path))
    path.with_suffix(".json").write_text(json.dumps(model.facts, indent=1) + "\n")
    return path


def load_model(layout: str, path: Path, what: str, missing: str, damaged: str) -> MotionModel:
    """The model stored at ``path`` for ``layout``; a missing file is the one-line error
    ``missing``, an unreadable one names ``what`` it should be and ends with ``damaged``."""
    if not path.is_file():
        raise CollabrlError(missing)
    try:
        from safetensors.numpy import load_file

        tensors = load_file(str(path))
        weights = [tensors[f"w{i}"] for i in range(6)]
        facts = json.loads(path.with_suffix(".json").read_text())
    except Exception as exc:  # a damaged file raises anything from a header error to a KeyError
        raise CollabrlError(
            f"{path}: not a readable {what} ({type(exc).__name__}){damaged}"
        ) from exc
    return MotionModel(layout, weights, facts)


def motion_inputs(obs: Observation, who: str) -> tuple[str, KitchenState, int, np.ndarray]:
    """A motion seat's layout, kitchen state, chef index and featurised state; a seat that is
    not a motion seat is a one-line error naming ``who`` plays it."""
    view = obs.state
    if "frame" not in view:
        raise CollabrlError(
            f"{who} moves its chef tick by tick: make {obs.seat!r} a motion seat "
            f"(game.motion_seats=[{obs.seat!r}])"
        )
    state, seat = frame_state(view["frame"]), view["self"]["index"]
    return view["layout"], state, seat, _featurizer(view["layout"]).features(state, seat)


@cache
def _featurizer(layout: str) -> Featurizer:
    return Featurizer(load_layout(layout))


class MotionPartner(ABC):
    """A kitchen motion seat played by a :class:`MotionModel`: one sampled action per tick.

    Subclasses say which model plays an episode (:meth:`model`) and may reshape the distribution
    before it is sampled (:meth:`adjust`); the seat's random stream is seeded by ``stream``, the
    episode seed and the seat, and by ``draws`` where given (evaluation gives each profile job
    its own, so that jobs that differ only in a profile the partner ignores are not one episode
    repeated)."""

    name = "motion"
    who = "a learnt partner"  # how errors name it
    stream = "motion"  # what the seat's random stream is seeded with (and the seed and seat)

    def __init__(self, draws: int | None = None) -> None:
        self.seat, self.seed, self.draws = "", 0, draws
        self.rng = np.random.default_rng(0)

    def reset(self, seat: str, seed: int) -> None:
        self.seat, self.seed = seat, seed
        own = "" if self.draws is None else f":{self.draws}"
        self.rng = np.random.default_rng(crc32(f"{self.stream}:{seed}:{seat}{own}".encode()))

    @abstractmethod
    def model(self, layout: str) -> MotionModel:
        """The model that plays this seat on ``layout``."""

    def adjust(self, p: np.ndarray, layout: str, state: KitchenState, chef: int) -> np.ndarray:
        """The distribution to sample from (default: the model's own)."""
        return p

    def chose(self, state: KitchenState, chef: int, action: str) -> None:
        """Told the action sampled in ``state`` (default: nothing to remember)."""
        return None

    def act(self, obs: Observation) -> str:
        layout, state, chef, x = motion_inputs(obs, self.who)
        p = self.model(layout).probabilities(x[None, :])[0].astype(np.float64)
        p = self.adjust(p, layout, state, chef)
        action = ACTIONS[int(self.rng.choice(len(ACTIONS), p=p / p.sum()))]
        self.chose(state, chef, action)
        return format_response("", "", action)
