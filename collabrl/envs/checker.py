"""Conformance checker for collabrl games, in the spirit of PettingZoo's ``parallel_api_test`` and
Gymnasium's ``check_env``.

:func:`check_game` plays seeded random episodes (offered actions plus deliberate slips: actions not
offered, missing actions, replies flagged invalid, empty messages) and raises
:class:`GameCheckError` naming the first rule of :data:`RULES` a game breaks. Anyone adding a game
runs it once in a test; the shipped games pass it (``tests/envs/test_conformance.py``).

collabrl's ``reset(seed)`` returns the observations only (seat -> Observation for the seats that
must decide first); the PettingZoo adapter (``collabrl.envs.parallel.to_parallel_env``) returns
``(observations, infos)`` as PettingZoo does.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from collabrl.envs.base import (
    Decision,
    Game,
    Observation,
    StepResult,
    lettered,
    message_text,
    sends_message,
)
from collabrl.envs.registry import GameSection, registered_games
from collabrl.envs.structures.trace import EVENT_KINDS

RULES: dict[str, str] = {
    "protocol": "the game has the attributes and methods of collabrl.envs.base.Game",
    "intro": "intro(seat) returns a non-empty str for every seat",
    "reset-observations": "reset(seed) starts a running episode and returns a non-empty dict "
    "seat -> Observation, only for seats in agents",
    "observation-fields": "an Observation has seat (its key), tick (the game's tick, int), text "
    "(non-empty str), actions (non-empty list of distinct str), state (dict) and message_action "
    "(the game's)",
    "anchor-hashable": "Observation.anchor can be hashed (GiGPO groups decisions by it)",
    "step-keys": "step returns a StepResult whose rewards (finite numbers), terminations and "
    "truncations (bools) and infos (dicts) are keyed by exactly the agents",
    "pending-seats": "observations go exactly to the seats that must decide next: each of their "
    "decisions is taken (summary()['decisions'] grows by one) and nobody else's is counted",
    "tick-advances": "the tick never goes backwards and advances with every step",
    "done-flags": "done is True exactly when every seat is terminated or truncated; then no "
    "observations are returned, while running no seat has ended and some seat must decide",
    "episode-ends": "an episode ends within max_steps steps",
    "step-after-end": "step after the episode ended raises RuntimeError (call reset first)",
    "invalid-accounting": "an action not offered, a missing action, an empty message or a reply "
    "flagged valid=False counts once in summary()['invalid'] and sets infos[seat]['invalid']",
    "message-accounting": "the offered message action with text counts once in "
    "summary()['messages']; with empty or whitespace text it is invalid and not a message",
    "summary-keys": "summary() holds per-seat int dicts 'decisions', 'invalid' and 'messages' "
    "for all agents, an int 'ticks', and 'success' (bool) with 'steps' (int), or 'score'",
    "registered": "the game's name is a registered game (collabrl.envs.registry) or its section is "
    "passed as section=: the section says how collabrl reads the summary",
    "summary-task": "summary()[section.task_key] names the task played, one of section.all_tasks()"
    " (evaluation, process metrics and records read it)",
    "summary-efficiency": "at the end, summary()[section.efficiency_metric] is a finite number "
    "(the benchmark's efficiency column) and section.efficiency(summary) a finite float (the "
    "efficiency reward)",
    "summary-optional": "optional summary keys have the types collabrl reads: 'stalled' bool, "
    "'outcome' str, 'trace' a list of process events (dicts with int 'tick', 'seat' one of the "
    "agents, 'kind' one of collabrl.envs.structures.EVENT_KINDS)",
    "text-actions": "Observation.text ends with the line 'Available actions:' and then exactly the "
    "lettered list of Observation.actions (collabrl.envs.base.lettered): prompts, the answer "
    "parser, the pages and the training dump read it",
    "tick-limit": "section.tick_limit(game) is a positive int the game's tick never exceeds (the "
    "clock the pages show; by default the game's max_ticks)",
    "progress": "game.progress is an int >= 0 (goal units completed; the optional progress "
    "reward pays for increases)",
    "determinism": "the same seed and the same decisions give the same episode on fresh games "
    "(observation texts, actions, anchors, rewards, flags, summary)",
    "reset-restores": "reset(seed) on a used game replays the same episode as on a fresh game",
}

COUNTED = ("decisions", "invalid", "messages")  # per-seat summary counters the framework reads
DEFAULT_MAX_STEPS = 5_000
# How often the random policy slips, per decision; otherwise it picks an offered action at random.
SLIP_RATES = {
    "unoffered": 0.05,  # an action that is not on the list
    "missing": 0.05,  # no action at all (an unparsable reply)
    "flagged": 0.05,  # an offered action from a reply flagged invalid (e.g. a missing tag)
    "blank message": 0.05,  # the message action with whitespace only
}
ACTIONS_LINE = "Available actions:"  # the line before the lettered list, ending every observation
UNOFFERED_ACTION = "[not an offered action]"
BLANK_MESSAGE = " \n\t "
TALK = "Let's split the work."

GameFactory = Callable[[], Game]


class GameCheckError(AssertionError):
    """A game broke a protocol rule; ``rule`` is its key in :data:`RULES`."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"rule {rule!r} broken ({RULES[rule]}): {detail}")
        self.rule = rule
        self.detail = detail


