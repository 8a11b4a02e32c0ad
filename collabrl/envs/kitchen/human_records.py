"""Recorded kitchen play as collabrl trajectories, and back.

A recorded human trial becomes a record of the trajectory schema that ``collabrl eval`` and
``collabrl serve`` write (the viewer draws it from its ``frames``, one per tick; its ``turns`` are
every seat's low-level action at every tick). The way back reads any such record that holds a
frame per tick (a recorded trial, or a human session of ``collabrl serve`` / ``collabrl study
export``), so a lab's own study sessions train a human proxy the same way as the 2019 trials:
the states come from the frames, the low-level actions from the turns when they are per tick, or
else are recovered from consecutive frames (the joint action the engine turns one frame into the
next with, preferring standing still), and the engine verifies every tick either way.
"""

from __future__ import annotations

import itertools
from typing import Any

from collabrl.envs.kitchen.engine import (
    ACTIONS,
    STAY,
    KitchenEngine,
    KitchenState,
)
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.human_data import HumanSplit, HumanTrial, copy_state, verify
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout
from collabrl.envs.kitchen.render import frame_state, state_frame
from collabrl.errors import CollabrlError

HUMAN = "human"
SOURCE = "overcooked-ai 1.1.0 human-human trials (Carroll et al. 2019)"
# joint actions tried when recovering one from two frames: standing still first
_JOINT_ORDER = (STAY, *(a for a in ACTIONS if a != STAY))


def seat_names(chefs: int) -> list[str]:
    """The kitchen's default seat names (``Player 0``, ``Player 1``)."""
    return [f"Player {i}" for i in range(chefs)]


def trial_record(trial: HumanTrial) -> dict[str, Any]:
    """``trial`` as one trajectory record (both seats human; ``stamp.source`` is ``human``)."""
    seats = seat_names(len(trial.states[0].chefs))
    score = 0
    frames = []
    for state, reward in zip(trial.states, (0, *trial.rewards), strict=True):
        score += reward
        frames.append({**state_frame(state), "score": score})
    turns: list[dict[str, Any]] = [
        {
            "tick": t,
            "seat": seat,
            "response": action,
            "think": "",
            "message": "",
            "action": action,
            "valid": True,
            "errors": [],
            "observation": None,
        }
        for t, joint in enumerate(trial.actions)
        for seat, action in zip(seats, joint, strict=True)
    ]
    return {
        "game": KitchenGame.name,
        "task": trial.layout,
        "profile": None,
        "player_type": HUMAN,
        "seat": "Agent 1",
        "seat_name": seats[0],
        "seed": 0,
        "efficiency": float(trial.score),
        "message_ratio": 0.0,
        "tokens_per_step_k": 0.0,
        "scores": {},
        "summary": _summary(trial, seats),
        "turns": turns,
        "windows": [],
        "players": dict.fromkeys(seats, HUMAN),
        "frames": frames,
        "stamp": {
            "source": HUMAN,
            "dataset": SOURCE,
            "split": trial.split,
            "trial": trial.trial,
            "workers": trial.workers,
        },
    }


def _summary(trial: HumanTrial, seats: list[str]) -> dict[str, Any]:
    """What the viewer and ``KitchenSection.from_summary`` read of a kitchen summary."""
    return {
        "layout": trial.layout,
        "cook_mode": "auto",
        "motion": "reference",
        "seed": 0,
        "score": trial.score,
        "soups_delivered": sum(r > 0 for r in trial.rewards),
        "ticks": trial.ticks,
        "horizon": trial.ticks,
        "decisions": dict.fromkeys(seats, trial.ticks),
        "invalid": dict.fromkeys(seats, 0),
        "messages": dict.fromkeys(seats, 0),
        "chat": [],
        "structure": "default",
    }


def trial_from_record(
    record: dict[str, Any], split: HumanSplit = "train", name: str = ""
) -> HumanTrial:
    """A kitchen trajectory record with a frame per tick as a verified :class:`HumanTrial`.

    Raises :class:`CollabrlError` (one line) for a record of another game, without frames, with
    a gap between frames, or with a tick the engine cannot reproduce."""
    name = name or str((record.get("stamp") or {}).get("trial") or record.get("task"))
    if record.get("game") != KitchenGame.name:
        raise CollabrlError(f"{name}: not a kitchen record (game {record.get('game')!r})")
    layout = record.get("task") or (record.get("summary") or {}).get("layout")
    if layout not in LAYOUT_NAMES:
        raise CollabrlError(f"{name}: unknown kitchen layout {layout!r}")
    frames = record.get("frames") or []
    if len(frames) < 2:
        raise CollabrlError(
            f"{name}: no frames to learn from (a record of a human session has one per tick)"
        )
    ticks = [f["tick"] for f in frames]
    if ticks != list(range(ticks[0], ticks[0] + len(ticks))):
        raise CollabrlError(f"{name}: its frames skip ticks; a frame per tick is needed")
    states = tuple(frame_state(f) for f in frames)
    scores = [int(f.get("score", 0)) for f in frames]
    rewards = tuple(b - a for a, b in itertools.pairwise(scores))
    engine = KitchenEngine(load_layout(layout), cook_mode="auto")
    per_tick = _per_tick_actions(record, len(states[0].chefs))
    actions = tuple(
        per_tick.get(state.tick) or _recover(engine, state, after, name)
        for state, after in itertools.pairwise(states)
    )
    trial = HumanTrial(
        split=split,
        layout=layout,
        trial=name,
        workers=0,
        states=states,
        actions=actions,
        rewards=rewards,
        people=tuple(human_seats(record)),
    )
    verify(trial)
    return trial


def _per_tick_actions(record: dict[str, Any], chefs: int) -> dict[int, tuple[str, ...]]:
    """Joint low-level actions by tick when the record's turns are one low-level action per seat
    per tick (a recorded trial); empty otherwise (a skill-level session)."""
    seats = list(record.get("players") or seat_names(chefs))
    by_tick: dict[int, dict[str, str]] = {}
    for turn in record.get("turns") or []:
        if turn.get("action") not in ACTIONS:
            return {}
        by_tick.setdefault(turn["tick"], {})[turn["seat"]] = turn["action"]
    if any(set(joint) != set(seats) for joint in by_tick.values()):
        return {}
    return {t: tuple(joint[s] for s in seats) for t, joint in by_tick.items()}


def _recover(
    engine: KitchenEngine, before: KitchenState, after: KitchenState, name: str
) -> tuple[str, ...]:
    """The joint action that turns ``before`` into ``after`` (standing still preferred, then
    Overcooked's action order); an error when none does."""
    for joint in itertools.product(_JOINT_ORDER, repeat=len(before.chefs)):
        state = copy_state(before)
        engine.step(state, joint)
        state.score = 0
        if state == after:
            return joint
    raise CollabrlError(f"{name}: no joint action leads from tick {before.tick} to the next frame")


def human_seats(record: dict[str, Any]) -> list[int]:
    """Indices of the seats people played in a record (all of them when it does not say)."""
    players = record.get("players")
    if not players:
        return list(range(len(record["frames"][0]["chefs"])))
    return [i for i, kind in enumerate(players.values()) if kind == HUMAN]
