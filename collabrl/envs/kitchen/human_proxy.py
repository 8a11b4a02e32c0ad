"""Human proxies: kitchen partners cloned from recorded human play, one per layout.

Design (why the motion level): people in the 2019 trials stand still most ticks, turn towards a
counter by pressing into it, and rarely block each other; a proxy that only chose skills would
move through collabrl's skill controllers and inherit their paths and blockings. So a proxy
decides one low-level action per tick (its seat is a motion seat of the game, see
:mod:`collabrl.envs.kitchen.game`), sampled from a small multilayer perceptron over the
featurised state (:mod:`collabrl.envs.kitchen.proxy_features`), trained by behaviour cloning on
the *train* trials of its layout (both seats), as in Carroll et al. 2019. Sampling is stochastic
and seeded by the episode seed and seat. A proxy stuck for ``STUCK_TICKS`` ticks (its chef's
cell, facing and item unchanged) does not stand still or repeat what it tried there, as Carroll
et al.'s behaviour-cloning agent did: a clone otherwise stays put for good in states people
rarely left it in.

Training runs on a CPU in seconds per layout (torch, fixed seed); the weights are stored per
layout as ``<layout>.safetensors`` with a ``<layout>.json`` of facts (trials, samples, accuracy
and log-likelihood on the train and test trials) in the proxy folder: ``$COLLABRL_HUMAN_PROXIES``,
else ``$XDG_CACHE_HOME/collabrl/human_proxies`` (``~/.cache`` by default). Play uses numpy only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.envs.base import Observation, format_response
from collabrl.envs.kitchen.engine import ACTIONS, KitchenState
from collabrl.envs.kitchen.human_data import HumanTrial
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout
from collabrl.envs.kitchen.proxy_features import Featurizer
from collabrl.envs.kitchen.render import frame_state
from collabrl.errors import CollabrlError

HIDDEN = 128
EPOCHS = 60
BATCH = 256
LEARNING_RATE = 1e-3
WEIGHT_DECAY = 1e-4
FOLDER_VARIABLE = "COLLABRL_HUMAN_PROXIES"
STUCK_TICKS = 3  # ticks without a change of the chef's cell, facing and item: it is stuck
BUILD_HINT = "build them with: collabrl partners build-human-proxy"


def cache_folder(folder: Path | None, variable: str, name: str) -> Path:
    """``folder``, else ``$variable``, else ``name`` in collabrl's user cache: where trained
    kitchen partners (human proxies, populations) are stored."""
    if folder is not None:
        return folder
    if os.environ.get(variable):
        return Path(os.environ[variable])
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "collabrl" / name


def proxy_folder(folder: Path | None = None) -> Path:
    """Where proxies are stored: ``folder``, ``$COLLABRL_HUMAN_PROXIES`` or the user cache."""
    return cache_folder(folder, FOLDER_VARIABLE, "human_proxies")


def samples(trials: Sequence[HumanTrial], featurizer: Featurizer) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and action indices of every tick of every seat people played in ``trials``."""
    xs, ys = [], []
    for trial in trials:
        for seat in trial.people:
            for state, joint in zip(trial.states, trial.actions, strict=False):
                xs.append(featurizer.features(state, seat))
                ys.append(ACTIONS.index(joint[seat]))
    if not xs:
        raise CollabrlError("no recorded ticks to learn a human proxy from")
    return np.stack(xs), np.asarray(ys, dtype=np.int64)


@dataclass
class ProxyModel:
    """A trained proxy: the perceptron's weights as numpy arrays, and its facts."""

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


def train_proxy(
    layout: str,
    train: Sequence[HumanTrial],
    *,
    seed: int = 0,
    epochs: int = EPOCHS,
    hidden: int = HIDDEN,
) -> ProxyModel:
    """Behaviour cloning on ``train`` (trials of ``layout``): cross-entropy, Adam, fixed seed."""
    import torch  # only to set its threads here; the model is fitted in _fit

    featurizer = Featurizer(load_layout(layout))
    x, y = samples(train, featurizer)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a net this small: more threads only wait on each other
    try:
        weights = _fit(x, y, featurizer.size, seed, epochs, hidden)
    finally:
        torch.set_num_threads(threads)
    model = ProxyModel(layout, weights, {})
    model.facts = {
        "layout": layout,
        "seed": seed,
        "epochs": epochs,
        "hidden": hidden,
        "features": featurizer.size,
        "trials": [t.trial for t in train],
        "samples": len(y),
        "train": model.scores(x, y),
    }
    return model


