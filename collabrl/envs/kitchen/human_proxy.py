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

Play leaves out moves people rarely make (``SKIP_FUTILE``, ``AVOID_OTHER``; options of
:class:`HumanProxy`, as is a sampling temperature, ``TEMPERATURES`` per layout by default): a press that changes nothing (a clone's
interactions change nothing half the time, people's 6-12%), a step into the other chef (a clone's
moves on cramped_room are blocked 16-35% of the time, people's 6.5%), and, on layouts where
people rarely did it (the proxy's ``early_pickups`` fact), taking a dish or an onion before it
has a use: without it clones hold such an item for good and forced_coordination's hand-over
chain breaks. A **deadlock** (every chef holds an item nobody can use now: onions beside full
pots, dishes while no pot is full) starts with a pickup: people made 7 such pickups among the
3,465 of the train trials (4 of 596 on cramped_room), so play never makes one (``AVOID_DEADLOCK``;
cramped_room's clones made several an episode and waited out each). One that happens anyway
(two pickups in one tick, a partner of another kind), once it outlasts the longest one in people's
train trials of the layout (``longest_deadlock``, a fact of the proxy: 196 ticks on cramped_room,
at most 5 elsewhere), ends the way people ended theirs: the proxy walks to the nearest free
counter and puts its item down there (``RELEASE_DEADLOCK``; without it two clones holding onions
beside a ready soup wait for the rest of the episode). The rules were
chosen on the train trials only; the measured figures are on the docs' results page.

Training runs on a CPU in seconds per layout (torch, fixed seed); the weights are stored per
layout as ``<layout>.safetensors`` with a ``<layout>.json`` of facts (trials, samples, accuracy
and log-likelihood on the train and test trials) in the proxy folder: ``$COLLABRL_HUMAN_PROXIES``,
else ``$XDG_CACHE_HOME/collabrl/human_proxies`` (``~/.cache`` by default). Play uses numpy only.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.envs.kitchen.engine import (
    ACTIONS,
    INTERACT,
    MOVES,
    SOUP_ONIONS,
    STAY,
    KitchenEngine,
    KitchenState,
)
from collabrl.envs.kitchen.human_data import HumanTrial, copy_state
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout
from collabrl.envs.kitchen.motion_partner import (
    MotionModel,
    MotionPartner,
    cache_folder,
    load_model,
    save_model,
)
from collabrl.envs.kitchen.proxy_features import Featurizer
from collabrl.errors import CollabrlError

HIDDEN = 128
EPOCHS = 60
BUILD_SEEDS = {
    "cramped_room": 2,
    "asymmetric_advantages": 8,
    "coordination_ring": 4,
    "forced_coordination": 8,
    "counter_circuit": 9,
}
"""The behaviour-cloning seed of each layout's proxy unless a build is told otherwise. A proxy
pair's median score moves by up to 170 points between seeds (float-level differences, e.g.
another machine's kernels, move it as much), so seed and temperature were chosen per layout
among seeds 0-9 and temperatures 0.5-1 (0.25-1 on cramped_room, the layout furthest from its
people's median) on the *train* trials, 30 proxy-pair episodes each, by an
objective fixed beforehand: the median inside the train humans' score IQR, then nearest their
median, then nearest them on the likeness statistics (docs/results.md)."""
BATCH = 256
LEARNING_RATE = 1e-3
WEIGHT_DECAY = 1e-4
FOLDER_VARIABLE = "COLLABRL_HUMAN_PROXIES"
STUCK_TICKS = 3  # ticks without a change of the chef's cell, facing and item: it is stuck
# Play samples p ** (1 / temperature), renormalised (1: as learnt); chosen with BUILD_SEEDS.
TEMPERATURES = {
    "cramped_room": 0.35,
    "asymmetric_advantages": 0.5,
    "coordination_ring": 1.0,
    "forced_coordination": 1.0,
    "counter_circuit": 0.75,
}
SKIP_FUTILE = True  # play never samples an action that changes nothing
EARLY_PICKUPS = 0.2  # where fewer of people's pickups are early, play leaves early pickups out
AVOID_OTHER = True  # play never steps into the cell the other chef stands on
AVOID_DEADLOCK = True  # play never takes an item that deadlocks the kitchen (people: 7 of 3,465)
RELEASE_DEADLOCK = True  # a deadlock longer than people's longest ends with an item put down
BUILD_HINT = "build them with: collabrl partners build-human-proxy"


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


def train_proxy(
    layout: str,
    train: Sequence[HumanTrial],
    *,
    seed: int | None = None,
    epochs: int = EPOCHS,
    hidden: int = HIDDEN,
) -> MotionModel:
    """Behaviour cloning on ``train`` (trials of ``layout``): cross-entropy, Adam, fixed seed
    (``None``: the layout's in :data:`BUILD_SEEDS`, else 0)."""
    seed = BUILD_SEEDS.get(layout, 0) if seed is None else seed
    import torch  # only to set its threads here; the model is fitted in _fit

    featurizer = Featurizer(load_layout(layout))
    x, y = samples(train, featurizer)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a net this small: more threads only wait on each other
    try:
        weights = _fit(x, y, featurizer.size, seed, epochs, hidden)
    finally:
        torch.set_num_threads(threads)
    model = MotionModel(layout, weights, {})
    model.facts = {
        "layout": layout,
        "seed": seed,
        "epochs": epochs,
        "hidden": hidden,
        "features": featurizer.size,
        "trials": [t.trial for t in train],
        "samples": len(y),
        "early_pickups": early_pickups(train),
        "longest_deadlock": longest_deadlock(train),
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


def save_proxy(model: MotionModel, folder: Path) -> Path:
    """Write ``<layout>.safetensors`` and ``<layout>.json`` into ``folder``."""
    return save_model(model, folder / f"{model.layout}.safetensors")


@cache
def load_proxy(layout: str, folder: Path | None = None) -> MotionModel:
    """The stored proxy of ``layout``; a missing or unreadable one is a one-line error."""
    if layout not in LAYOUT_NAMES:
        raise CollabrlError(f"no human proxy for kitchen layout {layout!r}")
    where = proxy_folder(folder)
    missing = f"no human proxy for {layout} in {where}; {BUILD_HINT}"
    path = where / f"{layout}.safetensors"
    return load_model(layout, path, "human proxy", missing, f"; {BUILD_HINT}")


class HumanProxy(MotionPartner):
    """A kitchen seat played by a human proxy: one sampled low-level action per tick, and no
    standing still or repeating what it tried once it is stuck.

    It needs a motion seat (``game.motion_seats``); evaluation with ``partner.kind=human_proxy``
    makes the partner seats motion seats by itself."""

    name = "human_proxy"
    who = "a human proxy"
    stream = "human-proxy"

    def __init__(
        self,
        folder: Path | None = None,
        *,
        temperature: float | None = None,
        skip_futile: bool = SKIP_FUTILE,
        avoid_other: bool = AVOID_OTHER,
        avoid_deadlock: bool = AVOID_DEADLOCK,
        release_deadlock: bool = RELEASE_DEADLOCK,
        draws: int | None = None,
    ) -> None:
        super().__init__(draws)
        if temperature is not None and temperature <= 0:
            raise CollabrlError(f"a human proxy's temperature must be above 0, got {temperature}")
        self.folder = folder
        self.temperature = temperature
        self.skip_futile = skip_futile
        self.avoid_other = avoid_other
        self.avoid_deadlock = avoid_deadlock
        self.release_deadlock = release_deadlock
        self.recent: list[tuple[Any, str]] = []  # (own chef's state, action taken there)
        self.deadlocked = 0  # ticks the kitchen has been deadlocked in a row

    def reset(self, seat: str, seed: int) -> None:
        super().reset(seat, seed)
        self.recent = []
        self.deadlocked = 0

    def model(self, layout: str) -> MotionModel:
        return load_proxy(layout, self.folder)

    def adjust(self, p: np.ndarray, layout: str, state: KitchenState, chef: int) -> np.ndarray:
        temperature = self.temperature or TEMPERATURES.get(layout, 1.0)
        if temperature != 1.0:
            p = p ** (1.0 / temperature)
        for action in self.left_out(layout, state, chef):
            p[ACTIONS.index(action)] = 0.0
        here = _chef_state(state, chef)
        self.recent = [r for r in self.recent[-STUCK_TICKS:] if r[0] == here]
        if len(self.recent) >= STUCK_TICKS:
            for _, tried in self.recent:
                p[ACTIONS.index(tried)] = 0.0
            p[ACTIONS.index("stay")] = 0.0
            if p.sum() == 0:
                p[:] = 1.0
        return self.released(p, layout, state, chef)

    def released(self, p: np.ndarray, layout: str, state: KitchenState, chef: int) -> np.ndarray:
        """``p``, unless a deadlock has outlasted people's longest on ``layout``: then put the
        item down where the chef faces a free counter, else take the first step of a shortest
        walk to one (anything but standing still where none can be reached)."""
        engine = _engine(layout)
        self.deadlocked = self.deadlocked + 1 if deadlocked(engine, state) else 0
        patience = self.model(layout).facts.get("longest_deadlock")
        if not self.release_deadlock or patience is None or self.deadlocked <= patience:
            return p
        after = _after_interact(engine, state, chef)
        if after.chefs[chef].held is None and len(after.counters) > len(state.counters):
            return np.eye(len(ACTIONS))[ACTIONS.index(INTERACT)]
        move = toward_free_counter(engine, state, chef)
        if move is None:
            p[ACTIONS.index(STAY)] = 0.0
            return p if p.sum() > 0 else np.ones(len(ACTIONS))
        return np.eye(len(ACTIONS))[ACTIONS.index(move)]

    def left_out(self, layout: str, state: KitchenState, chef: int) -> set[str]:
        """The actions play never samples in ``state`` (the futile ones, early pickups where
        people rarely made them, a pickup that deadlocks the kitchen, steps into the other chef),
        as the options say."""
        out: set[str] = set()
        engine = _engine(layout)
        after = _after_interact(engine, state, chef)  # one probe step for the interact rules
        if self.skip_futile:
            out.update(futile_actions(engine, state, chef, after))
            rare = self.model(layout).facts.get("early_pickups", 1.0) < EARLY_PICKUPS
            if rare and early_pickup(engine, state, chef, after):
                out.add(INTERACT)
        if self.avoid_deadlock and not deadlocked(engine, state) and deadlocked(engine, after):
            out.add(INTERACT)
        if self.avoid_other:
            me, other = state.chefs[chef].pos, state.chefs[1 - chef].pos
            out.update(a for a, d in MOVES.items() if (me[0] + d[0], me[1] + d[1]) == other)
        return out

    def chose(self, state: KitchenState, chef: int, action: str) -> None:
        self.recent.append((_chef_state(state, chef), action))


def futile_actions(
    engine: KitchenEngine, state: KitchenState, chef: int, after: KitchenState | None = None
) -> list[str]:
    """The actions of ``chef`` that would change nothing whatever the other chef does: an
    interact that leaves every item where it was, a press into a counter or station it already
    faces. People rarely press them (6-12% of their interactions change nothing); a clone
    presses them in half its interactions. A step into the other chef is not one (the other
    chef may step away the same tick): ``avoid_other`` is a rule of its own. ``after``: the state
    after ``chef`` interacts (:func:`_after_interact`), where the caller has it already."""
    me = state.chefs[chef]
    out = []
    for action, delta in MOVES.items():
        target = (me.pos[0] + delta[0], me.pos[1] + delta[1])
        if delta == me.facing and target not in engine.layout.floor:
            out.append(action)
    probe = after if after is not None else _after_interact(engine, state, chef)
    if _items(probe) == _items(state):
        out.append(INTERACT)
    return out


def early_pickup(
    engine: KitchenEngine, state: KitchenState, chef: int, after: KitchenState | None = None
) -> bool:
    """Whether ``chef``'s interact would take an item before it has a use: a dish while no pot
    holds three onions, an onion while every pot does (``after`` as in :func:`futile_actions`)."""
    if state.chefs[chef].held is not None:
        return False
    probe = after if after is not None else _after_interact(engine, state, chef)
    return useless(engine, state, probe.chefs[chef].held)


def useless(engine: KitchenEngine, state: KitchenState, item: object) -> bool:
    """Whether a held ``item`` has no use in ``state``: an onion while every pot holds three
    onions, a dish while none does (a soup always has one: it is served)."""
    full = sum(1 for soup in state.pots.values() if soup.onions >= SOUP_ONIONS)
    if item == "dish":
        return full == 0
    return item == "onion" and full == len(engine.layout.pots)


def deadlocked(engine: KitchenEngine, state: KitchenState) -> bool:
    """Whether every chef holds an item nobody can use now (:func:`useless`)."""
    return all(c.held is not None and useless(engine, state, c.held) for c in state.chefs)


def toward_free_counter(engine: KitchenEngine, state: KitchenState, chef: int) -> str | None:
    """The first action on a shortest walk of ``chef`` (around the other chef) to face a counter
    with nothing on it: a step, or a press into the counter to turn to it; None where no free
    counter can be reached."""
    layout, other = engine.layout, state.chefs[1 - chef].pos
    free = {c for c in layout.counters if c not in state.counters}
    start = state.chefs[chef].pos
    first: dict[tuple[int, int], str | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for action, (dx, dy) in MOVES.items():
            target = (cell[0] + dx, cell[1] + dy)
            if target in free:
                return first[cell] or action
            if target in layout.floor and target != other and target not in first:
                first[target] = first[cell] or action
                queue.append(target)
    return None


def longest_deadlock(trials: Sequence[HumanTrial]) -> int:
    """The longest run of deadlocked ticks (:func:`deadlocked`) in people's ``trials``: how long
    people waited before one of them put an item down (train trials: 196 ticks on cramped_room,
    where people fetch items early; 0-5 elsewhere)."""
    longest = 0
    for trial in trials:
        engine, run = KitchenEngine(load_layout(trial.layout)), 0
        for state in trial.states:
            run = run + 1 if deadlocked(engine, state) else 0
            longest = max(longest, run)
    return longest


def early_pickups(trials: Sequence[HumanTrial]) -> float:
    """The share of people's pickups in ``trials`` (both seats) that were early
    (:func:`early_pickup`); NaN without pickups. People on cramped_room fetch dishes and onions
    early (a third of their pickups on the train trials); elsewhere 1-9%."""
    early = total = 0
    for trial in trials:
        engine = KitchenEngine(load_layout(trial.layout))
        for state, after, joint in zip(trial.states, trial.states[1:], trial.actions, strict=False):
            for chef in trial.people:
                me = state.chefs[chef]
                if joint[chef] == INTERACT and me.held is None and after.chefs[chef].held:
                    total += 1
                    early += early_pickup(engine, state, chef)
    return early / total if total else math.nan


def _after_interact(engine: KitchenEngine, state: KitchenState, chef: int) -> KitchenState:
    """A copy of ``state`` after ``chef`` interacts and everyone else stays."""
    probe = copy_state(state)
    joint = [STAY] * len(state.chefs)
    joint[chef] = INTERACT
    engine.step(probe, joint)
    return probe


def _items(state: KitchenState) -> tuple[Any, ...]:
    """Where every item is: what each chef holds, each counter's item, each pot's onions and
    whether it has started cooking (not how far: the clock runs on whatever a chef does)."""
    return (
        [str(c.held) for c in state.chefs],
        {cell: str(item) for cell, item in state.counters.items()},
        {cell: (soup.onions, soup.idle) for cell, soup in state.pots.items()},
    )


@cache
def _engine(layout: str) -> KitchenEngine:
    """The rules proxies learnt from: the 2019 trials' (a full pot starts cooking by itself). In a
    game whose pots start on an interact (``cooking=interact``) that press counts as futile, so a
    proxy never starts a pot there: people never had to, so it never learnt to."""
    return KitchenEngine(load_layout(layout))


def _chef_state(state: KitchenState, chef: int) -> tuple[Any, ...]:
    """What says a chef is stuck when it stays the same: its cell, facing and item."""
    me = state.chefs[chef]
    return (me.pos, me.facing, str(me.held))
