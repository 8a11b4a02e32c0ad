"""Recorded human play: conversion, verification on load, records both ways, one-line errors.

The fixture (``tests/fixtures/human_trials``) is cut from overcooked-ai 1.1.0's own files: 70
ticks of three trials (cramped_room and counter_circuit from the test split, forced_coordination
from the train split), each window holding two deliveries. The full-data test runs where the
package is installed (CI: ``pip install --no-deps overcooked-ai==1.1.0``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from collabrl.envs.kitchen import human_data
from collabrl.envs.kitchen.engine import KitchenEngine, Soup
from collabrl.envs.kitchen.human_data import (
    HumanTrial,
    convert_action,
    convert_state,
    copy_state,
    read_frame,
    trials_of,
    verify,
)
from collabrl.envs.kitchen.human_records import trial_from_record, trial_record
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.errors import CollabrlError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"


def fixture_trials(split: str) -> list[HumanTrial]:
    return trials_of(read_frame(split, FIXTURE), split)  # type: ignore[arg-type]


def test_the_fixture_loads_as_verified_trials_on_collabrl_layouts() -> None:
    test = fixture_trials("test")
    assert [(t.trial, t.ticks, t.score) for t in test] == [
        ("cramped_room/run-1/2", 70, 40),
        ("counter_circuit/run-1/1", 70, 40),
    ]
    train = fixture_trials("train")
    assert [(t.layout, t.ticks, t.score) for t in train] == [("forced_coordination", 70, 40)]


def test_the_engine_replays_the_recorded_ticks_one_by_one() -> None:
    """From the first recorded state, the engine alone, fed the recorded joint actions, walks
    through every recorded state and scores every recorded reward."""
    for trial in fixture_trials("test") + fixture_trials("train"):
        engine = KitchenEngine(load_layout(trial.layout), cook_mode="auto")
        state = copy_state(trial.states[0])
        for t, action in enumerate(trial.actions):
            reward = engine.step(state, action)
            assert reward == trial.rewards[t]
            score, state.score = state.score, 0
            assert state == trial.states[t + 1], (trial.trial, t)
            state.score = score


def test_conversion_follows_the_original_authors_conventions() -> None:
    """Soups count cooking ticks on past ready in the browser game: capped at 20; a pot with
    fewer than three onions is idle; actions: INTERACT, [0, 0] stay, directions."""
    raw = {
        "players": [
            {
                "position": [3, 1],
                "orientation": [0, -1],
                "held_object": {"name": "soup", "position": [3, 1], "state": ["onion", 3, 29]},
            },
            {"position": [1, 2], "orientation": [-1, 0]},
        ],
        "objects": {
            "2,0": {"name": "soup", "position": [2, 0], "state": ["onion", 2, 0]},
            "0,2": {"name": "dish", "position": [0, 2]},
        },
    }
    state = convert_state(raw, load_layout("cramped_room").pots, tick=7)
    assert state.chefs[0].pos == (3, 1) and state.chefs[0].held == Soup(3, 20)
    assert state.chefs[1].facing == (-1, 0) and state.chefs[1].held is None
    assert state.pots == {(2, 0): Soup(2, -1)}
    assert state.counters == {(0, 2): "dish"}
    assert state.tick == 7
    assert [convert_action(a) for a in ("INTERACT", [0, 0], [0, -1], [1, 0])] == [
        "interact",
        "stay",
        "north",
        "east",
    ]


def test_a_tampered_tick_fails_verification() -> None:
    trial = fixture_trials("test")[0]
    actions = list(trial.actions)
    actions[10] = (
        ("interact", "interact") if actions[10] != ("interact", "interact") else ("stay",) * 2
    )
    tampered = HumanTrial(**{**trial.__dict__, "actions": tuple(actions)})
    with pytest.raises(CollabrlError, match=r"does not reproduce tick 10"):
        verify(tampered)


def test_missing_and_damaged_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(
        CollabrlError, match=r"missing; .*pip install --no-deps overcooked-ai==1.1.0"
    ):
        read_frame("test", tmp_path)
    (tmp_path / "clean_test_trials.pickle").write_bytes(b"not a pickle")
    with pytest.raises(CollabrlError, match=r"not a readable trials file") as err:
        read_frame("test", tmp_path)
    assert "\n" not in str(err.value)
    with pytest.raises(CollabrlError, match="no such folder"):
        read_frame("test", tmp_path / "absent")
    with pytest.raises(CollabrlError, match="unknown human-data split"):
        read_frame("valid", tmp_path)  # type: ignore[arg-type]


def test_without_the_package_the_error_names_the_install(monkeypatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(CollabrlError, match=r"need overcooked-ai: pip install --no-deps"):
        human_data.data_folder()


def test_a_trial_record_reads_back_to_the_same_trial() -> None:
    trial = fixture_trials("test")[1]
    record = json.loads(json.dumps(trial_record(trial)))
    assert record["game"] == "kitchen" and record["task"] == "counter_circuit"
    assert record["stamp"]["source"] == "human" and record["efficiency"] == 40.0
    assert len(record["frames"]) == 71 and len(record["turns"]) == 140
    back = trial_from_record(record, "test")
    assert (back.states, back.actions, back.rewards) == (trial.states, trial.actions, trial.rewards)


def test_actions_are_recovered_from_frames_when_turns_are_not_per_tick() -> None:
    """A human session records skill-level turns; its frames alone give a verified trial whose
    recovered actions reproduce every recorded state (a blocked move reads as standing still)."""
    trial = fixture_trials("test")[0]
    record = {**trial_record(trial), "turns": [{"tick": 0, "seat": "Player 0", "action": "x"}]}
    back = trial_from_record(record, "test")
    assert back.states == trial.states and back.rewards == trial.rewards
    changed = [
        t for t, (a, b) in enumerate(zip(back.actions, trial.actions, strict=True)) if a != b
    ]
    assert all("stay" in back.actions[t] for t in changed)


def test_records_that_cannot_train_a_proxy_are_refused_in_one_line() -> None:
    record = trial_record(fixture_trials("test")[0])
    with pytest.raises(CollabrlError, match="not a kitchen record"):
        trial_from_record({**record, "game": "household"})
    with pytest.raises(CollabrlError, match="no frames"):
        trial_from_record({**record, "frames": []})
    with pytest.raises(CollabrlError, match="skip ticks"):
        trial_from_record({**record, "frames": record["frames"][:3] + record["frames"][5:]})


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("overcooked_ai_py") is None,
    reason="needs pip install --no-deps overcooked-ai==1.1.0",
)
def test_every_recorded_tick_of_both_splits_is_reproduced() -> None:
    """All 76 trials (91,102 ticks) load and verify; the test humans' mean scores per layout."""
    test = human_data.load_trials("test")
    train = human_data.load_trials("train")
    assert (len(test), len(train)) == (37, 39)
    assert sum(t.ticks for t in test + train) == 91_102
    means = {
        layout: round(sum(t.score for t in test if t.layout == layout) / n)
        for layout, n in {
            "cramped_room": 8,
            "asymmetric_advantages": 8,
            "coordination_ring": 8,
            "forced_coordination": 6,
            "counter_circuit": 7,
        }.items()
    }
    assert means == {
        "cramped_room": 360,
        "asymmetric_advantages": 535,
        "coordination_ring": 308,
        "forced_coordination": 340,
        "counter_circuit": 249,
    }


def test_human_data_writes_viewable_trajectories_and_an_hf_copy(tmp_path: Path) -> None:
    import datasets
    from click.testing import CliRunner

    from collabrl.cli import cli
    from collabrl.web.view_app import board_replay

    out = tmp_path / "humans"
    result = CliRunner().invoke(
        cli, ["partners", "human-data", str(out), "--data", str(FIXTURE)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    assert [r["stamp"]["trial"] for r in records] == [
        "forced_coordination/run-1/2",
        "cramped_room/run-1/2",
        "counter_circuit/run-1/1",
    ]
    drawn = board_replay(records[1])
    assert drawn["board"]["kind"] == "overcooked-grid" and len(drawn["frames"]) == 71
    copy = datasets.load_from_disk(str(out / "trajectories_hf"))
    assert len(copy) == 3 and json.loads(copy[0]["summary"])["score"] == 40
