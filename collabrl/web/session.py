"""One episode with human seats, driven through the game API like any other episode.

The game waits for a human seat exactly as ``play_episode`` waits for any player: every pending
seat decides, then ``game.step``. Non-human seats answer server-side as soon as their observation
exists (LLM players on a worker thread); when only human seats are owed a decision, the session
stops and the pages show those seats their observation. A human decision is written in the agent
response format and parsed by the same parser as any seat's reply, so it is recorded the same
way, with the seconds it took (from the observation first being sent to the decision arriving).

Everything game-specific comes from the game's registry entry (:mod:`collabrl.envs.registry`):
the clock's limit, the task and efficiency of the record, the outcome line and the board, if
any; the chat comes from the episode's turns. A new game is served without any edit here.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.config import Recipe
from collabrl.envs.base import (
    MAX_MESSAGE_CHARS,
    Game,
    Observation,
    format_response,
    sends_message,
)
from collabrl.envs.registry import BoardDrawer, GameSection, get_game
from collabrl.episode import Episode
from collabrl.errors import CollabrlError
from collabrl.eval.runner import efficiency
from collabrl.factory import player_label
from collabrl.web.frames import (
    Frame,
    board_of,
    drawing,
    final_view,
    observation_view,
    seat_frame,
    take_frame,
)

MAX_ACTION_CHARS = 200  # longer than any offered action; a page never sends more
PROTOCOL = 2  # the human-seat protocol's version (docs/human-seat-protocol.md); bumped on any
# incompatible change to the messages below or to the serve routes
# The state's fields that stay the same through an episode (Session.setup): a connection's first
# state carries them, later states only when they changed; a client keeps the last ones it got.
EPISODE_FIELDS = ("game", "seat", "seats", "names", "kinds", "limit", "intro", "board")


class DecisionError(CollabrlError):
    """A decision the session refuses (not this seat's turn, too long, not offered): told to the
    page only. ``code`` is its human-seat protocol error code."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class SeatSlot:
    """What one human seat is shown now, and since when (for the decision time)."""

    obs: Observation | None = None
    shown_at: float | None = None
    decided_tick: int | None = None  # the tick of the observation last decided on (resends)
    laid_out: tuple[Observation, dict[str, Any]] | None = None  # obs and its page view (once)

    def page_view(self) -> dict[str, Any] | None:
        """The observation as the page gets it (:func:`observation_view`), built once per
        observation: every push until the decision resends the same one."""
        if self.obs is None:
            return None
        if self.laid_out is None or self.laid_out[0] is not self.obs:
            self.laid_out = (self.obs, observation_view(self.obs))
        return self.laid_out[1]


@dataclass
class Session:
    """One episode of ``game`` with ``players`` in the non-human seats and people in ``humans``."""

    sid: str
    game: Game
    players: dict[str, Player]
    humans: list[str]
    seed: int
    kinds: dict[str, str]  # seat -> player label (human, expert, persona:<id>, llm:<model>)
    on_finish: Callable[[Session], None]
    names: dict[str, str] = field(default_factory=dict)  # seat -> name pages show (default: seat)
    turns: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    seats: dict[str, SeatSlot] = field(default_factory=dict)
    version: int = 0  # bumped on every change; pages are pushed a new state
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    started: float = field(default_factory=time.time)
    play: Episode | None = None  # the episode loop, set by start()
    board: dict[str, Any] | None = None  # {kind, layout} of the game's board, set by start()
    drawer: BoardDrawer | None = None  # the game's board drawer, set by start()
    finals: dict[str, dict[str, Any] | None] = field(default_factory=dict)  # seat -> final view
    setups: dict[str, dict[str, Any]] = field(default_factory=dict)  # seat -> setup(seat)
    ending: dict[str, Any] | None = None  # the game's summary once the episode is over

    async def start(self) -> None:
        """Reset the game and players, then play non-human seats until a human is owed."""
        self.play = Episode(self.game, self.players, self.seed)
        self.seats = {seat: SeatSlot() for seat in self.humans}
        board = board_of(self.section)
        if board is not None:
            self.board, self.drawer = drawing(board, self.game), board
            board.watch(self.game, self.frames.append)
        async with self.lock:
            await self._advance()

    @property
    def running(self) -> Episode:
        """The episode loop, once :meth:`start` has set it."""
        assert self.play is not None, "the session has not started"
        return self.play

    @property
    def section(self) -> type[GameSection]:
        """The game's registry entry: what the pages and the record learn about the game."""
        return get_game(self.game.name)

    @property
    def done(self) -> bool:
        return self.game.done

    def waiting_for(self) -> list[str]:
        """Human seats owed a decision now."""
        waiting = self.running.waiting()
        return [s for s in self.humans if s in waiting]

    def check_tick(self, seat: str, tick: object) -> None:
        """Refuse a decision that names an observation (its ``tick``) other than the one
        ``seat`` is owed a decision on: a resend of the decision already taken on it (code
        ``duplicate``: taken once, nothing more happens) or a stale one (code ``stale``)."""
        if tick is None:
            return
        obs = self.seats[seat].obs
        if obs is not None and tick == obs.tick:
            return
        if tick == self.seats[seat].decided_tick:
            raise DecisionError("already taken: that decision was a resend", "duplicate")
        raise DecisionError("that observation is gone (stale tick)", "stale")

    def check_usable(self, seat: str, action: str, message: str) -> None:
        """Refuse (:class:`DecisionError`) a frame whose action is not one ``seat`` is offered
        now, or a message action without text: a person's page never sends one, so the socket
        answers it with an error instead of idling the seat (simulated participants and
        stand-ins, which reply like agents, go through :meth:`decide` and are recorded)."""
        obs = self.seats[seat].obs
        if obs is None:
            return
        if action == obs.message_action and not sends_message(action, message, obs.message_action):
            raise DecisionError("a message needs some text")
        if parse_observed(format_response("", message, action), obs).action is None:
            raise DecisionError(
                f"unknown action {action[:60]!r}: choose one of the offered actions"
            )

    def mark_shown(self, seat: str) -> None:
        """The observation of ``seat`` reached a page: its decision time starts now (once)."""
        slot = self.seats[seat]
        if slot.obs is not None and slot.shown_at is None:
            slot.shown_at = time.perf_counter()

    async def decide(self, seat: str, action: str, message: str, tick: object = None) -> None:
        """A human seat's decision on the observation made at ``tick`` (None: the current one);
        raises :class:`DecisionError` when it cannot be taken. An unusable reply (an action not
        offered) is recorded as an invalid decision, as any seat's; the seat socket refuses such
        frames before they get here (:meth:`check_usable`)."""
        if len(message) > MAX_MESSAGE_CHARS:
            raise DecisionError(f"a message holds at most {MAX_MESSAGE_CHARS} characters")
        if len(action) > MAX_ACTION_CHARS:
            raise DecisionError("unknown action")
        async with self.lock:
            self.check_tick(seat, tick)
            if seat not in self.waiting_for():
                raise DecisionError("it is not your turn" if not self.done else "episode is over")
            slot = self.seats[seat]
            response = format_response("", message, action)
            now = time.perf_counter()
            elapsed = now - (slot.shown_at if slot.shown_at is not None else now)
            self._take(seat, response, "human", round(elapsed, 3))
            slot.decided_tick = slot.obs.tick if slot.obs is not None else None
            slot.obs, slot.shown_at = None, None
            await self._advance()

    def _take(self, seat: str, response: str, player: str, seconds: float | None) -> None:
        """One seat's reply into the episode loop, kept as a turn with who made it and when."""
        observation = self.running.pending[seat].text
        turn = self.running.answer(seat, response)
        self.turns.append(
            {**asdict(turn), "player": player, "decision_s": seconds, "observation": observation}
        )

    async def _advance(self) -> None:
        """Let non-human seats decide and step the game until a human seat is owed (or the end)."""
        while not self.game.done:
            for seat in self.running.waiting():
                if seat in self.humans:
                    continue
                player, obs = self.players[seat], self.running.pending[seat]
                if isinstance(player, LLMPlayer):
                    response = await asyncio.to_thread(player.act, obs)
                else:  # scripted players answer in microseconds: no thread hop
                    response = player.act(obs)
                self._take(seat, response, self.kinds[seat], None)
            owed = self.waiting_for()
            if owed:
                for seat in owed:
                    self.seats[seat].obs = self.running.pending[seat]
                break
            self.running.advance()
        if self.drawer is not None:
            take_frame(self.drawer, self.game, self.frames)
        if self.game.done:
            self.on_finish(self)
        async with self.changed:
            self.version += 1
            self.changed.notify_all()

    def setup(self, seat: str) -> dict[str, Any]:
        """What the page of ``seat`` keeps for the whole episode (:data:`EPISODE_FIELDS`: game,
        seats and their names, the rules, the clock's limit, the board's layout), sent once per
        connection instead of in every push. Built once and rebuilt only when the rules or names
        changed: the same object while nothing changed, so a connection knows by identity
        whether it has sent it already."""
        names = {s: self.names.get(s, s) for s in self.game.agents}
        intro = self.game.intro(seat)
        kept = self.setups.get(seat)
        if kept is None or kept["intro"] != intro or kept["names"] != names:
            kept = {
                "game": self.game.name,
                "seat": seat,
                "seats": list(self.game.agents),
                "names": names,
                "kinds": self.kinds,
                "limit": self.section.tick_limit(self.game),
                "intro": intro,
            }
            if self.board is not None:
                kept["board"] = self.board
            self.setups[seat] = kept
        return kept

    def view(self, seat: str, frames_from: int = 0, chat_from: int = 0) -> dict[str, Any]:
        """What the page of ``seat`` shows now, but for :meth:`setup` (text only: the page
        escapes all of it); the board's frames from index ``frames_from`` on and the chat's
        messages from ``chat_from`` on (those the connection has not sent yet: the chat only
        grows, so a page appends them)."""
        messages = self.running.messages()
        summary = self.summary() if self.game.done else None
        observation = self.seats[seat].page_view()
        state: dict[str, Any] = {
            "type": "state",
            "protocol": PROTOCOL,
            "version": self.version,
            "tick": self.game.tick,
            "done": self.game.done,
            "your_turn": observation is not None,
            "waiting_for": self.waiting_for(),
            "observation": observation,
            "summary": summary,
            "outcome": outcome_line(self.section, summary) if summary is not None else None,
            "final": self._final(seat) if self.game.done else None,
            "chat": [{"tick": t, "speaker": s, "text": m} for t, s, m in messages[chat_from:]],
            "chat_count": len(messages),
        }
        if self.drawer is not None:
            state["frames"] = [seat_frame(self.drawer, f, seat) for f in self.frames[frames_from:]]
            state["frame_count"] = len(self.frames)
        return state

    def summary(self) -> dict[str, Any]:
        """The game's summary; once the episode is over, built once: the record and every later
        push read it, and a game's summary may take milliseconds (the household's does)."""
        if not self.game.done:
            return self.game.summary()
        if self.ending is None:
            self.ending = self.game.summary()
        return self.ending

    def _final(self, seat: str) -> dict[str, Any] | None:
        """The finished state ``seat`` sees (built once: every later push resends it)."""
        if seat not in self.finals:
            self.finals[seat] = final_view(self.game, seat)
        return self.finals[seat]

    def record(self, profile: Any | None) -> dict[str, Any]:
        """The episode in the evaluation's trajectory schema, from the (first) human's seat."""
        from collabrl import __version__

        summary = self.summary()
        me = self.humans[0]
        mine = [t for t in self.turns if t["seat"] == me]
        sent = sum(sends_message(t["action"], t["message"], self.game.message_action) for t in mine)
        return {
            "game": self.game.name,
            "task": self.section.task_of(summary),
            "profile": getattr(profile, "id", None),
            "player_type": getattr(profile, "player_type", None),
            "seat": f"Agent {self.game.agents.index(me) + 1}",
            "seat_name": me,
            "seed": self.seed,
            "efficiency": efficiency(self.game.name, summary),
            "message_ratio": sent / len(mine) if mine else 0.0,
            "tokens_per_step_k": 0.0,
            "scores": {},
            "summary": summary,
            "turns": self.turns,
            "windows": [],
            "players": self.kinds,
            "frames": self.frames,
            "stamp": {
                "source": "human",
                "session": self.sid,
                "collabrl": __version__,
                "policy": "human",
                "partners": ", ".join(k for s, k in self.kinds.items() if s not in self.humans),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.started)),
            },
        }


