"""Both games pass the shipped conformance checker and PettingZoo's parallel API test, and the
checker names the rule a deliberately broken game breaks."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from collabrl.envs import RULES, GameCheckError, check_game
from collabrl.envs.base import Decision, Game, Observation, StepResult
from collabrl.envs.checker import BLANK_MESSAGE, TALK
from collabrl.envs.household import HouseholdGame
from collabrl.envs.kitchen import TRAIN_HORIZON, KitchenGame
from collabrl.errors import CollabrlError

GAMES: dict[str, Callable[[], Game]] = {
    "household-read_book-2": lambda: HouseholdGame("0_read_book"),
    "household-put_dishwasher-3": lambda: HouseholdGame("10_put_dishwasher", seats=3),
    "household-setup_table-2": lambda: HouseholdGame("44_setup_table", seats=2),
    "kitchen-cramped_room-reference": lambda: KitchenGame("cramped_room", horizon=TRAIN_HORIZON),
    "kitchen-cramped_room-cooperative": lambda: KitchenGame(
        "cramped_room", horizon=TRAIN_HORIZON, motion="cooperative"
    ),
    "kitchen-forced_coordination-reference": lambda: KitchenGame(
        "forced_coordination", horizon=TRAIN_HORIZON
    ),
    "kitchen-counter_circuit-cooperative": lambda: KitchenGame(
        "counter_circuit", horizon=TRAIN_HORIZON, motion="cooperative", cook_mode="interact"
    ),
}
SLOW_TO_CHECK = {
    "kitchen-cramped_room-cooperative",
    "kitchen-forced_coordination-reference",
    "kitchen-counter_circuit-cooperative",
}
"""Games whose full check takes seconds: only the full run checks them (one kitchen stays)."""


@pytest.mark.parametrize(
    "make_game",
    [
        pytest.param(make, id=name, marks=[pytest.mark.slow] if name in SLOW_TO_CHECK else [])
        for name, make in GAMES.items()
    ],
)
def test_shipped_games_pass_the_checker(make_game: Callable[[], Game]) -> None:
    check_game(make_game, seeds=(0, 1, 2))


@pytest.mark.parametrize("make_game", GAMES.values(), ids=GAMES.keys())
def test_step_after_the_end_raises(make_game: Callable[[], Game]) -> None:
    game = make_game()
    pending = game.reset(0)
    while not game.done:
        pending = game.step({s: Decision(o.actions[0]) for s, o in pending.items()}).observations
    with pytest.raises(RuntimeError, match="episode is over"):
        game.step({})


@pytest.mark.parametrize("game", ["household", "kitchen"])
def test_blank_messages_and_flagged_replies_count_as_invalid(game: str) -> None:
    """Both games agree: a blank message is invalid and no message; a usable action from a reply
    flagged invalid still runs but counts as invalid."""
    g = HouseholdGame("0_read_book") if game == "household" else KitchenGame("cramped_room")
    a, b = g.agents
    g.reset(0)
    g.step(
        {
            a: Decision(g.message_action, BLANK_MESSAGE),
            b: Decision(g.message_action, TALK, valid=False),
        }
    )
    summary = g.summary()
    assert summary["invalid"] == {a: 1, b: 1} and summary["messages"] == {a: 0, b: 1}


# --------------------------------------------------------------------------- broken games
class Passthrough:
    """A game passed through unchanged; each broken variant below overrides one thing."""

    def __init__(self) -> None:
        self.game = HouseholdGame("0_read_book")
        self.name, self.agents = self.game.name, self.game.agents
        self.message_action = self.game.message_action
        self.max_ticks = self.game.max_ticks

    @property
    def tick(self) -> int:
        return self.game.tick

    @property
    def done(self) -> bool:
        return self.game.done

    @property
    def progress(self) -> int:
        return self.game.progress

    def intro(self, seat: str) -> str:
        return self.game.intro(seat)

    def summary(self) -> dict[str, Any]:
        return self.game.summary()

    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        return self.observations(self.game.reset(seed))

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        result = self.game.step(decisions)
        return dataclasses.replace(result, observations=self.observations(result.observations))

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return observations


class AsksBusySeats(Passthrough):
    """Gives a seat that is still busy an observation (its decision is then ignored)."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        result = super().step(decisions)
        busy = [a for a in self.agents if a not in result.observations]
        if result.observations and busy:
            some = next(iter(result.observations.values()))
            result.observations[busy[0]] = dataclasses.replace(some, seat=busy[0])
        return result


class WrappingClock(Passthrough):
    """A clock that wraps around, so the tick goes backwards."""

    @property
    def tick(self) -> int:
        return self.game.tick % 7

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return {s: dataclasses.replace(o, tick=self.tick) for s, o in observations.items()}


