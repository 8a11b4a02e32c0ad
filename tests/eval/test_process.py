"""Process metrics on hand-built trajectories, on real ones, and in the team grid's table."""

from __future__ import annotations

import math
import re

import pytest

from collabrl.config import load_recipe
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.structures import Speech
from collabrl.episode import play_episode
from collabrl.eval.process import (
    PROCESS_KEYS,
    episode_process,
    initiative_entropy,
    process_metrics,
    speech_reader,
)
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.runner import select_jobs

SEATS = ("Alice", "Bob", "Charlie")


def said(text: str) -> Speech:
    """A speech reader for hand-built traces: ``claim:<subgoal>`` and ``ask:<subgoal>``."""
    return Speech(
        claims=tuple(re.findall(r"claim:(\S+)", text)),
        requests=tuple(re.findall(r"ask:(\S+)", text)),
    )


def ev(tick: int, seat: str, kind: str, target: str | None = None, **extra) -> dict:
    return {"tick": tick, "seat": seat, "kind": kind, "target": target, "text": "",
            "new": False, "wasted": False, **extra}  # fmt: skip


TRACE = [
    ev(0, "Alice", "message", text="claim:check:1 ask:explore:2"),
    ev(0, "Bob", "board", "plan", text="claim:grab:3"),
    ev(1, "Alice", "work", "check:1", new=True),
    ev(2, "Charlie", "work", "explore:2", new=True),
    ev(3, "Bob", "work", "explore:2", wasted=True),
    ev(4, "Alice", "request", "put:4"),
    ev(5, "Alice", "wait", "put:4"),
    ev(6, "Alice", "wait", "put:4"),
    ev(6, "Charlie", "approve", "1"),
    ev(7, "Alice", "work", "put:4", new=True),
    ev(8, "Charlie", "deny", "2"),
    ev(9, "Bob", "invalid"),
]
REQUESTS = [{"tick": 4, "decided_tick": 6}, {"tick": 8, "decided_tick": None}]
SUMMARY = {"decisions": dict.fromkeys(SEATS, 1), "trace": TRACE, "gate_requests": REQUESTS}


def test_every_process_metric_on_a_hand_built_trace() -> None:
    m = process_metrics(SUMMARY, "Alice", said)
    shares = [3 / 5, 1 / 5, 1 / 5]  # initiatives: Alice 2 new + 1 claim, Bob 1 claim, Charlie 1
    entropy = -sum(p * math.log(p) for p in shares) / math.log(3)
    assert {k: v for k, v in m.items() if k != "seats"} == {
        "work_agent": 2,
        "work_teammates": 2,
        "work_total": 4,
        "messages_agent": 1,
        "messages_teammates": 0,
        "messages_total": 1,
        "board_total": 1,
        "initiative_entropy": pytest.approx(entropy),
        "claims_made_total": 2,
        "claims_kept_total": 1,  # Alice checked 1 as claimed; Bob never grabbed 3
        "handoffs_total": 1,  # Alice asked for explore:2, Charlie did it
        "wasted_total": 1,
        "gate_requests_total": 1,
        "gate_approvals_total": 1,
        "gate_denials_total": 1,
        "gate_blocked_total": 2,
        "gate_latency": 2.0,
    }
    assert m["seats"]["Alice"] == {
        "work": 2,
        "messages": 1,
        "board": 0,
        "initiative": 3,
        "claims_made": 1,
        "claims_kept": 1,
        "handoffs": 1,
        "wasted": 0,
        "gate_requests": 1,
        "gate_approvals": 0,
        "gate_denials": 0,
        "gate_blocked": 2,
    }
    assert m["seats"]["Charlie"]["gate_approvals"] == 1 and m["seats"]["Bob"]["wasted"] == 1


def test_the_agent_seat_decides_what_counts_as_teammates() -> None:
    m = process_metrics(SUMMARY, "Bob", said)
    assert (m["work_agent"], m["work_teammates"], m["messages_teammates"]) == (1, 3, 1)
    with pytest.raises(ValueError, match="not a seat"):
        process_metrics(SUMMARY, "Zoe", said)


