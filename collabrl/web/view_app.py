"""``collabrl view``: the ASGI app that browses trajectories (token-protected like serve).

``GET /`` the page; ``GET /api/episodes`` the list; ``GET /api/episodes/{n}`` one episode with
its turns and, for a game with a board, its frames (recorded, or replayed from seed and every
seat's turns when the record allows it). With a ratings store (``--rate``), the rating page of
:mod:`collabrl.web.rate_app` too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from collabrl.envs.registry import GameSection, registered_games
from collabrl.errors import CollabrlError
from collabrl.web.frames import board_of, drawing, replay_frames
from collabrl.web.security import HostAndOrigin, SecurityHeaders, has_token
from collabrl.web.serve_app import STATIC
from collabrl.web.trajectories import Library, efficiency_metric

if TYPE_CHECKING:
    from collabrl.eval.ratings import RatingStore


def board_replay(record: dict) -> dict:
    """``{"board": {kind, layout}, "frames": [...]}`` for a record of a game with a board (its
    frames as recorded, or replayed from seed and every seat's turns), a note when it cannot be
    drawn, or nothing for a game without a board (or one not installed here)."""
    section = registered_games().get(record.get("game") or "")
    board = board_of(section) if section is not None else None
    if section is None or board is None or not replayable(section):
        return {}
    try:
        game = section.from_summary(record["summary"]).make_game()
        frames = record.get("frames") or replay_frames(
            game, board, int(record["seed"]), record["turns"]
        )
    except (CollabrlError, KeyError, ValueError, TypeError) as exc:
        return {"replay_note": f"no tick-by-tick replay: {exc}"}
    return {"board": drawing(board, game), "frames": frames}


def replayable(section: type[GameSection]) -> bool:
    """Whether the game's records can be drawn in the viewer: its section rebuilds the game from
    a summary (a board drawn only live cannot)."""
    return section.from_summary.__func__ is not GameSection.from_summary.__func__  # type: ignore[attr-defined]


def make_view_app(root: Path, token: str, ratings: RatingStore | None = None) -> Starlette:
    library = Library(root)

    def allowed(request: Request) -> bool:
        return has_token(request, token)

    async def index(request: Request) -> Response:
        if not allowed(request):
            return Response("missing or wrong token\n", 403)
        return HTMLResponse((STATIC / "view.html").read_text(encoding="utf-8"))

    async def listing(request: Request) -> Response:
        if not allowed(request):
            return Response("missing or wrong token\n", 403)
        try:
            rows, warnings = library.listing()
        except CollabrlError as exc:
            return JSONResponse({"episodes": [], "warnings": [], "error": str(exc)})
        return JSONResponse({"episodes": rows, "warnings": warnings})

    async def episode(request: Request) -> Response:
        if not allowed(request):
            return Response("missing or wrong token\n", 403)
        try:
            record = dict(library.episode(int(request.path_params["n"])))
        except (KeyError, ValueError):
            return Response("no such episode\n", 404)
        record.update(board_replay(record))
        record["efficiency_metric"] = efficiency_metric(record.get("game"))
        return JSONResponse(record)

    rating: list[Route] = []
    if ratings is not None:
        from collabrl.web.rate_app import rating_routes

        rating = rating_routes(library, ratings, token)
    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/episodes", listing),
            Route("/api/episodes/{n:int}", episode),
            *rating,
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders), Middleware(HostAndOrigin)],
    )
