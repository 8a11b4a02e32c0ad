"""Play a household episode with scripted players (tests, benchmarks, expert baselines)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import Task, get_task


def run_episode(
    game: HouseholdGame, players: Mapping[str, Player], seed: int = 0
) -> list[tuple[int, str, str]]:
    """Reset ``game`` with ``seed``, play it to the end; the transcript is (tick, seat, reply)."""
    observations = game.reset(seed)
    for seat, player in players.items():
        player.reset(seat, seed)
    transcript = []
    while not game.done:
        decisions = {}
        for seat, obs in observations.items():
            reply = players[seat].act(obs)
            transcript.append((obs.tick, seat, reply))
            decisions[seat] = parse_observed(reply, obs).decision()
        observations = game.step(decisions).observations
    return transcript


def play_experts(task: str | Task, seed: int = 0, seats: int = 2, **game_options) -> dict:
    """Summary of an episode where every seat is a :class:`HouseholdExpert`."""
    game = HouseholdGame(task, seats=seats, **game_options)
    run_episode(game, {seat: HouseholdExpert() for seat in game.agents}, seed)
    return game.summary()


def expert_pair_steps(task: str | Task, seed: int = 0) -> tuple[int, int]:
    """Steps of two experts in both seat orders: as dealt by ``seed``, then with the two start
    rooms swapped between the seats (two experts are alike, so only where each starts matters).

    This is the world-time yardstick the shipped tasks are calibrated against (paper Table 4).
    """
    task = get_task(task) if isinstance(task, str) else task
    swapped = replace(task, start_rooms=task.start_rooms[::-1])
    first, second = (play_experts(t, seed)["steps"] for t in (task, swapped))
    return first, second