class ListAnchor(Passthrough):
    """Anchors as lists, which cannot be hashed."""

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return {s: dataclasses.replace(o, anchor=list(o.anchor)) for s, o in observations.items()}


class SilentAfterEnd(Passthrough):
    """Returns an empty result when stepped after the end (the kitchen game did)."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        if not self.game.done:
            return super().step(decisions)
        ended = dict.fromkeys(self.agents, True)
        return StepResult(
            {}, dict.fromkeys(self.agents, 0.0), ended, ended, {a: {} for a in self.agents}
        )


class SendsBlankMessages(Passthrough):
    """Delivers a blank message as if it had text."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        filled = {
            s: dataclasses.replace(d, message=d.message.strip() or TALK)
            for s, d in decisions.items()
        }
        return super().step(filled)


class IgnoresValidFlag(Passthrough):
    """Does not count a usable action from a reply flagged invalid (the kitchen game did)."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        return super().step({s: dataclasses.replace(d, valid=True) for s, d in decisions.items()})


class DropsAReward(Passthrough):
    """Leaves the last seat out of the rewards."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        result = super().step(decisions)
        del result.rewards[self.agents[-1]]
        return result


class EndsUnflagged(Passthrough):
    """Ends the episode without terminating or truncating anyone."""

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        result = super().step(decisions)
        unflagged = dict.fromkeys(self.agents, False)
        return dataclasses.replace(result, terminations=unflagged, truncations=dict(unflagged))


class NoDecisionCounts(Passthrough):
    """Leaves out the per-seat decision counts."""

    def summary(self) -> dict[str, Any]:
        return {k: v for k, v in self.game.summary().items() if k != "decisions"}


class StrangerAtReset(Passthrough):
    """Observes a seat that does not exist."""

    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        observations = super().reset(seed)
        some = next(iter(observations.values()))
        return {**observations, "Nobody": dataclasses.replace(some, seat="Nobody")}


_CALLS = itertools.count()  # shared by all instances: no two games see the same numbers


class Noisy(Passthrough):
    """Texts carry a number that differs from game to game."""

    def __init__(self) -> None:
        super().__init__()
        self.noise = next(_CALLS)

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return {
            s: dataclasses.replace(o, text=f"{self.noise} {o.text}")
            for s, o in observations.items()
        }


class Forgetful(Passthrough):
    """Texts count the episodes this game has played: reset does not restore everything."""

    def __init__(self) -> None:
        super().__init__()
        self.episodes = 0

    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        self.episodes += 1
        return super().reset(seed)

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return {
            s: dataclasses.replace(o, text=f"{self.episodes} {o.text}")
            for s, o in observations.items()
        }