def _require(ok: bool, rule: str, detail: str) -> None:
    if not ok:
        raise GameCheckError(rule, detail)


@contextmanager
def _at(seed: int, step: int) -> Iterator[None]:
    """Say where a rule broke: the episode seed and the step (0 is reset)."""
    try:
        yield
    except GameCheckError as err:
        raise GameCheckError(err.rule, f"seed {seed}, step {step}: {err.detail}") from None


def check_game(
    make_game: GameFactory,
    *,
    seeds: Iterable[int] = (0, 1),
    max_steps: int = DEFAULT_MAX_STEPS,
    section: GameSection | type[GameSection] | None = None,
) -> None:
    """Check a game against :data:`RULES`; raise :class:`GameCheckError` on the first broken one.

    Takes a zero-argument factory rather than a game so that determinism can be checked on fresh
    instances (and ``reset`` on a used one against them). Per seed it plays three episodes with
    the same seeded random policy: on a fresh game, again on that game, and on another fresh one.
    ``section``: the section the games are made from (an instance, or its class for a game not
    registered yet; default: the registered section of the game's name); the summary, the
    efficiency reward and the clock are read through it, as training and evaluation do.
    """
    for seed in seeds:
        game = make_game()
        _check_protocol(game)
        facts = section or _registered_section(game)
        first = _play(game, facts, seed, max_steps)
        fresh = _play(make_game(), facts, seed, max_steps)
        _require_same(first, fresh, "determinism", seed)
        _require_same(first, _play(game, facts, seed, max_steps), "reset-restores", seed)


def _registered_section(game: Game) -> type[GameSection]:
    games = registered_games()
    _require(
        game.name in games,
        "registered",
        f"no registered game is named {game.name!r} (registered: {', '.join(sorted(games))}); "
        "register its section or pass check_game(..., section=YourSection)",
    )
    return games[game.name]


def _check_protocol(game: Game) -> None:
    _require(isinstance(game, Game), "protocol", f"{type(game).__name__} is not a Game")
    agents = game.agents
    _require(
        isinstance(agents, list)
        and bool(agents)
        and all(isinstance(a, str) for a in agents)
        and len(set(agents)) == len(agents),
        "protocol",
        f"agents is {agents!r}, not a non-empty list of distinct seat names",
    )
    for seat in game.agents:
        intro = game.intro(seat)
        _require(isinstance(intro, str) and bool(intro), "intro", f"intro({seat!r}) = {intro!r}")


def _require_same(a: list[Any], b: list[Any], rule: str, seed: int) -> None:
    """Both traces equal; the message points at the first step where they part."""
    if a == b:
        return
    pairs = enumerate(zip(a, b, strict=False))  # a shorter episode parts where it ends
    step = next((k for k, (x, y) in pairs if x != y), min(len(a), len(b)))
    raise GameCheckError(rule, f"seed {seed}: the episodes differ at step {step} (0 = reset)")


# --------------------------------------------------------------------------- the random policy
@dataclass(frozen=True)
class Choice:
    """A decision and what the game must count for it."""

    decision: Decision
    invalid: bool
    message: bool


