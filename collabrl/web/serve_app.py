"""``collabrl serve``: the ASGI app where people play the human seats of a recipe.

Routes (all but the static files need the run's token); the messages of the seat socket are the
human-seat protocol (``docs/human-seat-protocol.md``, version :data:`PROTOCOL`):
- ``GET /``: a page with a button that starts a new episode (fetching the printed URL, a link
  preview or a reload starts nothing);
- ``POST /``: start a new episode and go to its first human seat's page;
- ``POST /api/sessions``: start a new episode, answer its seat URLs as JSON (scripted clients);
- ``GET /play/{sid}/{seat}``: the seat's page (a reload comes back to the same episode);
- ``WS /ws/{sid}/{seat}``: pushes the seat's state on every change, takes its decisions.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from collabrl.config import Recipe
from collabrl.web.recording import Recorder
from collabrl.web.security import HostAndOrigin, RateLimit, SecurityHeaders, has_token
from collabrl.web.session import PROTOCOL, DecisionError, SeatPlayers, Session

STATIC = resources.files("collabrl.web") / "static"
# the error codes of the seat socket (docs/human-seat-protocol.md); "rate" is worth a retry
REFUSALS = (
    "not-json",
    "too-large",
    "unknown-request",
    "rate",
    "bad-fields",
    "stale",
    "duplicate",
    "refused",
)
MAX_FRAME_CHARS = 8_192  # a decision frame is a few hundred characters (messages: 500 at most)
MAX_NUMBER_DIGITS = 20  # a tick has a handful
COMPACT = (",", ":")  # JSON separators without spaces: states are read by programs, not people


@dataclass
class Limits:
    """Per-connection decision rate and per-server episode starts (both token buckets)."""

    decisions_per_s: float = 20.0
    decision_burst: int = 20
    episodes_per_s: float = 1.0
    episode_burst: int = 30


@dataclass
class Sessions:
    """Every episode this server started, by id; finished ones are recorded once."""

    recipe: Recipe
    seats: SeatPlayers
    recorder: Recorder
    limits: Limits
    by_id: dict[str, Session] = field(default_factory=dict)
    started: int = 0

    def __post_init__(self) -> None:
        self.starts = RateLimit(self.limits.episodes_per_s, self.limits.episode_burst)
        self.partner_profile = _partner_profile(self.recipe)

    async def new(self) -> Session:
        from collabrl.factory import make_game

        game = make_game(self.recipe.game)
        seed = self.recipe.seed + self.started
        self.started += 1
        session = Session(
            sid=secrets.token_urlsafe(9),
            game=game,
            players=self.seats.build(game, seed),
            humans=self.seats.humans,
            seed=seed,
            kinds=self.seats.kinds,
            on_finish=lambda s: self.recorder.append(s.record(self.partner_profile)),
        )
        self.by_id[session.sid] = session
        await session.start()
        return session


def _partner_profile(recipe: Recipe):
    """The profile of the first non-human seat that has one (the record's ``profile``)."""
    from collabrl.profiles import get_profile

    ids = [p.profile for p in recipe.players if p.kind != "human" and p.profile]
    return get_profile(ids[0]) if ids else None


def _closing(recorder: Recorder):
    """A lifespan that waits for the recorder's last HF copy when the server stops."""

    @asynccontextmanager
    async def lifespan(app):
        yield
        recorder.close()

    return lifespan


def seat_path(session: Session, seat: str, token: str) -> str:
    return f"/play/{session.sid}/{quote(seat, safe='')}?token={token}"


def make_serve_app(recipe: Recipe, out: Path, token: str, limits: Limits | None = None):
    """The app for ``recipe``; finished episodes are recorded under ``out``."""
    sessions = Sessions(recipe, SeatPlayers(recipe), Recorder(out), limits or Limits())

    def refuse() -> Response:
        return Response("missing or wrong token: open the URL the server printed\n", 403)

    async def start_episode(request: Request) -> Session | Response:
        if not has_token(request, token):
            return refuse()
        if not sessions.starts.allow():
            return Response("too many new episodes; wait a moment\n", 429)
        return await sessions.new()

    async def index(request: Request) -> Response:
        if not has_token(request, token):
            return refuse()
        return HTMLResponse((STATIC / "start.html").read_text(encoding="utf-8"))

    async def begin(request: Request) -> Response:
        session = await start_episode(request)
        if isinstance(session, Response):
            return session
        return RedirectResponse(seat_path(session, session.humans[0], token), 303)

    async def create(request: Request) -> Response:
        session = await start_episode(request)
        if isinstance(session, Response):
            return session
        paths = {seat: seat_path(session, seat, token) for seat in session.humans}
        return JSONResponse({"protocol": PROTOCOL, "session": session.sid, "seats": paths})

    async def page(request: Request) -> Response:
        if not has_token(request, token):
            return refuse()
        session = sessions.by_id.get(request.path_params["sid"])
        if session is None or request.path_params["seat"] not in session.humans:
            return Response("no such episode or seat on this server\n", 404)
        return HTMLResponse((STATIC / "play.html").read_text(encoding="utf-8"))

    async def socket(ws: WebSocket) -> None:
        session = sessions.by_id.get(ws.path_params["sid"])
        seat = ws.path_params["seat"]
        if not has_token(ws, token) or session is None or seat not in session.humans:
            await ws.close(code=1008)
            return
        await ws.accept()
        limit = RateLimit(sessions.limits.decisions_per_s, sessions.limits.decision_burst)
        await serve_seat(ws, session, seat, limit)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/", begin, methods=["POST"]),
            Route("/api/sessions", create, methods=["POST"]),
            Route("/play/{sid}/{seat}", page),
            WebSocketRoute("/ws/{sid}/{seat}", socket),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders), Middleware(HostAndOrigin)],
        lifespan=_closing(sessions.recorder),
    )
    app.state.sessions = sessions
    return app


