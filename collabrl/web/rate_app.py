"""The viewer's rating page (``collabrl view EVAL_DIR --rate``): people rate the judged windows of
recorded evaluations on the judges' scale; every rating goes to the ratings file.

- ``GET /rate?token=T[&rater=ID]``: the page (a rater id is entered there or given in the URL);
- ``GET /api/windows?token=T&rater=ID``: every judged window (job, decisions, ticks) and whether
  this rater has rated it, in order, so a rater resumes at the first window left;
- ``GET /api/windows/{id}?token=T&rater=ID``: what the rater is shown of one window (the
  interaction alone: never the judge's verdict, nor the partner profile, as the evaluation
  judges see it) and the rater's latest rating of it;
- ``POST /api/ratings?token=T``: one rating as JSON ``{rater, window, scores, comment}``;
  a bad one (unknown window, a score off the scale, a missing field, not JSON) is answered 400
  with ``{"error": "..."}`` naming the problem;
- ``GET /api/ratings.csv?token=T``: every rating so far as CSV.

Posts must be JSON (``Content-Type: application/json``): a foreign page can only send one after
a CORS preflight, which this server never grants; Host and Origin are checked before any route
(:mod:`collabrl.web.security`), and every request needs the token.
"""

from __future__ import annotations

import io
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from collabrl.errors import CollabrlError
from collabrl.eval.rated_windows import SCALE, JudgedWindow, window_content, windows_of
from collabrl.eval.ratings import RatingError, RatingStore, check_rater, validate, write_csv
from collabrl.rewards.judges import DIMENSIONS
from collabrl.web.security import RateLimit, has_token
from collabrl.web.serve_app import STATIC
from collabrl.web.trajectories import Library

MAX_BODY = 16 * 1024
# What each dimension asks, from the paper's questionnaire (appendix D.5) and the judges' rubric.
GUIDANCE = {
    "helpfulness": "Did the agent's actions serve the shared goal and make sense? Was what it "
    "said clear and useful, actionable rather than vague chatter?",
    "trustfulness": "Did the agent follow requests and instructions? Did it keep its partner "
    "updated (its plans, where it goes, what it finished) in good time?",
    "empathy": "Did the agent seem supportive and collaborative: encouragement, politeness, "
    "awareness of how its partner is doing?",
}
SCALE_TEXT = (
    "5: nothing to criticise; each clear shortcoming costs 1-3 points (as the judges deduct), "
    "down to 0."
)


def error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status)


def rating_routes(library: Library, store: RatingStore, token: str) -> list[Route]:
    """The rating page's routes for the episodes of ``library``, rated into ``store``."""
    limit = RateLimit(rate=5.0, burst=30)

    def catalogue() -> tuple[list[dict[str, Any]], dict[str, tuple[JudgedWindow, dict]]]:
        episodes = library.episodes()
        windows = windows_of(episodes)
        return episodes, {w.id: (w, episodes[w.record]) for w in windows}

    def rater_of(request: Request) -> str | None:
        given = request.query_params.get("rater")
        return check_rater(given) if given else None

    async def page(request: Request) -> Response:
        if not has_token(request, token):
            return Response("missing or wrong token: open the URL the viewer printed\n", 403)
        return HTMLResponse((STATIC / "rate.html").read_text(encoding="utf-8"))

    async def listing(request: Request) -> Response:
        if not has_token(request, token):
            return error(403, "missing or wrong token")
        try:
            rater = rater_of(request)
            _, windows = catalogue()
        except CollabrlError as exc:
            return error(400, str(exc))
        done = store.of_rater(rater) if rater else {}
        rows = [{**w.describe(record), "rated": w.id in done} for w, record in windows.values()]
        return JSONResponse(
            {
                "windows": rows,
                "dimensions": list(DIMENSIONS),
                "scale": list(SCALE),
                "scale_text": SCALE_TEXT,
                "guidance": GUIDANCE,
            }
        )

    async def one(request: Request) -> Response:
        if not has_token(request, token):
            return error(403, "missing or wrong token")
        wid = request.path_params["wid"]
        try:
            rater = rater_of(request)
            _, windows = catalogue()
            if wid not in windows:
                return error(404, f"window {wid[:80]!r}: no such judged window")
            window, record = windows[wid]
            content = window_content(record, window)
        except CollabrlError as exc:
            return error(400, str(exc))
        previous = store.of_rater(rater).get(wid) if rater else None
        content["rating"] = (
            {"scores": previous.scores, "comment": previous.comment, "time": previous.row()["time"]}
            if previous
            else None
        )
        return JSONResponse(content)

    async def submit(request: Request) -> Response:
        if not has_token(request, token):
            return error(403, "missing or wrong token")
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return error(415, "send the rating as JSON (Content-Type: application/json)")
        if not limit.allow():
            return error(429, "too many ratings at once; wait a moment")
        body = await request.body()
        if len(body) > MAX_BODY:
            return error(413, f"the rating is larger than {MAX_BODY} bytes")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return error(400, "the body is not JSON")
        try:
            _, windows = catalogue()
            rating = validate(payload, windows)
            window, record = windows[rating.window]
            stored = store.add(rating, window.describe(record))
        except RatingError as exc:
            status = 404 if "no such judged window" in str(exc) else 400
            return error(status, str(exc))
        except CollabrlError as exc:
            return error(500, str(exc))
        done = store.of_rater(stored.rater)
        return JSONResponse(
            {
                "stored": stored.row(),
                "rated": len(set(done) & set(windows)),
                "windows": len(windows),
            }
        )

    async def export(request: Request) -> Response:
        if not has_token(request, token):
            return Response("missing or wrong token\n", 403)
        out = io.StringIO()
        write_csv(store.all(), out)
        return Response(
            out.getvalue(),
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="ratings.csv"'},
        )

    return [
        Route("/rate", page),
        Route("/api/windows", listing),
        Route("/api/windows/{wid:str}", one),
        Route("/api/ratings", submit, methods=["POST"]),
        Route("/api/ratings.csv", export),
    ]
