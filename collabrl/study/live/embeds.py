"""What a sandboxed component and a page's media send: state writes and done (a component's
submission), and recorded-only events (a component's ``emit``; media play, pause, ended; a
page's data-quality signals).

Recorded-only events travel as the page socket's ``record`` messages, which change nothing
and get no new page, so a component may emit as often as the rate limit lets it.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from collabrl.study.live.host import StudyHost
from collabrl.study.live.variables import StudyLogic
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.sandbox import MAX_EVENT_CHARS
from collabrl.study.spec.schema import EmbedPage

MEDIA_EVENTS = frozenset({"play", "pause", "ended", "seeked"})
QUALITY_EVENTS = ("paste", "focus_lost", "focus_back", "typing")
"""The data-quality signals every study page sends (``static/quality.js``): a paste into a text
field (its length, never its text), the page losing focus and getting it back, and a text
field's typing (keys, milliseconds from the first to the last): what researchers read to spot a
participant who hands the task to an AI."""
"""What a page's video or audio reports."""


class EmbedHost(StudyHost, Protocol):
    """What components need of the runtime."""

    @property
    def logic(self) -> StudyLogic: ...

    async def enter(self, pid: str, page_id: str) -> None: ...


def _json(value: Any, what: str) -> str:
    try:
        text = json.dumps(value, allow_nan=False)
    except ValueError:
        raise FormError(f"the {what} holds a number JSON cannot write") from None
    if len(text) > MAX_EVENT_CHARS:
        raise FormError(f"the {what} is longer than {MAX_EVENT_CHARS} characters as JSON")
    return text


async def embed_submit(rt: EmbedHost, pid: str, page: EmbedPage, payload: dict[str, Any]) -> None:
    """A component's ``set`` (a variable of the page's ``writes``) or ``done``."""
    op = payload.get("op")
    if op == "done":
        await rt.enter(pid, rt.flow.successor(page.id))
        return
    if op != "set":
        raise FormError(f"unknown component request {op!r}")
    name, value = payload.get("name"), payload.get("value")
    if name not in page.writes:
        raise FormError(f"the component may not write {name!r} (writes: {page.writes})")
    _json(value, "value")
    refused = rt.logic.set_value(pid, name, value, page.id)
    if refused is not None:
        raise FormError(f"{name}: {refused}")
    rt.notify(pid)


def embed_view(logic: StudyLogic, pid: str, page: EmbedPage) -> dict[str, Any]:
    """The embed part of a page: the frame's address and height, and the readable state."""
    state = logic.values(pid)["state"]
    readable = dict.fromkeys([*page.reads, *page.writes])
    return {
        "embed": {
            "url": f"embed/{page.id}",
            "height": page.height,
            "state": {name: state[name] for name in readable},
        }
    }


def record_page_event(rt: EmbedHost, pid: str, payload: dict[str, Any]) -> None:
    """A recorded-only event from the page: ``component`` (an embed page's emit),
    ``media`` (play, pause, ended, seeked of a page's video or audio) or ``quality`` (a paste,
    focus lost or back, a text field's typing: :data:`QUALITY_EVENTS`); raises FormError."""
    kind, name = payload.get("kind"), payload.get("name")
    page = rt.study.page(rt.people[pid]["page"])
    if kind == "component" and not isinstance(page, EmbedPage):
        raise FormError("this page has no component")
    if kind == "media" and (name not in MEDIA_EVENTS or not page.media):
        raise FormError(f"no media event {name!r} on this page")
    if kind == "quality" and name not in QUALITY_EVENTS:
        raise FormError(f"no data-quality event {name!r} (known: {', '.join(QUALITY_EVENTS)})")
    if kind not in ("component", "media", "quality"):
        raise FormError(f"unknown event kind {kind!r}")
    if not isinstance(name, str) or not 0 < len(name) <= 64:
        raise FormError("an event needs a name of 1 to 64 characters")
    data = payload.get("data")
    _json(data, "event")
    rt.db.event(f"{kind}_event", pid=pid, node=rt.node(pid), name=name, data=data)