async def serve_seat(
    ws: WebSocket,
    session: Session,
    seat: str,
    limit: RateLimit,
    decide: Callable[[str, str, object], Awaitable[None]] | None = None,
) -> None:
    """Push the seat's state on every change and take its decisions, until the page goes: the
    episode's setup (:meth:`Session.setup`) in the first state and whenever it changes, the
    board's frames and the chat's messages once each.

    ``decide(action, message, tick)`` takes a decision (default: ``session.decide`` for
    ``seat``, which checks ``tick`` again under the session's lock; a study routes it through its
    runtime, which records the event first)."""
    decide = decide or partial(session.decide, seat)
    send_lock = asyncio.Lock()

    async def send(payload: dict) -> None:
        async with send_lock:
            await ws.send_text(json.dumps(payload, separators=COMPACT))

    def changed_since(version: int) -> bool:
        return session.version != version

    async def push() -> None:
        # a (re)connected page gets the episode's setup, the last frame and the whole chat;
        # later states the frames and messages since, and the setup only if it changed
        seen, cursor, said, told = -1, max(0, len(session.frames) - 1), 0, None
        while True:
            async with session.changed:
                await session.changed.wait_for(partial(changed_since, seen))
                seen = session.version
            state, setup = session.view(seat, cursor, said), session.setup(seat)
            if setup is not told:
                state.update(setup)
                told = setup
            await send(state)
            if state["your_turn"]:
                session.mark_shown(seat)
            cursor, said = state.get("frame_count", 0), state["chat_count"]

    async def take() -> None:
        while True:
            data = read_frame(await ws.receive())
            if "refusal" in data:
                await send(data["refusal"])
                continue
            if not limit.allow():
                await send(refusal("rate", "too many decisions; slow down"))
                continue
            try:
                session.check_tick(seat, data["tick"])
                session.check_usable(seat, data["action"], data["message"])
                await decide(data["action"], data["message"], data["tick"])
            except DecisionError as exc:
                await send(refusal(exc.code, str(exc)))

    await run_both(push, take)


def read_frame(message: Message) -> dict[str, Any]:
    """A seat socket's frame as ``{action, message, tick}``, or ``{refusal}`` saying why not
    (the limits of :func:`json_frame` first)."""
    parsed = json_frame(message, MAX_FRAME_CHARS, MAX_NUMBER_DIGITS)
    if "refusal" in parsed:
        return parsed
    data = parsed["data"]
    if not isinstance(data, dict) or data.get("type") != "decide":
        return {"refusal": refusal("unknown-request", "unknown request")}
    action, said, tick = data.get("action"), data.get("message", ""), data.get("tick")
    if not isinstance(action, str) or not isinstance(said, str):
        return {"refusal": refusal("bad-fields", "action and message must be text")}
    if tick is not None and (type(tick) is not int):
        return {
            "refusal": refusal("bad-fields", "tick must be the observation's tick (an integer)")
        }
    return {"action": action, "message": said, "tick": tick}


def json_frame(message: Message, max_chars: int, max_digits: int) -> dict[str, Any]:
    """A text frame's JSON as ``{data}``, or ``{refusal}`` saying why not.

    Limits come before parsing, so no frame can cost more than reading it: a frame of more than
    ``max_chars`` characters, a binary frame, JSON nested too deep or a number of more than
    ``max_digits`` digits is refused (the socket answers with an error frame and stays open).
    Every socket a page talks to reads its frames here."""
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        return {"refusal": refusal("not-json", "binary frames are not part of the protocol")}
    if len(text) > max_chars:
        return {"refusal": refusal("too-large", f"a frame holds at most {max_chars} characters")}
    bounded = partial(_bounded_number, max_digits)
    try:
        data = json.loads(text, parse_int=bounded(int), parse_float=bounded(float))
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError; so is a long number
        return {
            "refusal": refusal("not-json", "not a JSON message (or nested or numbered too deeply)")
        }
    return {"data": data}


def _bounded_number(max_digits: int, kind: type) -> Callable[[str], Any]:
    """A JSON number parser of ``kind`` that refuses literals longer than ``max_digits``."""

    def parse(digits: str) -> Any:
        if len(digits) > max_digits:
            raise ValueError("number too long")
        return kind(digits)

    return parse


def refusal(code: str, message: str) -> dict[str, str]:
    """An error message of the human-seat protocol: ``code`` for programs (one of
    :data:`REFUSALS`), ``message`` for people."""
    assert code in REFUSALS, code
    return {"type": "error", "code": code, "message": message}


async def run_both(
    push: Callable[[], Coroutine[Any, Any, None]], take: Callable[[], Coroutine[Any, Any, None]]
) -> None:
    """Run a socket's push and take loops until either ends (the page went away)."""
    tasks = [asyncio.create_task(push()), asyncio.create_task(take())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            exc = task.exception()
            if exc is not None and not isinstance(exc, WebSocketDisconnect | RuntimeError):
                raise exc
    finally:
        for task in tasks:
            task.cancel()
