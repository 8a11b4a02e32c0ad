"""What a participant's page shows at each node, as one JSON object the study page renders.

Markdown written by the study's author is rendered here with raw HTML disabled (markdown-it's
CommonMark preset, which also refuses ``javascript:`` links); everything a model, a partner or a
participant wrote is only ever sent as text. Condition ids and model names never reach a page:
participants see each condition's neutral ``name``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import quote

from collabrl.study.live.embeds import embed_view
from collabrl.study.live.host import StudyHost
from collabrl.study.live.rooms import RoomHub
from collabrl.study.live.rounds import GroupRun
from collabrl.study.live.signals import Notifier
from collabrl.study.live.variables import StudyLogic
from collabrl.study.spec.logic import fill
from collabrl.study.spec.recruitment import Platform, completion_link
from collabrl.study.spec.schema import (
    ChatPage,
    ConditionsPage,
    ConsentPage,
    DocumentPage,
    EmbedPage,
    EndPage,
    MatchPage,
    Question,
    SurveyPage,
    TextPage,
)
from collabrl.study.spec.tutorial import PRACTICE, tutorial_of


class ViewHost(StudyHost, Protocol):
    """What a page view reads of the runtime."""

    @property
    def notifier(self) -> Notifier: ...

    @property
    def logic(self) -> StudyLogic: ...

    @property
    def rooms(self) -> RoomHub: ...

    @property
    def pool(self) -> list[str]: ...

    @property
    def platform(self) -> Platform: ...

    @property
    def payments(self) -> dict[str, dict[str, Any]]: ...

    def group_of(self, pid: str) -> GroupRun | None: ...


@lru_cache(maxsize=256)
def markdown(text: str) -> str:
    """Author Markdown as HTML, without raw HTML."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).render(text)


def page_view(rt: ViewHost, pid: str) -> dict[str, Any]:
    """The page of participant ``pid`` now."""
    row, study = rt.people[pid], rt.study
    page = study.page(row["page"])
    view: dict[str, Any] = {
        "type": "page",
        "version": rt.notifier.version(pid),
        "study": study.title,
        "node": rt.node(pid),
        "kind": page.kind,
        "title": page.title,
        "status": row["status"],
        "deadline_s": rt.deadlines.remaining(("page", pid)),
    }
    if isinstance(page, ConditionsPage):
        view.update(_round_view(rt, pid, page))
        return view
    view["html"] = markdown(rt.logic.text(pid, page.text))
    view["media"] = [
        {"url": f"media/{quote(m.file)}", "kind": m.kind, "alt": m.alt, "caption": m.caption}
        for m in page.media
    ]
    if isinstance(page, TextPage):
        view["button"] = page.button
    elif isinstance(page, ConsentPage):
        view.update(agree=page.agree, decline=page.decline)
    elif isinstance(page, SurveyPage):
        view["questions"] = [_question(rt, pid, q) for q in page.questions]
    elif isinstance(page, MatchPage):
        view["waiting"] = len(rt.pool)
    elif isinstance(page, ChatPage | DocumentPage):
        view.update(rt.rooms.view(pid))
    elif isinstance(page, EmbedPage):
        view.update(embed_view(rt.logic, pid, page))
    elif isinstance(page, EndPage):
        view["code"] = row["code"] if page.show_code else None
        debrief = study.disclosure.debrief
        view["debrief"] = markdown(rt.logic.text(pid, debrief)) if debrief else None
        view.update(_way_back(rt, pid, page))
    return view


def _question(rt: ViewHost, pid: str, question: Question) -> dict[str, Any]:
    """A survey question as the page draws it: its text filled in (shown as text), a
    custom component's script, and an attention check as a plain choice (its expected answer
    stays on the server, out of reach of a script reading the page)."""
    out = question.model_dump(mode="json", exclude={"expect"})
    if question.kind == "attention":
        out["kind"] = "choice"
    out["text"] = rt.logic.text(pid, question.text, markdown=False)
    if question.component is not None:
        out["script"] = f"components/{quote(question.component)}.js"
    return out


def _way_back(rt: ViewHost, pid: str, page: EndPage) -> dict[str, Any]:
    """An end page's link back to the recruitment platform (with the participant's code) and
    what they are paid."""
    recruitment, platform = rt.study.recruitment, rt.platform
    template = recruitment.completion_url or platform.completion_url
    out: dict[str, Any] = {"platform": platform.label, "redirect": None, "payment": None}
    code = rt.people[pid]["code"]
    if template and page.outcome in ("completed", "screened_out"):
        raw = (
            rt.db.identities(pid).get(pid, {}).get("participant")
            if "{participant}" in template
            else None
        )
        out["redirect"] = completion_link(template, code, raw)
    paid = rt.payments.get(pid)
    if paid is not None:
        out["payment"] = {k: paid[k] for k in ("base", "bonus", "currency")}
    return out


def _round_view(rt: ViewHost, pid: str, page: ConditionsPage) -> dict[str, Any]:
    row, study = rt.people[pid], rt.study
    group = rt.group_of(pid)
    waiting = {"phase": "wait", "html": "", "message": "Waiting for your teammates…"}
    if group is None or row["phase"] in ("", "wait"):
        return waiting
    condition = group.condition()
    values = {"round": group.position + 1, "rounds": rt.flow.rounds, "partner": condition.name}
    if row["phase"] == "rate":
        questionnaire = study.questionnaire
        assert questionnaire is not None  # compile: a conditions page needs one
        return {
            "phase": "rate",
            "round": values["round"],
            "rounds": values["rounds"],
            "html": markdown(rt.logic.text(pid, fill(questionnaire.intro, values))),
            "items": [
                {
                    "id": i.id,
                    "text": rt.logic.text(pid, fill(i.text, values), markdown=False),
                    "points": i.points,
                    "labels": i.labels,
                }
                for i in questionnaire.items
            ],
            "free_text": (
                rt.logic.text(pid, fill(questionnaire.free_text, values), markdown=False)
                if questionnaire.free_text
                else None
            ),
        }
    if condition.round != "game":  # a chat or document round
        room = rt.rooms.view(pid)
        if room["room"] is None:
            return waiting
        return {
            "phase": "play",
            "round": values["round"],
            "rounds": values["rounds"],
            "html": markdown(rt.logic.text(pid, fill(page.text, values))),
            "disclosure": _disclosure(study.disclosure.ai_partners, [condition.name]),
            **room,
        }
    if group.session is None:
        return waiting
    names = list(group.agent_names().values())
    disclosure = _disclosure(study.disclosure.ai_partners, names)
    seat, session = row["seat"], group.session
    assert seat is not None  # a group's member has a seat in it
    view = {
        "phase": "play",
        "round": values["round"],
        "rounds": values["rounds"],
        "html": markdown(rt.logic.text(pid, fill(page.text, values))),
        "disclosure": disclosure,
        "game": {"url": f"play/{session.sid}/{quote(seat, safe='')}", "seat": seat},
        "deadline_s": rt.deadlines.remaining(("idle", group.gid, seat)),
        "on_idle": study.timers.on_idle,
    }
    tutorial = tutorial_of(study) if group.position == PRACTICE else None
    if tutorial is not None:  # the practice round: no round number; the page says practice
        view.update(round=None, practice=True, html=markdown(fill(tutorial.text, values)))
    return view


def _disclosure(ai_partners: bool, names: list[str]) -> str:
    """What the page says about the round's partners (``disclosure.ai_partners``)."""
    together = " and ".join(names)
    if not ai_partners:
        return f"You play with {together}."
    return f"{together} {'is an AI agent' if len(names) == 1 else 'are AI agents'}."
