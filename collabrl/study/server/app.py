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
  component's page script; ``GET /embed/{page}``: a sandboxed component's page (an embed
  page's HTML with collabrl's postMessage API, under its own content security policy);
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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

from collabrl.study.live.interventions import (
    InterventionRefused,
    advance,
    joins_paused,
    pause_joins,
    release,
)
from collabrl.study.live.runtime import JoinRefused, StoragePaused, StudyRuntime
from collabrl.study.server.admin import admin_state
from collabrl.study.spec.compile import study_folder
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.media import media_file
from collabrl.study.spec.sandbox import EMBED_POLICY, embed_html
from collabrl.study.spec.schema import EmbedPage
from collabrl.study.store.db import PAUSED, StorageFault
from collabrl.web.security import (
    HEADERS,
    HostAndOrigin,
    RateLimit,
    SecurityHeaders,
    content_security_policy,
    has_token,
)
from collabrl.web.serve_app import json_frame, refusal, run_both, serve_seat

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

WEB_STATIC = resources.files("collabrl.web") / "static"
STUDY_STATIC = resources.files("collabrl.study.server") / "static"
MAX_PAGE_FRAME_CHARS = 1_000_000  # the longest page submission: a 100,000-character document
MAX_PAGE_NUMBER_DIGITS = 40  # a number a page sends, as JavaScript writes the longest double
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


@dataclass
class StudyServer:
    """What the routes share: the runtime, the study's join key and folder, the admin token and
    the rate limits (the app holds it as ``app.state.server``)."""

    rt: StudyRuntime
    admin_token: str
    join_key: str
    folder: Path | None  # the study file's folder (media, components); None: a shipped study
    limits: Limits
    joins: RateLimit

    def elsewhere(self, pid: str) -> str | None:
        """The address of the worker that serves ``pid``, when it is another one."""
        worker = self.rt.worker
        if worker is None or (pid in self.rt.people and pid not in worker.gone):
            return None
        url = worker.home_url(pid)
        return None if url == worker.url else url

    def spread(self, request: Request, route: str) -> Response | None:
        """With several workers: the join sent, in turn, to each one (None: this one takes
        it). 307 keeps the method, so a scripted POST is posted there again."""
        if self.rt.worker is None or not has_token(request, self.join_key, name="key"):
            return None  # a wrong link is refused here, by new_participant
        target = self.rt.worker.join_target()
        if target is None:
            return None
        return RedirectResponse(f"{target}{route}?{request.url.query}", 307)

    async def new_participant(self, request: Request) -> tuple[str, str] | Response:
        """A participant from the study link (participant id, token), or the refusal."""
        if not has_token(request, self.join_key, name="key"):
            return Response("this is not a valid link to the study\n", 403)
        if not self.joins.allow():
            return Response("too many people are joining right now; try again in a moment\n", 429)
        if joins_paused(self.rt):
            return Response("the study is not taking new participants right now\n", 503)
        query = {k: v for k, v in request.query_params.items() if k != "key"}
        try:
            joined = await self.rt.join("human", query)
            await self.rt.db.synced()  # on disk before the participant is given their link
            return joined
        except JoinRefused as exc:
            return Response(f"{exc}\n", exc.status)
        except StorageFault:  # nothing of the join was stored; the admin page shows the fault
            return Response("the study cannot take new participants right now\n", 503)

    async def joined(self, request: Request, route: str) -> tuple[str, str] | Response:
        """The join at ``route``: sent to another worker, refused, or (pid, token) here."""
        return self.spread(request, route) or await self.new_participant(request)

    def participant_of(self, conn: HTTPConnection) -> str | None:
        return self.rt.participant(conn.query_params.get("token", ""))


def make_study_app(
    rt: StudyRuntime, admin_token: str, limits: Limits | None = None, base_path: str = ""
) -> Starlette:
    """The app serving ``rt``'s study, under ``base_path`` ("" or ``/a/b``, no trailing /)."""
    limits = limits or Limits()
    server = StudyServer(
        rt=rt,
        admin_token=admin_token,
        join_key=rt.db.meta()["join_key"],
        folder=study_folder(rt.loaded),
        limits=limits,
        joins=RateLimit(limits.joins_per_s, limits.join_burst),
    )
    app = Starlette(
        routes=[Mount(base_path, routes=ROUTES)] if base_path else ROUTES,
        middleware=[Middleware(SecurityHeaders, headers=STUDY_HEADERS), Middleware(HostAndOrigin)],
        lifespan=_lifespan,
    )
    app.state.server = server
    app.state.runtime = rt
    app.state.join_key = server.join_key
    return app


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    rt = app.state.server.rt
    await rt.recover()
    yield
    rt.shutdown()


def _server(conn: HTTPConnection) -> StudyServer:
    return conn.app.state.server


def _page_file(folder: Traversable, name: str) -> HTMLResponse:
    return HTMLResponse((folder / name).read_text(encoding="utf-8"))


