"""Play one episode: ask each pending seat's player, parse its response, step the game.

:class:`Episode` is the one episode loop: ``collabrl play``, demonstrations, evaluation, the
expert baselines, benchmarks and the world calibration run it through :func:`play_episode`;
training drives many of them in lockstep (one batched policy call per round) and the web app
feeds it people's decisions as they arrive.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from collabrl.agents.fallback import UnusableReply, salvage
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.envs.base import Decision, Game, message_text, sends_message


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
    """A whole episode: every turn plus the game's summary, and which game it was (the registered
    name: the viewer finds the game's section by it)."""

    seed: int
    turns: list[Turn]
    summary: dict[str, Any]
    message_action: str
    game: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Episode:
    """One episode played a step at a time: the one loop every caller drives.

    ``pending`` holds the seats the game owes a decision, with their observations. Answer each
    (:meth:`answer`: the reply is parsed against that seat's observation and kept as a turn) in
    any order and from any source (a player, a batched policy call, a person in the browser),
    then :meth:`advance` steps the game once every pending seat has answered.
    """

    def __init__(
        self,
        game: Game,
        players: Mapping[str, Player],
        seed: int,
        unusable_reply: UnusableReply = "idle",
    ) -> None:
        self.game, self.seed = game, seed
        self.unusable_reply = unusable_reply  # the game section's option of that name
        self.pending = game.reset(seed=seed)
        for seat, player in players.items():
            player.reset(seat, seed)
        self.turns: list[Turn] = []
        self._decisions: dict[str, Decision] = {}
        self._stepped = 0  # turns the game has been handed (the rest await the next step)
        self._said: tuple[int, list[tuple[int, str, str]]] | None = None  # _stepped, messages()

    @property
    def done(self) -> bool:
        return self.game.done

    def waiting(self) -> list[str]:
        """Pending seats that have not answered yet."""
        return [seat for seat in self.pending if seat not in self._decisions]

    def answer(self, seat: str, response: str) -> Turn:
        """Take ``seat``'s reply for the current step (parsed as every seat's is; a reply without a
        usable action idles the seat, or with ``unusable_reply="released"`` runs the released
        code's salvage of it, still flagged invalid)."""
        obs = self.pending[seat]
        parsed = parse_observed(response, obs)
        if self.unusable_reply == "released":
            rng = random.Random(f"{self.seed}-{seat}-{len(self.turns)}")
            parsed = salvage(parsed, response, obs, rng)
        self._decisions[seat] = parsed.decision()
        turn = Turn(
            obs.tick,
            seat,
            response,
            parsed.think,
            parsed.message,
            parsed.action,
            parsed.valid,
            parsed.errors,
        )
        self.turns.append(turn)
        return turn

    def advance(self) -> bool:
        """Step the game if every pending seat has answered; whether it stepped."""
        if self.done or self.waiting():
            return False
        self.pending = self.game.step(self._decisions).observations
        self._decisions = {}
        self._stepped = len(self.turns)
        if not self.done and not self.pending:
            raise RuntimeError(f"game is not over at tick {self.game.tick} but no seat is pending")
        return True

    def messages(self) -> list[tuple[int, str, str]]:
        """The messages delivered so far as (tick, seat, text), oldest first and in seat order
        within a tick (as games take decisions): the game's seeded opening lines, if it has
        any (``opening_lines``, :mod:`collabrl.envs.opening`), then what the turns the game has
        stepped sent, by the one definition of sending (:func:`sends_message`), so any game has
        a chat without keeping one; an answer still waiting for its step is not out yet.

        Pages ask on every push, so the list grows by the turns stepped since the last call
        (their ticks are never older than those before): the same list until the next step,
        which callers must not change."""
        if self._said is None:
            self._said = (0, list(getattr(self.game, "opening_lines", None) or []))
        start, said = self._said
        if start == self._stepped:
            return said
        sent = [
            t
            for t in self.turns[start : self._stepped]
            if sends_message(t.action, t.message, self.game.message_action)
        ]
        sent.sort(key=lambda t: (t.tick, self.game.agents.index(t.seat)))
        said = [*said, *((t.tick, t.seat, message_text(t.message)) for t in sent)]
        self._said = (self._stepped, said)
        return said

    def record(self) -> EpisodeRecord:
        return EpisodeRecord(
            seed=self.seed,
            turns=self.turns,
            summary=self.game.summary(),
            message_action=self.game.message_action,
            game=self.game.name,
        )


def play_episode(
    game: Game,
    players: Mapping[str, Player],
    seed: int,
    unusable_reply: UnusableReply = "idle",
) -> EpisodeRecord:
    """Run ``game`` to the end with one player per seat and return the full record
    (``unusable_reply``: the game section's option, :mod:`collabrl.agents.fallback`)."""
    missing = [seat for seat in game.agents if seat not in players]
    if missing:
        raise ValueError(f"no player for seat(s): {', '.join(missing)}")
    episode = Episode(game, players, seed, unusable_reply)
    while not episode.done:
        for seat in episode.waiting():
            episode.answer(seat, players[seat].act(episode.pending[seat]))
        episode.advance()
    return episode.record()


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
