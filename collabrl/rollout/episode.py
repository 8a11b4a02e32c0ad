"""Play one episode: ask each pending seat's player, parse its response, step the game.

This is the one single-episode loop: ``collabrl play``, demonstrations, evaluation, the expert
baselines, benchmarks and the world calibration all use it; batched training rollouts drive many
games in lockstep with the same parse-then-step rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import Game, sends_message


@dataclass
class Turn:
    """One decision of one seat, as the player wrote it and as the parser understood it."""

    tick: int
    seat: str
    response: str
    think: str
    message: str
    action: str | None
    valid: bool
    errors: list[str] = field(default_factory=list)


@dataclass
class EpisodeRecord:
    """A whole episode: every turn plus the game's summary."""

    seed: int
    turns: list[Turn]
    summary: dict[str, Any]
    message_action: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def play_episode(game: Game, players: Mapping[str, Player], seed: int) -> EpisodeRecord:
    """Run ``game`` to the end with one player per seat and return the full record."""
    missing = [seat for seat in game.agents if seat not in players]
    if missing:
        raise ValueError(f"no player for seat(s): {', '.join(missing)}")
    observations = game.reset(seed=seed)
    for seat in game.agents:
        players[seat].reset(seat, seed)
    turns: list[Turn] = []
    while not game.done:
        if not observations:
            raise RuntimeError(f"game is not over at tick {game.tick} but no seat is pending")
        decisions = {}
        for seat, obs in observations.items():
            response = players[seat].act(obs)
            parsed = parse_observed(response, obs)
            decisions[seat] = parsed.decision()
            turns.append(
                Turn(
                    obs.tick,
                    seat,
                    response,
                    parsed.think,
                    parsed.message,
                    parsed.action,
                    parsed.valid,
                    parsed.errors,
                )
            )
        observations = game.step(decisions).observations
    return EpisodeRecord(
        seed=seed, turns=turns, summary=game.summary(), message_action=game.message_action
    )


def play_experts(game: Game, expert: Callable[[], Player], seed: int = 0) -> dict[str, Any]:
    """The summary of one episode with a fresh ``expert()`` in every seat (expert baselines)."""
    return play_episode(game, {seat: expert() for seat in game.agents}, seed).summary


def format_transcript(record: EpisodeRecord) -> str:
    """A readable transcript: one line per decision, messages quoted, invalid turns flagged."""
    lines = []
    for turn in record.turns:
        if turn.action is None:
            what = f"INVALID ({'; '.join(turn.errors) or 'no action'})"
        elif sends_message(turn.action, turn.message, record.message_action):
            what = f'says: "{turn.message}"'
        else:
            what = turn.action
        lines.append(f"[tick {turn.tick:3d}] {turn.seat}: {what}")
    return "\n".join(lines)
