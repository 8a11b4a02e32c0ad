"""Recorded human play: Carroll et al.'s (2019) cleaned human-human Overcooked trials, as kitchen
states and joint low-level actions that collabrl's engine replays tick by tick.

The trials ship as package data of overcooked-ai 1.1.0 (``overcooked_ai_py/data/human_data/
clean_{train,test}_trials.pickle``: pandas DataFrames, one row per tick). They are read from the
installed package's folder without importing it (its ``__init__`` needs gym and numpy<2), or from
any folder holding the two files, so ``pip install --no-deps overcooked-ai==1.1.0`` (the
``human-data`` extra) is all it takes. The pickles are trusted package data: unpickling runs code.

Conversion follows the original authors' own conversion of the JavaScript game's states: a soup
counts its cooking ticks on past ready in the 2019 browser game, and is capped at the cook time
(20) as in their Python environment; pots hold soups with fewer than three onions as idle. The
browser game paid 5 points a soup; the rewards are the trials' ``reward_norm`` (20 a soup, the
Python environment's and collabrl's value). The
layouts are the paper's five (``random0`` is forced_coordination and ``random3`` counter_circuit in
the 2019 names). Every trial is verified on load: the engine (auto-cook rules) stepped from each
recorded state with the recorded joint action must give the recorded next state and reward, so a
damaged or misconverted file fails loudly instead of teaching a proxy wrong moves.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from collabrl.envs.kitchen.engine import (
    COOK_TIME,
    DIRECTION_NAMES,
    INTERACT,
    STAY,
    Chef,
    Item,
    KitchenEngine,
    KitchenState,
    Soup,
)
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, Pos, load_layout
from collabrl.errors import CollabrlError, UnknownNameError

HumanSplit = Literal["train", "test"]
SPLITS: tuple[HumanSplit, ...] = ("train", "test")
PACKAGE = "overcooked_ai_py"
DATA_FOLDER = ("data", "human_data")
FILE_NAME = "clean_{split}_trials.pickle"
EXTRA = "human-data"
LAYOUT_OF_2019_NAME = {"random0": "forced_coordination", "random3": "counter_circuit"}
HOW_TO_INSTALL = f"pip install --no-deps overcooked-ai==1.1.0 (or: pip install 'collabrl[{EXTRA}]')"

JointAction = tuple[str, ...]


@dataclass(frozen=True)
class HumanTrial:
    """One recorded game of two people: ``states[t]`` before the joint action ``actions[t]``,
    ``rewards[t]`` the points it scored; ``states`` holds one more entry (the final state)."""

    split: HumanSplit
    layout: str
    trial: str  # "<layout>/<run>/<worker id>": unique within a split
    workers: int
    states: tuple[KitchenState, ...]
    actions: tuple[JointAction, ...]
    rewards: tuple[int, ...]
    people: tuple[int, ...] = (0, 1)  # the seats people played (a study session: the human's)

    @property
    def ticks(self) -> int:
        return len(self.actions)

    @property
    def score(self) -> int:
        return sum(self.rewards)


def data_folder(path: Path | None = None) -> Path:
    """The folder holding the trials: ``path`` when given, else the installed overcooked-ai
    package's ``data/human_data`` (found without importing the package)."""
    if path is not None:
        if not path.is_dir():
            raise CollabrlError(f"{path}: no such folder (it should hold {FILE_NAME})")
        return path
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CollabrlError(f"the recorded human trials need overcooked-ai: {HOW_TO_INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*DATA_FOLDER)


def read_frame(split: HumanSplit, folder: Path | None = None) -> Any:
    """The split's DataFrame as shipped; a missing or unreadable file is a one-line error."""
    if split not in SPLITS:
        raise UnknownNameError(f"unknown human-data split {split!r}; choose train or test")
    path = data_folder(folder) / FILE_NAME.format(split=split)
    if not path.is_file():
        raise CollabrlError(f"{path}: missing; the recorded human trials need {HOW_TO_INSTALL}")
    try:
        import pandas as pd

        frame = pd.read_pickle(path)
    except Exception as exc:  # a damaged pickle raises anything from EOFError to a module error
        raise CollabrlError(f"{path}: not a readable trials file ({type(exc).__name__})") from exc
    missing = {
        "state",
        "next_state",
        "joint_action",
        "reward_norm",
        "layout_name",
        "workerid_num",
        "run",
    }
    missing -= set(getattr(frame, "columns", ()))
    if missing:
        raise CollabrlError(f"{path}: not a trials file (no column {sorted(missing)[0]!r})")
    return frame


def convert_state(raw: dict[str, Any], pots: Sequence[Pos], tick: int = 0) -> KitchenState:
    """A recorded state (the JavaScript game's dict) as a :class:`KitchenState`."""
    chefs = [
        Chef(
            pos=_pos(p["position"]),
            facing=_pos(p["orientation"]),
            held=_item(p["held_object"]) if p.get("held_object") else None,
        )
        for p in raw["players"]
    ]
    state = KitchenState(chefs=chefs, tick=tick)
    for obj in raw["objects"].values():
        where = _pos(obj["position"])
        item = _item(obj)
        if where in pots:
            if not isinstance(item, Soup):
                raise ValueError(f"a {item} in the pot at {where}")
            state.pots[where] = item
        else:
            state.counters[where] = item
    return state


def convert_action(raw: Any) -> str:
    """One chef's recorded action: ``"INTERACT"``, ``[0, 0]`` (stay) or a direction."""
    if raw == "INTERACT":
        return INTERACT
    direction = _pos(raw)
    return STAY if direction == (0, 0) else DIRECTION_NAMES[direction]


def _pos(raw: Sequence[int]) -> Pos:
    return (int(raw[0]), int(raw[1]))


def _item(raw: dict[str, Any]) -> Item:
    """An object: onions and dishes by name; a soup ``['onion', n, cook_ticks]`` with its cooking
    ticks capped at the cook time (idle below three onions), the original authors' convention."""
    if raw["name"] != "soup":
        return str(raw["name"])
    _, onions, ticks = raw["state"]
    if onions < 3:
        return Soup(int(onions))
    return Soup(int(onions), min(int(ticks), COOK_TIME))


def trials_of(frame: Any, split: HumanSplit) -> list[HumanTrial]:
    """Every trial of a split's DataFrame, converted and verified (see :func:`verify`)."""
    out = []
    for (layout_2019, run, worker), rows in frame.groupby(
        ["layout_name", "run", "workerid_num"], sort=True
    ):
        layout = LAYOUT_OF_2019_NAME.get(layout_2019, layout_2019)
        if layout not in LAYOUT_NAMES:
            raise CollabrlError(f"human trials: unknown layout {layout_2019!r}")
        rows = rows.sort_values("cur_gameloop")
        pots = load_layout(layout).pots
        states = [convert_state(ast.literal_eval(s), pots, t) for t, s in enumerate(rows["state"])]
        last = ast.literal_eval(rows["next_state"].iloc[-1])
        states.append(convert_state(last, pots, len(states)))
        actions = tuple(
            tuple(convert_action(a) for a in ast.literal_eval(j)) for j in rows["joint_action"]
        )
        trial = HumanTrial(
            split=split,
            layout=layout,
            trial=f"{layout}/{run}/{int(worker)}",
            workers=int(worker),
            states=tuple(states),
            actions=actions,
            rewards=tuple(int(r) for r in rows["reward_norm"]),
        )
        verify(trial)
        out.append(trial)
    return out


def verify(trial: HumanTrial) -> None:
    """Raise :class:`CollabrlError` unless the engine reproduces every recorded tick of ``trial``
    (next state and reward) from the recorded state and joint action."""
    engine = KitchenEngine(load_layout(trial.layout), cook_mode="auto")
    for t, action in enumerate(trial.actions):
        state = copy_state(trial.states[t])
        reward = engine.step(state, action)
        state.score = 0
        if reward != trial.rewards[t] or state != trial.states[t + 1]:
            raise CollabrlError(
                f"human trial {trial.trial} ({trial.split}): the engine does not reproduce tick "
                f"{t} (damaged file or a different conversion)"
            )


def copy_state(state: KitchenState) -> KitchenState:
    """A deep copy of a kitchen state (soups are mutable)."""

    def item(x: Item | None) -> Item | None:
        return Soup(x.onions, x.tick) if isinstance(x, Soup) else x

    return KitchenState(
        chefs=[Chef(c.pos, c.facing, item(c.held)) for c in state.chefs],
        pots={p: Soup(s.onions, s.tick) for p, s in state.pots.items()},
        counters={p: item(i) for p, i in state.counters.items()},  # type: ignore[misc]
        tick=state.tick,
        score=state.score,
    )


@cache
def load_trials(split: HumanSplit, folder: Path | None = None) -> tuple[HumanTrial, ...]:
    """Every trial of ``split``, converted and verified (cached for the process)."""
    return tuple(trials_of(read_frame(split, folder), split))


def trials_for(
    split: HumanSplit, layout: str | None = None, folder: Path | None = None
) -> list[HumanTrial]:
    """The trials of ``split``, optionally only those on ``layout``."""
    if layout is not None and layout not in LAYOUT_NAMES:
        raise UnknownNameError(
            f"unknown kitchen layout {layout!r}; choose one of {', '.join(LAYOUT_NAMES)}"
        )
    return [t for t in load_trials(split, folder) if layout is None or t.layout == layout]
