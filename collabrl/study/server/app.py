"""``collabrl study serve``: the study's pages, its game seats and its admin page (Starlette).

Routes:
- ``GET /join?key=K[&declared fields]``: a new participant; redirects to their page. ``K`` is the
  study's join key (kept in the database, so the recruitment link survives restarts);
- ``POST /api/join?key=K``: the same for scripted clients (JSON: token, page and socket paths);
- ``GET /s?token=T``: the participant's page; ``WS /study/ws?token=T`` pushes it on every
  change and takes what it submits. ``T`` is the participant's own token (resume: open the same
  URL again, after a reload or a server restart);
- ``GET /play/{sid}/{seat}?token=T`` and ``WS /ws/{sid}/{seat}?token=T``: the game, embedded in
  the study page: collabrl serve's play page, reused as is, for the seat ``T`` plays now;
- ``GET /media/{path}``: a file of the ``media/`` folder next to the study file (images and
  video on pages; nothing outside that folder); ``GET /components/{name}.js``: a custom
  component's page script;
- ``GET /admin?token=A`` and ``GET /admin/api/state?token=A``: the live admin view (a separate
  token: ``COLLABRL_ADMIN_TOKEN`` if set, so it stays the same across restarts, else a new one
  printed at each start; never stored).

With ``base_path`` (``/study1``) every route lives under it, for a reverse proxy that forwards
``lab.org/study1/...`` with the path as is; the pages only use URLs relative to themselves and
the server's redirects carry the prefix, so nothing points outside it.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from collabrl.study.live.runtime import JoinRefused, StoragePaused, StudyRuntime
from collabrl.study.server.admin import admin_state
from collabrl.study.spec.compile import study_folder
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.media import media_file
from collabrl.study.store.db import PAUSED, StorageFault
from collabrl.web.security import (
    HEADERS,
    HostAndOrigin,
    RateLimit,
    SecurityHeaders,
    content_security_policy,
    has_token,
)
from collabrl.web.serve_app import run_both, serve_seat

WEB_STATIC = resources.files("collabrl.web") / "static"
STUDY_STATIC = resources.files("collabrl.study.server") / "static"
# collabrl serve's policy, except that the study page frames the game page (same origin only)
STUDY_HEADERS = {
    **HEADERS,
    "content-security-policy": content_security_policy(frames_own_pages=True, media=True),
}


@dataclass
class Limits:
    """Token buckets: joins per server, submissions and decisions per connection."""

    joins_per_s: float = 5.0
    join_burst: int = 100
    actions_per_s: float = 20.0
    action_burst: int = 20


def make_study_app(
    rt: StudyRuntime, admin_token: str, limits: Limits | None = None, base_path: str = ""
):
    """The app serving ``rt``'s study, under ``base_path`` ("" or ``/a/b``, no trailing /)."""
    limits = limits or Limits()
    join_key = rt.db.meta()["join_key"]
    folder = study_folder(rt.loaded)
    joins = RateLimit(limits.joins_per_s, limits.join_burst)

    def page_file(folder, name: str) -> HTMLResponse:
        return HTMLResponse((folder / name).read_text(encoding="utf-8"))

    async def new_participant(request: Request) -> tuple[str, str] | Response:
        if not has_token(request, join_key, name="key"):
            return Response("this is not a valid link to the study\n", 403)
        if not joins.allow():
            return Response("too many people are joining right now; try again in a moment\n", 429)
        query = {k: v for k, v in request.query_params.items() if k != "key"}
        try:
            joined = await rt.join("human", query)
            await rt.db.synced()  # on disk before the participant is given their link
            return joined
        except JoinRefused as exc:
            return Response(f"{exc}\n", exc.status)
        except StorageFault:  # nothing of the join was stored; the admin page shows the fault
            return Response("the study cannot take new participants right now\n", 503)

    def spread(request: Request, route: str) -> Response | None:
        """With several workers: the join sent, in turn, to each one (None: this one takes
        it). 307 keeps the method, so a scripted POST is posted there again."""
        if rt.worker is None or not has_token(request, join_key, name="key"):
            return None  # a wrong link is refused here, by new_participant
        target = rt.worker.join_target()
        if target is None:
            return None
        return RedirectResponse(f"{target}{route}?{request.url.query}", 307)

    def elsewhere(pid: str) -> str | None:
        """The address of the worker that serves ``pid``, when it is another one."""
        worker = rt.worker
        if worker is None or (pid in rt.people and pid not in worker.gone):
            return None
        url = worker.home_url(pid)
        return None if url == worker.url else url

    async def join(request: Request) -> Response:
        joined = spread(request, "/join") or await new_participant(request)
        if isinstance(joined, Response):
            return joined
        return RedirectResponse(f"{_root(request)}/s?token={joined[1]}", 303)

    async def api_join(request: Request) -> Response:
        joined = spread(request, "/api/join") or await new_participant(request)
        if isinstance(joined, Response):
            return joined
        pid, token = joined
        root = _root(request)
        return JSONResponse(
            {
                "participant": pid,
                "token": token,
                "page": f"{root}/s?token={token}",
                "socket": f"{root}/study/ws?token={token}",
            }
        )

    def participant_of(conn: HTTPConnection) -> str | None:
        return rt.participant(conn.query_params.get("token", ""))

    async def study_page(request: Request) -> Response:
        pid = participant_of(request)
        if pid is None:
            return Response("unknown participant link\n", 404)
        if home := elsewhere(pid):
            return RedirectResponse(f"{home}/s?{request.url.query}", 303)
        return page_file(STUDY_STATIC, "study.html")

    async def play_page(request: Request) -> Response:
        pid = participant_of(request)
        sid, seat = request.path_params["sid"], request.path_params["seat"]
        if pid is None or rt.seat_session(pid, sid, seat) is None:
            return Response("no such game for this participant now\n", 404)
        return page_file(WEB_STATIC, "play.html")

    async def study_socket(ws: WebSocket) -> None:
        pid = participant_of(ws)
        if pid is None:
            await ws.close(code=1008)
            return
        await ws.accept()
        if home := elsewhere(pid):
            await ws.send_text(json.dumps(moved(home)))
            await ws.close()
            return
        await _connected(rt, pid, "page", _serve_page(ws, rt, pid, limits))

    async def game_socket(ws: WebSocket) -> None:
        pid = participant_of(ws)
        sid, seat = ws.path_params["sid"], ws.path_params["seat"]
        session = rt.seat_session(pid, sid, seat) if pid is not None else None
        if pid is None or session is None:
            await ws.close(code=1008)
            return
        await ws.accept()
        await _connected(rt, pid, "game", _serve_game(ws, rt, pid, session, seat, limits))

    async def media(request: Request) -> Response:
        """A file of the study's media folder (:func:`collabrl.study.spec.media.media_file` refuses
        any path outside it)."""
        path = media_file(folder, request.path_params["path"])
        if path is None:
            return Response("no such media file\n", 404)
        return FileResponse(path)

    async def component_script(request: Request) -> Response:
        component = rt.compiled.components.get(request.path_params["name"])
        if component is None:
            return Response("no such component\n", 404)
        return FileResponse(component.script, media_type="text/javascript")

    async def admin_page(request: Request) -> Response:
        if not has_token(request, admin_token):
            return Response("wrong admin token\n", 403)
        return page_file(STUDY_STATIC, "admin.html")

    async def admin_api(request: Request) -> Response:
        if not has_token(request, admin_token):
            return Response("wrong admin token\n", 403)
        return JSONResponse(admin_state(rt))

    @asynccontextmanager
    async def lifespan(app):
        await rt.recover()
        yield
        rt.shutdown()

    routes = [
        Route("/join", join),
        Route("/api/join", api_join, methods=["POST"]),
        Route("/s", study_page),
        WebSocketRoute("/study/ws", study_socket),
        Route("/play/{sid}/{seat}", play_page),
        WebSocketRoute("/ws/{sid}/{seat}", game_socket),
        Route("/media/{path:path}", media),
        Route("/components/{name}.js", component_script),
        Route("/admin", admin_page),
        Route("/admin/api/state", admin_api),
        Mount("/static", StaticFiles(directory=str(WEB_STATIC)), name="static"),
        Mount("/study-static", StaticFiles(directory=str(STUDY_STATIC)), name="study-static"),
    ]
    app = Starlette(
        routes=[Mount(base_path, routes=routes)] if base_path else routes,
        middleware=[Middleware(SecurityHeaders, headers=STUDY_HEADERS), Middleware(HostAndOrigin)],
        lifespan=lifespan,
    )
    app.state.runtime = rt
    app.state.join_key = join_key
    return app