def _fit(
    x: np.ndarray, y: np.ndarray, size: int, seed: int, epochs: int, hidden: int
) -> list[np.ndarray]:
    """The perceptron's weights after ``epochs`` of cross-entropy and Adam on (x, y)."""
    import torch

    torch.manual_seed(seed)
    net = torch.nn.Sequential(
        torch.nn.Linear(size, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, len(ACTIONS)),
    )
    optimiser = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(y)
    order = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in torch.randperm(len(y), generator=order).split(BATCH):
            optimiser.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(inputs[batch]), targets[batch])
            loss.backward()
            optimiser.step()
    return [p.detach().numpy().astype(np.float32) for p in net.parameters()]


def save_proxy(model: ProxyModel, folder: Path) -> Path:
    """Write ``<layout>.safetensors`` and ``<layout>.json`` into ``folder``."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{model.layout}.safetensors"
    save_file({f"w{i}": w for i, w in enumerate(model.weights)}, str(path))
    (folder / f"{model.layout}.json").write_text(json.dumps(model.facts, indent=1) + "\n")
    return path


@cache
def load_proxy(layout: str, folder: Path | None = None) -> ProxyModel:
    """The stored proxy of ``layout``; a missing or unreadable one is a one-line error."""
    if layout not in LAYOUT_NAMES:
        raise CollabrlError(f"no human proxy for kitchen layout {layout!r}")
    where = proxy_folder(folder)
    path = where / f"{layout}.safetensors"
    if not path.is_file():
        raise CollabrlError(f"no human proxy for {layout} in {where}; {BUILD_HINT}")
    try:
        from safetensors.numpy import load_file

        tensors = load_file(str(path))
        weights = [tensors[f"w{i}"] for i in range(6)]
        facts = json.loads((where / f"{layout}.json").read_text())
    except Exception as exc:  # a damaged file raises anything from a header error to a KeyError
        raise CollabrlError(
            f"{path}: not a readable human proxy ({type(exc).__name__}); {BUILD_HINT}"
        ) from exc
    return ProxyModel(layout, weights, facts)


class HumanProxy:
    """A kitchen seat played by a human proxy: one sampled low-level action per tick.

    It needs a motion seat (``game.motion_seats``); evaluation with ``partner.kind=human_proxy``
    makes the partner seats motion seats by itself."""

    name = "human_proxy"

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.seat = ""
        self.rng = np.random.default_rng(0)
        self.recent: list[tuple[Any, str]] = []  # (own chef's state, action taken there)

    def reset(self, seat: str, seed: int) -> None:
        from zlib import crc32

        self.seat, self.recent = seat, []
        self.rng = np.random.default_rng(crc32(f"human-proxy:{seed}:{seat}".encode()))

    def act(self, obs: Observation) -> str:
        layout, state, seat, x = motion_inputs(obs, "a human proxy")
        model = load_proxy(layout, self.folder)
        p = model.probabilities(x[None, :])[0].astype(np.float64)
        chef = state.chefs[seat]
        here = (chef.pos, chef.facing, str(chef.held))
        self.recent = [r for r in self.recent[-STUCK_TICKS:] if r[0] == here]
        if len(self.recent) >= STUCK_TICKS:
            for _, tried in self.recent:
                p[ACTIONS.index(tried)] = 0.0
            p[ACTIONS.index("stay")] = 0.0
            if p.sum() == 0:
                p[:] = 1.0
        action = ACTIONS[int(self.rng.choice(len(ACTIONS), p=p / p.sum()))]
        self.recent.append((here, action))
        return format_response("", "", action)


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