class Unregistered(Passthrough):
    """Calls itself by a name no game is registered under."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "nameless"


class SummaryWithoutTask(Passthrough):
    """Leaves the task out of its summary (evaluation would fail with KeyError: 'task')."""

    def summary(self) -> dict[str, Any]:
        return {k: v for k, v in super().summary().items() if k != "task"}


class SummaryWithoutSteps(Passthrough):
    """Reports a score instead of the steps its section names as the efficiency column."""

    def summary(self) -> dict[str, Any]:
        summary = {k: v for k, v in super().summary().items() if k != "steps"}
        return {**summary, "score": 0}


class StrangeTrace(Passthrough):
    """Its process trace names a seat the game does not have."""

    def summary(self) -> dict[str, Any]:
        return {**super().summary(), "trace": [{"tick": 0, "seat": "Nobody", "kind": "work"}]}


class UnletteredText(Passthrough):
    """Observation texts without the lettered action list."""

    def observations(self, observations: dict[str, Observation]) -> dict[str, Observation]:
        return {
            s: dataclasses.replace(o, text=o.text.partition("Available actions:")[0] + "Go!")
            for s, o in observations.items()
        }


class NoClock(Passthrough):
    """Has no ``max_ticks`` and no section override of ``tick_limit``."""

    def __init__(self) -> None:
        super().__init__()
        del self.max_ticks


class FractionalProgress(Passthrough):
    """Reports progress as a share rather than goal units."""

    @property
    def progress(self) -> int:
        return 0.5  # type: ignore[return-value]


BROKEN = {
    Unregistered: "registered",
    SummaryWithoutTask: "summary-task",
    SummaryWithoutSteps: "summary-efficiency",
    StrangeTrace: "summary-optional",
    UnletteredText: "text-actions",
    NoClock: "tick-limit",
    FractionalProgress: "progress",
    AsksBusySeats: "pending-seats",
    WrappingClock: "tick-advances",
    ListAnchor: "anchor-hashable",
    SilentAfterEnd: "step-after-end",
    SendsBlankMessages: "message-accounting",
    IgnoresValidFlag: "invalid-accounting",
    DropsAReward: "step-keys",
    EndsUnflagged: "done-flags",
    NoDecisionCounts: "summary-keys",
    StrangerAtReset: "reset-observations",
    Noisy: "determinism",
    Forgetful: "reset-restores",
}


def test_the_unbroken_wrapper_passes() -> None:
    check_game(Passthrough)


def test_an_unregistered_game_passes_with_its_section_given() -> None:
    from collabrl.envs.household.section import HouseholdSection

    check_game(Unregistered, seeds=(0,), section=HouseholdSection)
    check_game(Unregistered, seeds=(0,), section=HouseholdSection(task="0_read_book"))


@pytest.mark.parametrize(("broken", "rule"), BROKEN.items(), ids=[c.__name__ for c in BROKEN])
def test_checker_names_the_broken_rule(broken: Callable[[], Game], rule: str) -> None:
    with pytest.raises(GameCheckError) as caught:
        check_game(broken)
    assert caught.value.rule == rule and f"rule {rule!r} broken" in str(caught.value)
    assert RULES[rule] in str(caught.value)


def test_an_episode_that_runs_too_long_is_reported() -> None:
    with pytest.raises(GameCheckError, match="episode-ends"):
        check_game(Passthrough, max_steps=3)


def test_check_errors_are_assertion_errors() -> None:
    assert issubclass(GameCheckError, AssertionError)


# --------------------------------------------------------------------------- PettingZoo view
PARALLEL_GAMES = {k: GAMES[k] for k in GAMES if k.endswith(("-3", "reference", "cooperative"))}


@pytest.mark.parametrize("make_game", PARALLEL_GAMES.values(), ids=PARALLEL_GAMES.keys())
def test_pettingzoo_parallel_api_test_passes(make_game: Callable[[], Game]) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    from collabrl.envs import to_parallel_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports most API slips as warnings
        parallel_api_test(to_parallel_env(make_game()), num_cycles=1000)
        parallel_seed_test(lambda: to_parallel_env(make_game()))


@pytest.mark.parametrize("make_game", PARALLEL_GAMES.values(), ids=PARALLEL_GAMES.keys())
def test_pettingzoo_view_plays_pending_seats_only(make_game: Callable[[], Game]) -> None:
    pytest.importorskip("pettingzoo")
    from collabrl.envs import to_parallel_env

    env = to_parallel_env(make_game())
    observations, infos = env.reset(seed=1)
    while env.agents:
        for seat, view in observations.items():
            assert env.observation_space(seat).contains(view)
            assert view["offered"].any() == infos[seat]["pending"]
        actions = {seat: env.action_space(seat).sample() for seat in env.agents}
        observations, _, _, _, infos = env.step(actions)
    assert env.game.done and not env.agents


def test_pettingzoo_actions_map_to_decisions() -> None:
    """Index i is the i-th offered action; past the list the seat idles (invalid); the message
    is delivered with the message action."""
    pytest.importorskip("pettingzoo")
    from collabrl.envs import to_parallel_env

    game = HouseholdGame("0_read_book")
    alice, bob = game.agents
    talk = HouseholdGame("0_read_book").reset(0)[alice].actions.index(game.message_action)
    env = to_parallel_env(game)
    env.reset(seed=0)
    env.step({alice: {"action": talk, "message": "hi"}, bob: {"action": 63, "message": ""}})
    summary = game.summary()
    assert summary["messages"] == {alice: 1, bob: 0} and summary["invalid"] == {alice: 0, bob: 1}
    assert game.dialogue[-1][1:] == (alice, "hi")


def test_pettingzoo_view_refuses_to_cut_observations() -> None:
    pytest.importorskip("pettingzoo")
    from collabrl.envs import to_parallel_env

    with pytest.raises(ValueError, match="max_text_chars"):
        to_parallel_env(HouseholdGame("0_read_book"), max_text_chars=10).reset(seed=0)
    with pytest.raises(ValueError, match="max_actions"):
        to_parallel_env(HouseholdGame("0_read_book"), max_actions=2).reset(seed=0)


def test_missing_pettingzoo_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # makes ``import pettingzoo`` fail
    monkeypatch.delitem(sys.modules, "collabrl.envs.parallel", raising=False)
    with pytest.raises(CollabrlError, match=r"collabrl\[pettingzoo\]"):
        importlib.import_module("collabrl.envs.parallel")


def test_importing_the_games_does_not_import_pettingzoo() -> None:
    code = "import sys, collabrl.envs.household, collabrl.envs.kitchen; print('pettingzoo' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