def moved(base: str) -> dict[str, str]:
    """What a page is told when another worker serves its participant now: reload from
    ``base`` (that worker's address, with the path prefix)."""
    return {"type": "moved", "base": base}


def _root(request: Request) -> str:
    """The path prefix the app is mounted under ("" at the root)."""
    return request.scope.get("root_path", "").rstrip("/")


def check_base_path(path: str) -> str:
    """``path`` as a mount prefix (``/study1``); raises ValueError (one line) for one that is
    not a plain path."""
    path = "/" + path.strip("/") if path.strip("/") else ""
    if path and not all(
        part and part.replace("-", "").replace("_", "").replace(".", "").isalnum()
        for part in path[1:].split("/")
    ):
        raise ValueError(f"--base-path {path!r}: use letters, digits, - _ . and / (e.g. /study1)")
    return path


async def _connected(rt: StudyRuntime, pid: str, socket: str, serve) -> None:
    """Run ``serve`` with connect and disconnect recorded as events."""
    rt.connected[pid] += 1
    rt.note("connect", pid=pid, node=rt.node(pid), socket=socket)
    try:
        await serve
    finally:
        rt.connected[pid] -= 1
        rt.note("disconnect", pid=pid, node=rt.node(pid), socket=socket)


async def _receive(ws: WebSocket, send, limit: RateLimit) -> dict[str, Any] | None:
    """The next well-formed, allowed request of the socket (None: told the page why not)."""
    try:
        data = json.loads(await ws.receive_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        await send({"type": "error", "message": "not a JSON message"})
        return None
    if not isinstance(data, dict):
        await send({"type": "error", "message": "unknown request"})
        return None
    if not limit.allow():
        await send({"type": "error", "message": "too many requests; slow down"})
        return None
    return data


async def _serve_page(ws: WebSocket, rt: StudyRuntime, pid: str, limits: Limits) -> None:
    """Push the participant's page on every change; take what the page submits."""
    lock = asyncio.Lock()
    limit = RateLimit(limits.actions_per_s, limits.action_burst)

    async def send(payload: dict) -> None:
        async with lock:
            await ws.send_text(json.dumps(payload))

    async def push() -> None:
        shown = None
        while True:
            if rt.worker is not None and pid in rt.worker.gone:  # grouped by another worker
                await send(moved(rt.worker.gone[pid]))
                return
            seen = rt.notifier.version(pid)
            view = rt.view(pid)
            try:
                await rt.db.synced()  # what the page shows is on disk
            except StorageFault:  # on the admin page; the page waits for the next change
                await send({"type": "error", "code": "storage", "message": PAUSED})
                await rt.wait(pid, seen)
                continue
            if view["node"] != shown:
                rt.note("page_view", pid=pid, node=view["node"])
                shown = view["node"]
            await send(view)
            await rt.wait(pid, seen)

    async def take() -> None:
        while True:
            data = await _receive(ws, send, limit)
            if data is None:
                continue
            if data.get("type") != "submit":
                await send({"type": "error", "message": "unknown request"})
                continue
            try:
                await rt.submit(pid, data)
            except StoragePaused as exc:  # not the participant's mistake: programs can tell
                await send({"type": "error", "code": exc.code, "message": str(exc)})
            except FormError as exc:  # a stale document save also carries the current text
                extra = getattr(exc, "extra", {})
                code = {"code": exc.code} if hasattr(exc, "code") else {}
                await send(
                    {"type": "error", "message": str(exc), "problems": exc.problems} | code | extra
                )

    await run_both(push, take)


async def _serve_game(ws, rt: StudyRuntime, pid: str, session, seat: str, limits: Limits) -> None:
    """collabrl serve's seat protocol, with decisions recorded through the study runtime."""
    limit = RateLimit(limits.actions_per_s, limits.action_burst)

    async def decide(action: str, message: str, tick: object = None) -> None:
        await rt.decide(pid, action, message, session.sid, tick)

    await serve_seat(ws, session, seat, limit, decide)