def test_claims_count_only_work_after_them_and_handoffs_only_other_seats() -> None:
    trace = [
        ev(0, "Alice", "work", "check:1", new=True),
        ev(1, "Alice", "message", text="claim:check:1 claim:check:1 ask:grab:5"),
        ev(2, "Alice", "work", "grab:5", new=True),
    ]
    m = process_metrics({"decisions": dict.fromkeys(SEATS, 1), "trace": trace}, "Alice", said)
    assert (m["claims_made_total"], m["claims_kept_total"], m["handoffs_total"]) == (1, 0, 0)
    assert m["gate_latency"] is None


def test_initiative_entropy_bounds() -> None:
    assert initiative_entropy([2, 2, 2]) == pytest.approx(1.0)
    assert initiative_entropy([4, 0]) == 0.0
    assert initiative_entropy([3]) is None and initiative_entropy([0, 0]) is None


def test_the_games_speech_readers_name_the_subgoals_work_names() -> None:
    household = speech_reader("household", "0_read_book")
    assert household("I'll check <cabinet> (203). Bob, could you explore <bedroom> (15)?") == (
        Speech(claims=("check:203",), requests=("explore:15",))
    )
    kitchen = speech_reader("kitchen", "cramped_room")
    assert kitchen("I'll do the dishes. Could you bring onions?") == Speech(("dish",), ("onion",))


def test_real_episodes_agree_with_the_game_counters() -> None:
    game = HouseholdGame("20_prepare_food", seats=3, structure="scaffolded", max_decisions=250)
    record = play_episode(game, {s: HouseholdExpert() for s in game.agents}, seed=0)
    m = episode_process("household", record.summary, "Alice")
    summary = record.summary
    assert m["messages_total"] == sum(summary["messages"].values())
    notes = [e for e in summary["board"] if e["text"].startswith("Gate:")]
    assert m["board_total"] == len(summary["board"]) - len(notes)
    assert m["gate_requests_total"] == len(summary["gate_requests"])
    assert m["work_total"] == sum(1 for t in record.turns if t.action.startswith("[go")) - (
        m["gate_requests_total"] + m["gate_blocked_total"]
    )
    assert 0 < m["initiative_entropy"] <= 1 and m["claims_kept_total"] <= m["claims_made_total"]


def test_the_team_grid_plays_sizes_and_structures_and_writes_the_study_table(tmp_path) -> None:
    spec = load_recipe(
        "teams",
        [
            "eval.games=[household]",
            "eval.tasks=[0_read_book]",
            "eval.max_profiles=2",
            "eval.seats=[1]",
            f"eval.output_dir={tmp_path}",
        ],
    ).evaluation()
    jobs = select_jobs(spec)
    assert {(j.structure, j.size) for j in jobs} == {
        (s, n) for s in ("default", "memory", "gates", "scaffolded") for n in (1, 2, 3)
    }
    three = [j for j in jobs if j.size == 3]
    assert all(len(j.team) == 2 and j.team[0].id != j.team[1].id for j in three)
    result = run_evaluation(spec, progress=False)
    rows = {(r["structure"], r["size"]): r for r in result.teams}
    assert len(rows) == 12 and rows["default", 1]["initiative_entropy"] is None
    assert rows["gates", 3]["gate_requests_total"] > 0 and rows["memory", 2]["board_total"] > 0
    table = (tmp_path / "teams.md").read_text()
    assert "| scaffolded" in table and "H init" in table and "Spread" in table
    assert (tmp_path / "teams.csv").read_text().startswith("game,structure,size,")


def test_a_game_without_a_trace_gets_na_not_zeros() -> None:
    """The relay plug-in records no trace: its process metrics are unknown, not counted 0."""
    from collabrl.envs.registry import get_game, load_addon

    section = get_game("relay")()
    game = section.make_game()
    expert = load_addon(section.expert, "expert", "relay")
    record = play_episode(game, {seat: expert() for seat in game.agents}, seed=0)
    assert "trace" not in record.summary
    metrics = episode_process("relay", record.summary, game.agents[0])
    assert all(metrics[key] is None for key in PROCESS_KEYS) and metrics["seats"] == {}