async def join(request: Request) -> Response:
    """``GET /join``: a new participant, sent on to their page."""
    joined = await _server(request).joined(request, "/join")
    if isinstance(joined, Response):
        return joined
    return RedirectResponse(f"{_root(request)}/s?token={joined[1]}", 303)


async def api_join(request: Request) -> Response:
    """``POST /api/join``: a new participant for a scripted client (token, page and socket)."""
    joined = await _server(request).joined(request, "/api/join")
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


async def study_page(request: Request) -> Response:
    """``GET /s``: the participant's page (or a redirect to the worker that serves them)."""
    server = _server(request)
    pid = server.participant_of(request)
    if pid is None:
        return Response("unknown participant link\n", 404)
    if home := server.elsewhere(pid):
        return RedirectResponse(f"{home}/s?{request.url.query}", 303)
    return _page_file(STUDY_STATIC, "study.html")


async def play_page(request: Request) -> Response:
    """``GET /play/{sid}/{seat}``: collabrl serve's play page, for the seat the participant
    plays now."""
    server = _server(request)
    pid = server.participant_of(request)
    sid, seat = request.path_params["sid"], request.path_params["seat"]
    if pid is None or server.rt.seat_session(pid, sid, seat) is None:
        return Response("no such game for this participant now\n", 404)
    return _page_file(WEB_STATIC, "play.html")


async def study_socket(ws: WebSocket) -> None:
    """``WS /study/ws``: the participant's page pushed on every change, and what it submits."""
    server = _server(ws)
    pid = server.participant_of(ws)
    if pid is None:
        await ws.close(code=1008)
        return
    await ws.accept()
    if home := server.elsewhere(pid):
        await ws.send_text(json.dumps(moved(home)))
        await ws.close()
        return
    await _connected(server.rt, pid, "page", _serve_page(ws, server.rt, pid, server.limits))


async def game_socket(ws: WebSocket) -> None:
    """``WS /ws/{sid}/{seat}``: the game seat the participant plays now."""
    server = _server(ws)
    rt, pid = server.rt, server.participant_of(ws)
    sid, seat = ws.path_params["sid"], ws.path_params["seat"]
    session = rt.seat_session(pid, sid, seat) if pid is not None else None
    if pid is None or session is None:
        await ws.close(code=1008)
        return
    await ws.accept()
    await _connected(rt, pid, "game", _serve_game(ws, rt, pid, session, seat, server.limits))


async def media(request: Request) -> Response:
    """A file of the study's media folder (:func:`collabrl.study.spec.media.media_file` refuses
    any path outside it)."""
    path = media_file(_server(request).folder, request.path_params["path"])
    if path is None:
        return Response("no such media file\n", 404)
    return FileResponse(path)


async def component_script(request: Request) -> Response:
    """``GET /components/{name}.js``: a custom component's page script."""
    component = _server(request).rt.compiled.components.get(request.path_params["name"])
    if component is None:
        return Response("no such component\n", 404)
    return FileResponse(component.script, media_type="text/javascript")


async def embed_page(request: Request) -> Response:
    """``GET /embed/{page}``: a sandboxed component's page (:mod:`collabrl.study.spec.sandbox`),
    with its own content security policy."""
    server = _server(request)
    page = next((p for p in server.rt.study.pages if p.id == request.path_params["page"]), None)
    if not isinstance(page, EmbedPage):
        return Response("no such component page\n", 404)
    html = embed_html(page, server.folder)
    return HTMLResponse(html, headers={"content-security-policy": EMBED_POLICY})


async def admin_page(request: Request) -> Response:
    """``GET /admin``: the live admin view (its own token)."""
    if not has_token(request, _server(request).admin_token):
        return Response("wrong admin token\n", 403)
    return _page_file(STUDY_STATIC, "admin.html")


async def admin_api(request: Request) -> Response:
    """``GET /admin/api/state``: what the admin view shows, as JSON."""
    server = _server(request)
    if not has_token(request, server.admin_token):
        return Response("wrong admin token\n", 403)
    return JSONResponse(admin_state(server.rt))


async def admin_intervene(request: Request) -> Response:
    """``POST /admin/api/{advance,release,joins}``: an intervention, audited in the event log
    (``participant=PID``; release: ``to=END_PAGE``; joins: ``paused=1`` or ``0``)."""
    server = _server(request)
    if not has_token(request, server.admin_token):
        return Response("wrong admin token\n", 403)
    action, query = request.path_params["action"], request.query_params
    pid = query.get("participant", "")
    done: dict[str, str | bool]
    try:
        if action == "advance":
            done = {"participant": pid, "page": await advance(server.rt, pid)}
        elif action == "release":
            done = {"participant": pid, "page": await release(server.rt, pid, query.get("to"))}
        elif action == "joins" and query.get("paused") in ("0", "1"):
            pause_joins(server.rt, query["paused"] == "1")
            done = {"joins_paused": joins_paused(server.rt)}
        else:
            return Response("unknown intervention (advance, release, joins?paused=0|1)\n", 404)
    except InterventionRefused as exc:
        return Response(f"{exc}\n", 409)
    except StorageFault:
        return Response("the database cannot store the intervention; see the admin page\n", 503)
    return JSONResponse(done)


