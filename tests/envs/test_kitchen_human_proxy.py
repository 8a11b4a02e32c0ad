"""Human proxies: motion seats, a pinned tiny behaviour-cloning run, storage and its one-line
errors, seeded play, and learning from a (synthetic) study export's records."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from collabrl.envs.base import Decision
from collabrl.envs.kitchen import human_proxy
from collabrl.envs.kitchen.board import BOARD
from collabrl.envs.kitchen.engine import ACTIONS, Chef, KitchenEngine, KitchenState, Soup
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_partners import HUMAN_PARTNERS
from collabrl.envs.kitchen.human_proxy import (
    HumanProxy,
    deadlocked,
    early_pickup,
    early_pickups,
    futile_actions,
    load_proxy,
    longest_deadlock,
    samples,
    save_proxy,
    toward_free_counter,
    train_proxy,
)
from collabrl.envs.kitchen.layouts import load_layout
from collabrl.envs.kitchen.proxy_features import Featurizer
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.episode import play_episode
from collabrl.errors import CollabrlError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"


def train_trials():
    return trials_of(read_frame("train", FIXTURE), "train")


def test_a_motion_seat_chooses_a_low_level_move_every_tick() -> None:
    game = KitchenGame("cramped_room", horizon=5, motion_seats=["Player 1"])
    obs = game.reset(0)
    assert obs["Player 1"].actions == list(ACTIONS)
    assert obs["Player 1"].state["frame"]["chefs"][1] == {
        "x": 3,
        "y": 1,
        "facing": [0, -1],
        "held": None,
    }
    assert "frame" not in obs["Player 0"].state
    result = game.step({"Player 0": Decision("pickup(onion)"), "Player 1": Decision("east")})
    assert game.tick == 1 and game.last_moves[1] == "east"
    assert game.state.chefs[1].facing == (1, 0)  # pressed into the onion box: a turn
    assert "Player 1" in result.observations  # asked again the next tick
    game.step({"Player 1": Decision("pickup(onion)")})  # a skill is not a motion seat's move
    assert game.counts["invalid"]["Player 1"] == 1
    assert game.summary()["motion_seats"] == ["Player 1"]
    assert KitchenSection.from_summary(game.summary()).motion_seats == ["Player 1"]


def test_motion_seats_must_be_seats() -> None:
    with pytest.raises(ValueError, match="not one of the seats"):
        KitchenSection(motion_seats=["Player 7"])


def test_a_pinned_tiny_behaviour_cloning_run() -> None:
    trials = train_trials()
    x, y = samples(trials, Featurizer(load_layout("forced_coordination")))
    assert x.shape == (140, 131)  # 70 ticks, both seats
    assert np.bincount(y, minlength=6).tolist() == [19, 14, 8, 11, 64, 24]
    model = train_proxy("forced_coordination", trials, seed=0, epochs=100, hidden=16)
    assert model.facts["samples"] == 140
    assert model.facts["train"]["accuracy"] == pytest.approx(0.457142857, abs=1e-6)
    assert model.facts["train"]["log_likelihood"] == pytest.approx(-1.35373, abs=1e-4)
    assert model.probabilities(x[:1])[0] == pytest.approx(
        [0.10120, 0.08096, 0.05321, 0.10083, 0.47677, 0.18702], abs=1e-4
    )


def test_a_stored_proxy_loads_back_and_plays_seeded(tmp_path: Path) -> None:
    model = train_proxy("forced_coordination", train_trials(), seed=0, epochs=5, hidden=8)
    save_proxy(model, tmp_path)
    loaded = load_proxy("forced_coordination", tmp_path)
    assert all(np.array_equal(a, b) for a, b in zip(loaded.weights, model.weights, strict=True))

    def moves(seed: int) -> list[str]:
        game = KitchenGame("forced_coordination", horizon=40, motion_seats=["Player 0"])
        players = {"Player 0": HumanProxy(tmp_path), "Player 1": KitchenExpert()}
        record = play_episode(game, players, seed)
        return [t.action for t in record.turns if t.seat == "Player 0"]

    first = moves(3)
    assert len(first) == 40 and set(first) <= set(ACTIONS)
    assert moves(3) == first
    assert moves(4) != first


def cramped(me: Chef, other: Chef) -> KitchenState:
    return KitchenState(chefs=[me, other])


def test_futile_actions_are_the_presses_that_change_nothing() -> None:
    engine = KitchenEngine(load_layout("cramped_room"))
    onion_box = Chef((1, 1), (-1, 0))  # facing the onion dispenser west of it
    other = Chef((3, 2))
    assert futile_actions(engine, cramped(onion_box, other), 0) == ["west"]
    loaded = Chef((1, 1), (-1, 0), "onion")  # an onion in hand: the dispenser gives nothing
    assert futile_actions(engine, cramped(loaded, other), 0) == ["west", "interact"]
    state = cramped(Chef((2, 1), (0, -1), "onion"), other)  # facing the pot north of it
    assert futile_actions(engine, state, 0) == ["north"]  # the onion goes in
    facing_chef = cramped(Chef((2, 2), (1, 0)), Chef((3, 2)))
    assert "east" not in futile_actions(engine, facing_chef, 0)  # the other chef may step away


def test_early_pickups_are_dishes_before_a_full_pot_and_onions_when_all_are_full() -> None:
    engine = KitchenEngine(load_layout("cramped_room"))
    at_dishes = cramped(Chef((1, 2), (0, 1)), Chef((3, 1)))  # facing the dish dispenser south
    assert early_pickup(engine, at_dishes, 0)
    at_dishes.pots[(2, 0)] = Soup(3, 5)  # a pot cooking: a dish has a use
    assert not early_pickup(engine, at_dishes, 0)
    at_onions = cramped(Chef((1, 1), (-1, 0)), Chef((3, 1)))
    at_onions.pots[(2, 0)] = Soup(3, 5)
    assert early_pickup(engine, at_onions, 0)  # the one pot is full
    at_onions.pots.clear()
    assert not early_pickup(engine, at_onions, 0)
    assert early_pickups(train_trials()) == pytest.approx(0.0)  # the fixture's people: none


def test_play_leaves_out_futile_presses_and_steps_into_the_other_chef(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = train_proxy("forced_coordination", train_trials(), epochs=1, hidden=8)
    model.layout, model.facts["early_pickups"] = "cramped_room", 0.0
    save_proxy(model, tmp_path)  # adjust reads only its facts (early pickups: people never)
    at_dishes = cramped(Chef((1, 2), (0, 1)), Chef((3, 1)))
    probes = []
    real_probe = human_proxy._after_interact
    monkeypatch.setattr(
        human_proxy, "_after_interact", lambda *a: probes.append(a) or real_probe(*a)
    )
    early = HumanProxy(tmp_path).left_out("cramped_room", at_dishes, 0)
    assert early == {"interact", "south"}  # an early pickup; a press into the dispenser faced
    assert len(probes) == 1  # one interact probe serves both rules
    state = cramped(Chef((1, 1), (-1, 0), "onion"), Chef((2, 1)))
    uniform = np.full(len(ACTIONS), 1 / len(ACTIONS))
    proxy = HumanProxy(tmp_path)
    proxy.reset("Player 0", 0)
    p = proxy.adjust(uniform.copy(), "cramped_room", state, 0)
    left_out = {a for a, q in zip(ACTIONS, p, strict=True) if q == 0}
    assert left_out == {"west", "interact", "east"}  # east: the other chef's cell
    plain = HumanProxy(tmp_path, temperature=1.0, skip_futile=False, avoid_other=False)
    plain.reset("Player 0", 0)
    assert plain.adjust(uniform.copy(), "cramped_room", state, 0) == pytest.approx(uniform)
    sharp = HumanProxy(tmp_path, temperature=0.5, skip_futile=False, avoid_other=False)
    sharp.reset("Player 0", 0)
    q = sharp.adjust(np.array([0.4, 0.2, 0.1, 0.1, 0.1, 0.1]), "cramped_room", state, 0)
    assert q / q.sum() == pytest.approx(np.array([16, 4, 1, 1, 1, 1]) / 24)
    with pytest.raises(CollabrlError, match="temperature must be above 0, got 0"):
        HumanProxy(tmp_path, temperature=0)


def test_play_never_takes_an_item_that_deadlocks_the_kitchen(tmp_path: Path) -> None:
    model = train_proxy("forced_coordination", train_trials(), epochs=1, hidden=8)
    model.layout, model.facts["early_pickups"] = "cramped_room", 0.35  # early pickups allowed
    save_proxy(model, tmp_path)
    # chef 0 faces the onion box, the one pot is full and chef 1 holds an onion: a second onion
    # would leave both chefs with onions nobody can use (and nobody free to fetch the dish)
    state = cramped(Chef((1, 1), (-1, 0)), Chef((3, 1), (0, -1), "onion"))
    state.pots[(2, 0)] = Soup(3, 5)
    assert "interact" in HumanProxy(tmp_path).left_out("cramped_room", state, 0)
    assert "interact" not in HumanProxy(tmp_path, avoid_deadlock=False).left_out(
        "cramped_room", state, 0
    )  # an early pickup alone is allowed here (people made a third of theirs early)
    free_hands = cramped(Chef((1, 1), (-1, 0)), Chef((3, 1), (0, -1)))
    free_hands.pots[(2, 0)] = Soup(3, 5)
    assert "interact" not in HumanProxy(tmp_path).left_out("cramped_room", free_hands, 0)


def test_a_deadlock_longer_than_peoples_ends_with_an_item_put_down(tmp_path: Path) -> None:
    engine = KitchenEngine(load_layout("cramped_room"))
    # both chefs hold onions and the one pot is full: nobody can fetch the dish the soup needs
    state = cramped(Chef((2, 1), (0, -1), "onion"), Chef((3, 1), (0, -1), "onion"))
    state.pots[(2, 0)] = Soup(3, 20)
    state.counters[(3, 0)] = "onion"
    assert deadlocked(engine, state)
    assert not deadlocked(engine, cramped(Chef((2, 1), held="onion"), Chef((3, 1))))
    # chef 0 faces the pot; free counters two actions away: (2, 3) (a step south, a press
    # south) and (1, 0) (west, north); ties go in the order north, south, east, west
    assert toward_free_counter(engine, state, 0) == "south"
    assert toward_free_counter(engine, state, 1) == "south"  # (3, 0) holds an onion: (4, 2)
    model = train_proxy("forced_coordination", train_trials(), epochs=1, hidden=8)
    model.layout, model.facts["longest_deadlock"] = "cramped_room", 2
    save_proxy(model, tmp_path)
    proxy = HumanProxy(tmp_path, temperature=1.0, skip_futile=False, avoid_other=False)
    proxy.reset("Player 0", 0)
    uniform = np.full(len(ACTIONS), 1 / len(ACTIONS))
    waited = [proxy.adjust(uniform.copy(), "cramped_room", state, 0) for _ in range(2)]
    assert all(p == pytest.approx(uniform) for p in waited)  # as patient as people were
    walk = proxy.adjust(uniform.copy(), "cramped_room", state, 0)
    assert ACTIONS[int(np.argmax(walk))] == "south" and walk.sum() == 1
    facing = cramped(Chef((1, 1), (0, -1), "onion"), Chef((3, 1), (0, -1), "onion"))
    facing.pots[(2, 0)] = Soup(3, 20)
    put = proxy.adjust(uniform.copy(), "cramped_room", facing, 0)
    assert ACTIONS[int(np.argmax(put))] == "interact" and put.sum() == 1
    unpatient = HumanProxy(tmp_path, temperature=1.0, release_deadlock=False)
    unpatient.reset("Player 0", 0)
    for _ in range(4):
        kept = unpatient.adjust(uniform.copy(), "cramped_room", state, 0)
    assert np.count_nonzero(kept) > 1  # no forced move
    assert longest_deadlock(train_trials()) == 0  # the fixture's people never deadlocked


def test_missing_and_damaged_proxies_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(
        CollabrlError, match="no human proxy for cramped_room in .*build-human-proxy"
    ):
        load_proxy("cramped_room", tmp_path)
    (tmp_path / "coordination_ring.safetensors").write_bytes(b"\0\0broken")
    with pytest.raises(CollabrlError, match="not a readable human proxy") as err:
        load_proxy("coordination_ring", tmp_path)
    assert "\n" not in str(err.value)


def test_a_proxy_outside_a_motion_seat_says_how_to_seat_it(tmp_path: Path) -> None:
    game = KitchenGame("cramped_room", horizon=3)
    proxy = HumanProxy(tmp_path)
    proxy.reset("Player 1", 0)
    with pytest.raises(CollabrlError, match=r"game.motion_seats=\['Player 1'\]"):
        proxy.act(game.reset(0)["Player 1"])


def synthetic_export(ticks: int) -> dict:
    """A record as ``collabrl serve`` and ``collabrl study export`` write one: skill-level
    turns, a frame per tick, ``players`` naming the human seat (here an expert stands in)."""
    game = KitchenGame("cramped_room", horizon=ticks)
    frames: list[dict] = []
    players = {"Player 0": KitchenExpert(), "Player 1": KitchenExpert()}
    game.reset(0)
    BOARD.watch(game, frames.append)
    record = play_episode(game, players, 0)
    return {
        "game": "kitchen",
        "task": "cramped_room",
        "seed": 0,
        "summary": record.summary,
        "turns": [t.__dict__ for t in record.turns],
        "players": {"Player 0": "human", "Player 1": "expert"},
        "frames": frames,  # tick 0 (the start, as play_episode's reset leaves it) to the end
        "stamp": {"source": "human"},
    }


def test_a_study_export_trains_a_proxy_of_its_human_seat(tmp_path: Path) -> None:
    export = tmp_path / "trajectories.jsonl"
    export.write_text(json.dumps(synthetic_export(60)) + "\n")
    from click.testing import CliRunner

    from collabrl.cli import cli

    out = tmp_path / "proxies"
    result = CliRunner().invoke(
        cli,
        [
            "partners",
            "build-human-proxy",
            "--records",
            str(export),
            "--out",
            str(out),
            "--epochs",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    facts = json.loads((out / "cramped_room.json").read_text())
    assert facts["samples"] == 60  # the human seat's ticks only
    assert facts["trials"] == ["record 1"]
    assert "cramped_room" in result.output


def test_records_without_kitchen_play_are_refused(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from collabrl.cli import cli

    export = tmp_path / "trajectories.jsonl"
    export.write_text(json.dumps({"game": "household", "turns": []}) + "\n")
    result = CliRunner().invoke(cli, ["partners", "build-human-proxy", "--records", str(export)])
    assert isinstance(result.exception, CollabrlError)
    assert "no kitchen trajectories in" in str(result.exception)
    with pytest.raises(CollabrlError, match="skip ticks"):
        record = synthetic_export(5)
        HUMAN_PARTNERS.build(tmp_path, records=[{**record, "frames": record["frames"][::2]}])


def test_the_game_plays_a_proxy_pair_as_a_bare_engine_loop_does(tmp_path: Path) -> None:
    """What a proxy pair does through the kitchen game (motion seats, frames read back into
    states) is what its model does on the engine's own states: same seed, same moves."""
    save_proxy(train_proxy("forced_coordination", train_trials(), epochs=5, hidden=8), tmp_path)
    seats = ["Player 0", "Player 1"]
    game = KitchenGame("forced_coordination", horizon=60, motion_seats=seats)
    through_game = play_episode(game, {s: HumanProxy(tmp_path) for s in seats}, 7)
    game_moves = [t.action for t in through_game.turns]

    engine = KitchenEngine(load_layout("forced_coordination"))
    featurizer = Featurizer(engine.layout)
    model = load_proxy("forced_coordination", tmp_path)
    players = [HumanProxy(tmp_path) for _ in seats]
    for seat, player in zip(seats, players, strict=True):
        player.reset(seat, 7)
    state, bare_moves = engine.start_state(), []
    for _ in range(60):
        joint = []
        for chef, player in enumerate(players):
            p = model.probabilities(featurizer.features(state, chef)[None, :])[0].astype(float)
            p = player.adjust(p, "forced_coordination", state, chef)
            joint.append(ACTIONS[int(player.rng.choice(len(ACTIONS), p=p / p.sum()))])
            player.chose(state, chef, joint[-1])
        bare_moves += joint
        engine.step(state, joint)
    assert game_moves == bare_moves
    assert through_game.summary["score"] == state.score