def outcome_line(section: type[GameSection], summary: dict[str, Any]) -> str:
    """How the episode ended, in one line for a person: success or not (for games whose summary
    says), then the game's efficiency column, e.g. "Success: steps 23." or "Final score 40."."""
    column = f"{section.efficiency_metric} {summary[section.efficiency_metric]}"
    if "success" not in summary:
        return f"Final {column}."
    if summary["success"]:
        return f"Success: {column}."
    return f"Not finished ({summary.get('outcome', 'time up')}): {column}."


class SeatPlayers:
    """Builds the non-human players of a recipe for each new episode.

    LLM players are built once (their engine loads a model) and copied per episode with the new
    game: a copy shares the engine, and a per-engine lock keeps one generation at a time on it.
    Scripted players are cheap and stateful, so each episode gets fresh ones.
    """

    def __init__(self, recipe: Recipe) -> None:
        from collabrl.factory import make_game, make_player

        self.recipe = recipe
        specs = dict(zip(recipe.game.seats, recipe.players, strict=True))
        self.humans = [s for s, p in specs.items() if p.kind == "human"]
        if not self.humans:
            raise CollabrlError(
                "the recipe has no human seat: set one of players.N.kind=human "
                "(e.g. collabrl serve household_human)"
            )
        self.specs = {s: p for s, p in specs.items() if p.kind != "human"}
        self.kinds = {s: player_label(p) for s, p in specs.items()}
        prototype = make_game(recipe.game)
        self._llm: dict[str, tuple[LLMPlayer, threading.Lock]] = {}
        for seat, spec in self.specs.items():
            if spec.kind == "llm":
                player = make_player(spec, recipe.game, prototype, recipe.seed)
                assert isinstance(player, LLMPlayer), "an llm seat is played by an LLMPlayer"
                self._llm[seat] = (player, threading.Lock())

    def build(self, game: Game, seed: int) -> dict[str, Player]:
        """Players for the non-human seats of a new episode of ``game``."""
        from collabrl.factory import make_player

        players: dict[str, Player] = {}
        for seat, spec in self.specs.items():
            if seat in self._llm:
                players[seat] = _SharedEngine(*self._llm[seat], game)
            else:
                players[seat] = make_player(spec, self.recipe.game, game, seed)
        return players


class _SharedEngine(LLMPlayer):
    """A copy of an LLM player for another game; its engine calls run one at a time, since
    sessions share the engine."""

    def __init__(self, template: LLMPlayer, guard: threading.Lock, game: Game) -> None:
        self.__dict__.update(template.__dict__)
        self.game, self.guard, self.calls = game, guard, []

    def act(self, obs: Observation) -> str:
        with self.guard:
            return super().act(obs)