ROUTES = [
    Route("/join", join),
    Route("/api/join", api_join, methods=["POST"]),
    Route("/s", study_page),
    WebSocketRoute("/study/ws", study_socket),
    Route("/play/{sid}/{seat}", play_page),
    WebSocketRoute("/ws/{sid}/{seat}", game_socket),
    Route("/media/{path:path}", media),
    Route("/components/{name}.js", component_script),
    Route("/embed/{page}", embed_page),
    Route("/admin", admin_page),
    Route("/admin/api/state", admin_api),
    Route("/admin/api/{action}", admin_intervene, methods=["POST"]),
    Mount("/static", StaticFiles(directory=str(WEB_STATIC)), name="static"),
    Mount("/study-static", StaticFiles(directory=str(STUDY_STATIC)), name="study-static"),
]


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
    """The next well-formed, allowed request of the socket (None: told the page why not, with
    an error frame; the connection stays open)."""
    parsed = json_frame(await ws.receive(), MAX_PAGE_FRAME_CHARS, MAX_PAGE_NUMBER_DIGITS)
    if "refusal" in parsed:
        await send(parsed["refusal"])
        return None
    data = parsed["data"]
    if not isinstance(data, dict):
        await send(refusal("unknown-request", "unknown request"))
        return None
    if not limit.allow():
        await send(refusal("rate", "too many requests; slow down"))
        return None
    return data


async def _serve_page(ws: WebSocket, rt: StudyRuntime, pid: str, limits: Limits) -> None:
    """Push the participant's page on every change; take what the page submits."""
    socket = _PageSocket(ws, rt, pid, RateLimit(limits.actions_per_s, limits.action_burst))
    await run_both(socket.push, socket.take)


@dataclass
class _PageSocket:
    """One participant's page socket: its pushes and its requests, one message at a time."""

    ws: WebSocket
    rt: StudyRuntime
    pid: str
    limit: RateLimit
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, payload: dict) -> None:
        async with self.lock:
            await self.ws.send_text(json.dumps(payload))

    async def push(self) -> None:
        """The page, each time it changes (once it is on disk)."""
        rt, pid, shown = self.rt, self.pid, None
        while True:
            if rt.worker is not None and pid in rt.worker.gone:  # grouped by another worker
                await self.send(moved(rt.worker.gone[pid]))
                return
            seen = rt.notifier.version(pid)
            view = rt.view(pid)
            try:
                await rt.db.synced()  # what the page shows is on disk
            except StorageFault:  # on the admin page; the page waits for the next change
                await self.send({"type": "error", "code": "storage", "message": PAUSED})
                await rt.wait(pid, seen)
                continue
            if view["node"] != shown:
                rt.note("page_view", pid=pid, node=view["node"])
                shown = view["node"]
            await self.send(view)
            await rt.wait(pid, seen)

    async def take(self) -> None:
        """What the page submits, each answered with an error or by the next push."""
        while True:
            data = await _receive(self.ws, self.send, self.limit)
            if data is None:
                continue
            if data.get("type") == "record":
                await self.record(data)
                continue
            if data.get("type") != "submit":
                await self.send({"type": "error", "message": "unknown request"})
                continue
            await self.submit(data)

    async def record(self, data: dict[str, Any]) -> None:
        """A recorded-only event (a component's emit, a media event): no page follows."""
        try:
            self.rt.record_page_event(self.pid, data)
        except FormError as exc:
            await self.send({"type": "error", "message": str(exc), "problems": {}})
        except StorageFault:
            await self.send({"type": "error", "code": "storage", "message": PAUSED})

    async def submit(self, data: dict[str, Any]) -> None:
        try:
            await self.rt.submit(self.pid, data)
        except StoragePaused as exc:  # not the participant's mistake: programs can tell
            await self.send({"type": "error", "code": exc.code, "message": str(exc)})
        except FormError as exc:  # a stale document save also carries the current text
            extra = getattr(exc, "extra", {})
            code = {"code": exc.code} if hasattr(exc, "code") else {}
            await self.send(
                {"type": "error", "message": str(exc), "problems": exc.problems} | code | extra
            )


async def _serve_game(ws, rt: StudyRuntime, pid: str, session, seat: str, limits: Limits) -> None:
    """collabrl serve's seat protocol, with decisions recorded through the study runtime."""
    limit = RateLimit(limits.actions_per_s, limits.action_burst)

    async def decide(action: str, message: str, tick: object = None) -> None:
        await rt.decide(pid, action, message, session.sid, tick)

    await serve_seat(ws, session, seat, limit, decide)