class RandomPolicy:
    """Seeded random decisions over the offered actions, slipping now and then (see the rates)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, obs: Observation) -> Choice:
        offered = self.rng.choice(obs.actions)
        kinds = [*SLIP_RATES, "offered"]
        weights = [*SLIP_RATES.values(), 1.0 - sum(SLIP_RATES.values())]
        kind = self.rng.choices(kinds, weights)[0]
        return expected(obs, _decision(kind, offered, obs.message_action))


def _decision(kind: str, offered: str, message_action: str) -> Decision:
    """The decision of a kind the random policy picked (a key of SLIP_RATES, or "offered")."""
    return {
        "unoffered": Decision(UNOFFERED_ACTION, TALK),
        "missing": Decision(None, TALK, valid=False),
        "flagged": Decision(offered, TALK, valid=False),
        "blank message": Decision(message_action, BLANK_MESSAGE),
        "offered": Decision(offered, TALK),
    }[kind]


def expected(obs: Observation, decision: Decision) -> Choice:
    """What a decision must count as: usable means offered, and with text if it is a message."""
    action = decision.action
    usable = action in obs.actions and (
        action != obs.message_action or bool(message_text(decision.message))
    )
    sent = usable and sends_message(action, decision.message, obs.message_action)
    return Choice(decision, invalid=not usable or not decision.valid, message=sent)


# --------------------------------------------------------------------------- one episode
def _play(
    game: Game, section: GameSection | type[GameSection], seed: int, max_steps: int
) -> list[Any]:
    """Play one seeded random episode, checking every step; returns its trace (for determinism).

    The policy is seeded with the episode seed, so replays of a seed make the same choices.
    """
    policy = RandomPolicy(seed)
    pending = game.reset(seed)
    with _at(seed, 0):
        _check_reset(game, pending)
        limit = _tick_limit(game, section)
    trace: list[Any] = [_observation_trace(pending)]
    for step in range(1, max_steps + 1):
        before, tick = _counts(game), game.tick
        choices = {seat: policy.choose(obs) for seat, obs in pending.items()}
        result = game.step({seat: c.decision for seat, c in choices.items()})
        with _at(seed, step):
            _check_step(game, result, choices, before, tick)
            _require(game.tick <= limit, "tick-limit", f"tick {game.tick} > tick_limit {limit}")
            if game.done:
                _check_final_summary(game, section)
                _check_after_end(game)
        trace.append((_observation_trace(result.observations), *_flags_trace(result)))
        if game.done:
            return [*trace, game.summary()]
        pending = result.observations
    raise GameCheckError("episode-ends", f"seed {seed}: still running after {max_steps} steps")


def _observation_trace(observations: Mapping[str, Observation]) -> tuple:
    return tuple(
        (seat, o.tick, o.text, tuple(o.actions), o.anchor)
        for seat, o in sorted(observations.items())
    )


def _flags_trace(result: StepResult) -> tuple:
    return tuple(
        tuple(sorted(d.items())) for d in (result.rewards, result.terminations, result.truncations)
    )


def _check_reset(game: Game, observations: Any) -> None:
    _require(
        isinstance(observations, dict) and bool(observations),
        "reset-observations",
        f"reset returned {type(observations).__name__} {_keys(observations)}",
    )
    _require(not game.done, "reset-observations", "done is True right after reset")
    _check_observations(game, observations, "reset-observations")
    _check_summary(game)


def _keys(value: Any) -> str:
    return repr(sorted(value)) if isinstance(value, dict) else ""


def _check_observations(game: Game, observations: dict[str, Observation], rule: str) -> None:
    """Each observation well formed; ``rule`` is the one broken by observations for non-seats."""
    stray = set(observations) - set(game.agents)
    _require(not stray, rule, f"observations for unknown seats {sorted(stray)}")
    for seat, obs in observations.items():
        _check_observation(game, seat, obs)


def _check_observation(game: Game, seat: str, obs: Any) -> None:
    rule = "observation-fields"
    _require(isinstance(obs, Observation), rule, f"{seat}: {type(obs).__name__}, not Observation")
    _require(obs.seat == seat, rule, f"observation under {seat!r} has seat {obs.seat!r}")
    _require(
        type(obs.tick) is int and obs.tick == game.tick,
        rule,
        f"{seat}: tick {obs.tick!r}, game tick {game.tick!r}",
    )
    _require(isinstance(obs.text, str) and bool(obs.text), rule, f"{seat}: empty or non-str text")
    _require(
        isinstance(obs.actions, list)
        and bool(obs.actions)
        and all(isinstance(a, str) for a in obs.actions)
        and len(set(obs.actions)) == len(obs.actions),
        rule,
        f"{seat}: actions {obs.actions!r}",
    )
    _require(isinstance(obs.state, dict), rule, f"{seat}: state is {type(obs.state).__name__}")
    _check_action_list(seat, obs)
    _require(
        obs.message_action == game.message_action,
        rule,
        f"{seat}: message_action {obs.message_action!r}, game's {game.message_action!r}",
    )
    try:
        hash(obs.anchor)
    except TypeError as err:
        raise GameCheckError("anchor-hashable", f"{seat}: {err}") from None


def _counts(game: Game) -> dict[str, dict[str, int]]:
    summary = game.summary()
    return {key: dict(summary[key]) for key in COUNTED}


def _check_summary(game: Game) -> None:
    rule, summary = "summary-keys", game.summary()
    _require(isinstance(summary, dict), rule, f"summary() is {type(summary).__name__}")
    for key in COUNTED:
        counts = summary.get(key)
        _require(
            isinstance(counts, dict)
            and set(counts) == set(game.agents)
            and all(type(v) is int for v in counts.values()),
            rule,
            f"summary()[{key!r}] = {counts!r}",
        )
    _require(type(summary.get("ticks")) is int, rule, f"ticks = {summary.get('ticks')!r}")
    scored = isinstance(summary.get("score"), int | float)
    judged = isinstance(summary.get("success"), bool) and type(summary.get("steps")) is int
    _require(scored or judged, rule, "neither 'score' nor 'success' with 'steps'")
    _check_optional_keys(game, summary)
    progress = game.progress
    _require(type(progress) is int and progress >= 0, "progress", f"progress is {progress!r}")


def _check_optional_keys(game: Game, summary: dict[str, Any]) -> None:
    rule = "summary-optional"
    for key, kind in (("stalled", bool), ("outcome", str)):
        if key in summary:
            value = summary[key]
            _require(isinstance(value, kind), rule, f"summary()[{key!r}] = {value!r}")
    trace = summary.get("trace", [])
    _require(isinstance(trace, list), rule, f"summary()['trace'] is {type(trace).__name__}")
    for event in trace:
        _require(
            isinstance(event, dict)
            and type(event.get("tick")) is int
            and event.get("seat") in game.agents
            and event.get("kind") in EVENT_KINDS,
            rule,
            f"trace event {event!r}",
        )


def _check_final_summary(game: Game, section: GameSection | type[GameSection]) -> None:
    """The keys read once an episode is over: its task and its efficiency (through the section
    given, or the class's section for the task played, with its default options)."""
    summary = game.summary()
    try:
        task = section.task_of(summary)
    except Exception as err:  # a missing key is the rule broken, reported as such
        raise GameCheckError(
            "summary-task", f"task_of(summary) raised {type(err).__name__}: {err}"
        ) from None
    _require(
        isinstance(task, str) and task in section.all_tasks(),
        "summary-task",
        f"summary()[{section.task_key!r}] = {task!r}, not one of the section's tasks",
    )
    rule, metric = "summary-efficiency", section.efficiency_metric
    column = summary.get(metric)
    _require(_finite(column), rule, f"summary()[{metric!r}] = {column!r}")
    try:
        if isinstance(section, type):
            section = section.model_validate({section.task_key: task})
        reward = section.efficiency(summary)
    except Exception as err:
        raise GameCheckError(
            rule, f"efficiency(summary) raised {type(err).__name__}: {err}"
        ) from None
    _require(_finite(reward), rule, f"efficiency(summary) = {reward!r}")


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _tick_limit(game: Game, section: GameSection | type[GameSection]) -> int:
    try:
        limit = section.tick_limit(game)
    except Exception as err:
        raise GameCheckError(
            "tick-limit", f"tick_limit(game) raised {type(err).__name__}: {err}"
        ) from None
    _require(type(limit) is int and limit > 0, "tick-limit", f"tick_limit(game) = {limit!r}")
    return limit


def _check_action_list(seat: str, obs: Observation) -> None:
    """The text ends with the lettered list of exactly the offered actions."""
    listing = f"{ACTIONS_LINE}\n{lettered(obs.actions)}"
    _require(
        obs.text.rstrip().endswith(listing),
        "text-actions",
        f"{seat}: the text does not end with {ACTIONS_LINE!r} and the lettered actions "
        f"{obs.actions!r}",
    )


# --------------------------------------------------------------------------- one step
def _check_step(
    game: Game,
    result: Any,
    choices: dict[str, Choice],
    before: dict[str, dict[str, int]],
    tick: int,
) -> None:
    _check_result_keys(game, result)
    _require(game.tick > tick, "tick-advances", f"tick went from {tick} to {game.tick}")
    _check_done(game, result)
    _check_observations(game, result.observations, "pending-seats")
    _check_summary(game)
    _check_accounting(game, result, choices, before)


def _check_result_keys(game: Game, result: Any) -> None:
    rule, agents = "step-keys", set(game.agents)
    _require(isinstance(result, StepResult), rule, f"step returned {type(result).__name__}")
    for name in ("rewards", "terminations", "truncations", "infos"):
        keys = set(getattr(result, name))
        _require(keys == agents, rule, f"{name} keyed by {sorted(keys)}, agents {sorted(agents)}")
    for seat in agents:
        reward = result.rewards[seat]
        _require(
            isinstance(reward, int | float)
            and not isinstance(reward, bool)
            and math.isfinite(reward),
            rule,
            f"reward of {seat} is {reward!r}",
        )
        flags = (result.terminations[seat], result.truncations[seat])
        _require(all(type(f) is bool for f in flags), rule, f"flags of {seat} are {flags!r}")
        _require(isinstance(result.infos[seat], dict), rule, f"infos[{seat!r}] is not a dict")


def _check_done(game: Game, result: StepResult) -> None:
    rule = "done-flags"
    ended = {a for a in game.agents if result.terminations[a] or result.truncations[a]}
    if game.done:
        _require(ended == set(game.agents), rule, f"done, but only {sorted(ended)} have ended")
        _require(
            not result.observations,
            rule,
            f"done, yet observations for {_keys(result.observations)}",
        )
    else:
        _require(not ended, rule, f"running, but {sorted(ended)} have ended")
        _require(bool(result.observations), rule, "running, but no seat must decide")


def _check_accounting(
    game: Game, result: StepResult, choices: dict[str, Choice], before: dict[str, dict[str, int]]
) -> None:
    """Every counter moved by exactly what the decisions of this step call for."""
    after = _counts(game)
    for seat in game.agents:
        choice = choices.get(seat)
        grew = {key: after[key][seat] - before[key][seat] for key in COUNTED}
        asked = "was asked and decided" if choice else "was not asked"
        _require(
            grew["decisions"] == (choice is not None),
            "pending-seats",
            f"{seat} {asked}, but summary()['decisions'] grew by {grew['decisions']}",
        )
        if choice is None:
            continue
        what = f"{seat} chose {choice.decision!r}"
        _require(
            grew["messages"] == choice.message,
            "message-accounting",
            f"{what}; messages grew by {grew['messages']}",
        )
        _require(
            grew["invalid"] == choice.invalid,
            "invalid-accounting",
            f"{what}; invalid grew by {grew['invalid']}",
        )
        _require(
            result.infos[seat].get("invalid") is choice.invalid,
            "invalid-accounting",
            f"{what}; infos say invalid={result.infos[seat].get('invalid')!r}",
        )


def _check_after_end(game: Game) -> None:
    rule = "step-after-end"
    try:
        game.step({})
    except RuntimeError:
        return
    except Exception as err:  # any other error type is the rule broken, reported as such
        raise GameCheckError(rule, f"raised {type(err).__name__}: {err}") from None
    raise GameCheckError(rule, "step after the end returned instead of raising")
