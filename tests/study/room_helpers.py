"""Chat-room and shared-document tests: study files written on the fly, runtimes over them,
an LLM agent answered by a scripted engine, and walking a participant to a page."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import yaml

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database
from collabrl.testing.scripted import Reply, ScriptedEngine

LLM = {"backend": "openai", "model": "fake-chat-model"}
"""An LLM agent's engine section; tests put a ScriptedEngine in its place (:func:`with_llm`)."""

CONSENT = {"id": "consent", "kind": "consent", "text": "ok?", "decline_to": "declined"}
ENDS = [
    {"id": "done", "kind": "end", "text": "Thanks."},
    {"id": "declined", "kind": "end", "outcome": "declined", "show_code": False},
]


def write_study(folder: Path, pages: list[dict], **top: Any) -> Path:
    """A game-free study file of ``pages`` (consent first, the two end pages last)."""
    study = {"name": "room_test", "pages": [CONSENT, *pages, *ENDS], **top}
    path = folder / "room_test.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    return path


def room_runtime(path: Path | str, db: Path, *overrides: str) -> StudyRuntime:
    study = compile_study(load_study(str(path), list(overrides)))
    return StudyRuntime(study, open_database(study.loaded, db))


def with_llm(rt: StudyRuntime, reply) -> ScriptedEngine:
    """Answer every LLM agent of ``rt`` with ``reply(conversation)`` (a ScriptedEngine)."""
    from collabrl.config.roles import EngineSpec

    engine = ScriptedEngine(reply)
    rt.engines._engines[EngineSpec(**LLM).model_dump_json()] = engine
    return engine


def failing(conversation: list[dict[str, str]]) -> Reply:
    return None  # a failed request


async def settle(rt: StudyRuntime) -> None:
    """Wait until no agent reply or proposal is in flight."""
    for _ in range(500):
        if not any(room.pending for room in rt.rooms.rooms.values()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("an agent reply never came")


async def consented(rt: StudyRuntime) -> str:
    """A new participant who agreed on the consent page (:data:`CONSENT`)."""
    pid, _ = await rt.join()
    await rt.submit(pid, {"node": "consent", "agree": True})
    return pid


async def say(rt: StudyRuntime, pid: str, text: str) -> None:
    await rt.submit(pid, {"node": rt.node(pid), "action": "say", "text": text})
    await settle(rt)


def ended_chat(path: Path, db: Path, text: str) -> tuple[StudyRuntime, str]:
    """A runtime over ``path`` after one participant consented, said ``text`` on the ``chat``
    page and ended it, with that participant's id: the room has closed, so what its agents do at
    the close has been done."""

    async def scenario() -> tuple[StudyRuntime, str]:
        rt = room_runtime(path, db)
        await rt.recover()
        pid = await consented(rt)
        await say(rt, pid, text)
        await rt.submit(pid, {"node": "chat", "action": "end"})
        return rt, pid

    return run_coroutine(scenario())


def transcript(rt: StudyRuntime, pid: str) -> list[tuple[str, str]]:
    """(who, text) of the chat the participant sees."""
    return [(m["who"], m["text"]) for m in rt.view(pid)["messages"]]
