"""``collabrl view``: the ASGI app that browses trajectories (token-protected like serve).

``GET /`` the page; ``GET /api/episodes`` the list; ``GET /api/episodes/{n}`` one episode with
its turns and, for the kitchen, its frames (recorded, or replayed from seed and every seat's
turns when the record allows it).
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from collabrl.errors import CollabrlError
from collabrl.web.frames import kitchen_layout, replay_frames
from collabrl.web.security import SecurityHeaders, has_token
from collabrl.web.serve_app import STATIC
from collabrl.web.trajectories import Library


def kitchen_drawing(record: dict) -> dict:
    """``{"kitchen": layout, "frames": [...]}`` for a kitchen record, or a note why not."""
    from collabrl.envs.kitchen.game import KitchenGame

    summary = record.get("summary") or {}
    seats = sorted({t["seat"] for t in record.get("turns", [])}, key=str)
    if record.get("players"):
        seats = list(record["players"])
    try:
        game = KitchenGame(
            summary["layout"],
            seats=seats or None,
            horizon=int(summary["horizon"]),
            cook_mode=summary.get("cook_mode", "auto"),
            motion=summary.get("motion", "reference"),
        )
        frames = record.get("frames") or replay_frames(game, int(summary["seed"]), record["turns"])
    except (KeyError, ValueError, TypeError) as exc:
        return {"replay_note": f"no tick-by-tick replay: {exc}"}
    return {"kitchen": kitchen_layout(game), "frames": frames}


def make_view_app(root: Path, token: str) -> Starlette:
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
            return JSONResponse({"episodes": library.listing()})
        except CollabrlError as exc:
            return JSONResponse({"episodes": [], "error": str(exc)})

    async def episode(request: Request) -> Response:
        if not allowed(request):
            return Response("missing or wrong token\n", 403)
        try:
            record = dict(library.episode(int(request.path_params["n"])))
        except (KeyError, ValueError):
            return Response("no such episode\n", 404)
        if record.get("game") == "kitchen":
            record.update(kitchen_drawing(record))
        return JSONResponse(record)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/episodes", listing),
            Route("/api/episodes/{n:int}", episode),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders)],
    )
