"""What a researcher may do to a running study from the admin API: advance a participant stuck on
a page, release one to an end page, pause and resume new joins.

Each intervention is an event (``admin_advance``, ``admin_release``, ``admin_joins``) written
before it takes effect, so the event log and the export say who was moved by hand, from where
and to where: an analysis can leave them out. Whether joins are paused is read from the event
log, not from memory, so every worker of ``serve --workers`` and a restarted server agree.
"""

from __future__ import annotations

from collabrl.errors import CollabrlError
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.spec.schema import ConsentPage, EndPage, SurveyPage, TextPage

JOINS_EVENT = "admin_joins"
ADVANCED_PAGES = (TextPage, ConsentPage, SurveyPage)
"""Pages a participant can be moved past by hand: nothing else waits on them (a match page or
a round has a group depending on the participant: release them instead)."""


class InterventionRefused(CollabrlError):
    """An intervention that cannot be made (one line for the admin)."""


def joins_paused(rt: StudyRuntime) -> bool:
    """Whether new participants are turned away (the last ``admin_joins`` event says so)."""
    events = rt.db.events(JOINS_EVENT)
    return bool(events) and bool(events[-1]["data"]["paused"])


def pause_joins(rt: StudyRuntime, paused: bool) -> None:
    """Turn new participants away (``paused``) or let them in again; participants already in
    go on."""
    rt.db.event(JOINS_EVENT, paused=paused)


def _active(rt: StudyRuntime, pid: str) -> str:
    """The page of an active participant ``pid`` (refused otherwise)."""
    if pid not in rt.people:
        raise InterventionRefused(f"no participant {pid!r}")
    if not rt.is_active(pid):
        raise InterventionRefused(f"participant {pid} is {rt.people[pid]['status']}, not active")
    return rt.node(pid)


async def advance(rt: StudyRuntime, pid: str) -> str:
    """Move ``pid`` past their page without an answer (a survey's questions stay unanswered);
    the page they reach."""
    node = _active(rt, pid)
    page = rt.study.page(node) if node in {p.id for p in rt.study.pages} else None
    if not isinstance(page, ADVANCED_PAGES):
        raise InterventionRefused(
            f"participant {pid} is at {node}, which others wait on or which has no next page: "
            "release them instead"
        )
    target = rt.flow.successor(page.id)
    rt.db.event("admin_advance", pid=pid, node=node, to=target)
    await rt.enter(pid, target)
    return target


async def release(rt: StudyRuntime, pid: str, to: str | None = None) -> str:
    """End ``pid``'s session at end page ``to`` (default: ``timers.release_to``); a simulated
    stand-in takes their seat in a round, as after an idle release. The page they reach."""
    node = _active(rt, pid)
    target = to or rt.study.timers.release_to
    ends = [p.id for p in rt.study.pages if isinstance(p, EndPage)]
    if target not in ends:
        raise InterventionRefused(
            f"release to {target!r}: name an end page ({', '.join(ends)}) with to="
        )
    with rt.db.batch():
        rt.db.event("admin_release", pid=pid, gid=rt.people[pid]["gid"], node=node, to=target)
        rt.put_on(pid, target)
    await rt.released(pid, target)
    return target
