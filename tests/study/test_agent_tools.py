"""Agents with tools and triggers, a shared workspace, chat history across pages, sandboxed
components and media events (issue 49, items 2-4), through the runtime: every agent reply is
logged with its prompt, model, parameters, token counts and latency; tool calls are checked and
recorded; workspace fields keep their seats' permissions."""

from __future__ import annotations

import asyncio
import json

import pytest

from collabrl.errors import RecipeError
from collabrl.study.live.signals import run_coroutine
from collabrl.study.results.export import export_study
from collabrl.study.spec.agent_tools import ToolCall, tool_calls
from collabrl.study.spec.forms import FormError
from tests.study.room_helpers import (
    LLM,
    ended_chat,
    room_runtime,
    say,
    settle,
    transcript,
    with_llm,
    write_study,
)

STATE = {"agreed": {"type": "bool"}, "score": {"type": "number"}}
WORKSPACE = [
    {
        "id": "verdict",
        "label": "Verdict",
        "kind": "choice",
        "options": ["yes", "no"],
        "editable_by": ["p1"],
    },
    {"id": "notes", "label": "Notes", "editable_by": ["agent"]},
]


def chat_page(agent: dict, **fields) -> dict:
    return {"id": "chat", "kind": "chat", "text": "Decide.", "agents": [agent], **fields}


async def at_chat(rt) -> str:
    await rt.recover()
    pid, _ = await rt.join()
    await rt.submit(pid, {"node": "consent", "agree": True})
    return pid


def test_tool_tags_are_taken_out_of_the_text_in_order() -> None:
    shown, calls = tool_calls(
        'Done. <edit_field name="notes">a b</edit_field> <set_state name="x">3</set_state><end_chat/>'
    )
    assert shown == "Done."
    assert calls == [
        ToolCall("edit_workspace", "notes", "a b"),
        ToolCall("set_state", "x", "3"),
        ToolCall("end_chat"),
    ]
    assert tool_calls("<end_chat") == ("<end_chat", [])  # not a tag: said as is
    long = '<set_state name="x">' + "y" * 100_000
    assert tool_calls(long) == (long, [])  # unclosed: no call, linear time


def test_an_llm_agent_replies_every_second_message_edits_sets_and_ends_the_chat(tmp_path) -> None:
    agent = {
        "name": "Max",
        "kind": "llm",
        "engine": LLM,
        "trigger": {"every": 2},
        "tools": ["end_chat", "set_state", "edit_workspace"],
        "state_writes": ["agreed"],
        "closing": "Summary: agreed.",
    }
    path = write_study(tmp_path, [chat_page(agent, workspace=WORKSPACE)], state=STATE)

    def reply(conversation):
        if len([m for m in conversation if m["role"] == "user"]) < 4:
            return 'Noted. <edit_field name="notes">two said</edit_field>'
        return 'Agreed. <set_state name="agreed">true</set_state><edit_field name="verdict">no</edit_field><end_chat/>'

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        engine = with_llm(rt, reply)
        pid = await at_chat(rt)
        await say(rt, pid, "one")
        assert transcript(rt, pid) == [("You", "one")]  # every 2: no reply yet
        await say(rt, pid, "two")
        view = rt.view(pid)
        assert [f["value"] for f in view["workspace"]] == [None, "two said"]
        assert [f["editable"] for f in view["workspace"]] == [True, False]
        with pytest.raises(FormError, match="Notes: you may not edit this field"):
            await rt.submit(
                pid, {"node": "chat", "action": "field", "field": "notes", "value": "x"}
            )
        with pytest.raises(FormError, match="Verdict: choose one of yes, no"):
            await rt.submit(
                pid, {"node": "chat", "action": "field", "field": "verdict", "value": "?"}
            )
        await rt.submit(
            pid, {"node": "chat", "action": "field", "field": "verdict", "value": "yes"}
        )
        await say(rt, pid, "three")
        await say(rt, pid, "four")
        await settle(rt)
        return rt, pid, engine

    rt, pid, engine = run_coroutine(scenario())
    assert rt.node(pid) == "done"  # the agent ended the chat
    assert "<end_chat/> ends the chat" in engine.calls[0][0]["content"]  # told its tools
    (room,) = rt.rooms.rooms.values()
    assert [m["text"] for m in room.messages if m["by"] == "agent"] == [
        "Noted.",
        "Agreed.",
        "Summary: agreed.",
    ]
    assert room.closed == "agent" and room.fields == {"notes": "two said", "verdict": "yes"}
    assert rt.logic.values(pid)["state"]["agreed"] is True
    tools = [(e["data"]["tool"], e["data"]["done"]) for e in rt.db.events("agent_tool")]
    assert tools == [
        ("edit_workspace", True),
        ("set_state", True),
        ("edit_workspace", False),
        ("end_chat", True),
    ]
    assert rt.db.events("agent_tool")[2]["data"]["refused"] == "agents may not edit verdict"
    replies = [e["data"] for e in rt.db.events("agent_reply")]
    assert len(replies) == 2
    first = replies[0]
    assert first["model"] == "openai:fake-chat-model" and first["parameters"]["temperature"] == 0.7
    assert first["prompt"][0]["role"] == "system" and first["prompt"][-1]["content"].endswith("two")
    assert (first["prompt_tokens"] > 0, first["completion_tokens"]) == (True, 4)
    assert first["latency_s"] >= 0 and first["error"] is None and first["trigger"] == "message"
    export_study(rt.loaded, rt.db, tmp_path / "export")
    lines = (tmp_path / "export" / "agent_replies.jsonl").read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == [r["text"] for r in replies]
    edits = (tmp_path / "export" / "workspace_edits.csv").read_text()
    assert "two said" in edits and "participant" in edits


def test_an_agent_speaks_after_silence_and_on_a_condition(tmp_path) -> None:
    agent = {
        "name": "Sam",
        "lines": ["Anyone there?", "You said a lot."],
        "trigger": {"every": None, "silence_s": 0.05, "when": "chat.participant_messages >= 3"},
    }
    path = write_study(tmp_path, [chat_page(agent)], state=STATE)

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_chat(rt)
        await asyncio.sleep(0.2)
        await settle(rt)
        said = transcript(rt, pid)
        for text in ("a", "b", "c"):
            await say(rt, pid, text)
        await rt.submit(pid, {"node": "chat", "action": "end"})
        rt.shutdown()
        return rt, said, transcript_of(rt)

    def transcript_of(rt):
        (room,) = rt.rooms.rooms.values()
        return [m["text"] for m in room.messages]

    rt, said, final = run_coroutine(scenario())
    assert said == [("Sam", "Anyone there?")]
    assert final == ["Anyone there?", "a", "b", "c", "You said a lot."]
    assert [e["data"]["trigger"] for e in rt.db.events("agent_reply")] == ["silence", "message"]


def test_a_thread_carries_the_chat_to_the_next_page_without_counting_it(tmp_path) -> None:
    first = chat_page({"name": "Sam", "opening": "Hi.", "lines": ["Ok."]}, thread="t")
    second = {
        **chat_page({"name": "Sam", "opening": "Back.", "lines": ["Ok."]}),
        "id": "more",
        "thread": "t",
        "limits": {"max_turns": 1},
    }
    path = write_study(tmp_path, [first, second])

    rt, pid = ended_chat(path, tmp_path / "db.sqlite", "hello")
    assert rt.node(pid) == "more"
    assert transcript(rt, pid) == [
        ("Sam", "Hi."),
        ("You", "hello"),
        ("Sam", "Ok."),
        ("Sam", "Back."),
    ]
    assert rt.view(pid)["turns_left"] == 1  # the carried message is not this page's turn


def test_lint_names_wrong_tools_triggers_and_permissions(tmp_path) -> None:
    cases = [
        (
            {"tools": ["set_state"], "state_writes": ["nothing"]},
            {},
            "state_writes: 'nothing' is no participant state variable",
        ),
        ({"state_writes": ["agreed"]}, {}, "state_writes without the set_state tool"),
        ({"trigger": {"when": "chat.x > state.nope"}}, {}, "unknown state variable 'nope'"),
        ({"trigger": {"every": None}}, {}, "trigger: give every, when or silence_s"),
        (
            {},
            {"workspace": [{**WORKSPACE[0], "editable_by": ["p7"]}]},
            "workspace field verdict: editable_by names ['p7']",
        ),
    ]
    from collabrl.study.spec.compile import compile_study
    from collabrl.study.spec.load import load_study

    for agent_fields, page_fields, says in cases:
        agent = {"name": "Sam", "lines": ["x"], **agent_fields}
        path = write_study(tmp_path, [chat_page(agent, **page_fields)], state=STATE)
        with pytest.raises(RecipeError) as caught:
            compile_study(load_study(str(path)))
        assert says in str(caught.value) and "\n" not in str(caught.value), says


EMBED = {
    "id": "slider",
    "kind": "embed",
    "html": "c.html",
    "reads": ["agreed"],
    "writes": ["score"],
    "media": [{"file": "a.wav", "alt": "a sound"}],
}


def test_a_sandboxed_component_writes_its_variables_emits_events_and_says_done(tmp_path) -> None:
    (tmp_path / "c.html").write_text("<p>hi</p>")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "a.wav").write_bytes(b"RIFF")
    path = write_study(tmp_path, [EMBED], state=STATE)

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_chat(rt)
        view = rt.view(pid)
        assert view["embed"] == {
            "url": "embed/slider",
            "height": 400,
            "state": {"agreed": False, "score": 0},
        }
        for bad, says in (
            ({"name": "agreed", "value": True}, "may not write 'agreed'"),
            ({"name": "score", "value": "x"}, "score: 'x' is not a number"),
        ):
            with pytest.raises(FormError, match=says):
                await rt.submit(pid, {"node": "slider", "op": "set", **bad})
        await rt.submit(pid, {"node": "slider", "op": "set", "name": "score", "value": 7})
        rt.record_page_event(
            pid, {"node": "slider", "kind": "component", "name": "moved", "data": {"v": 7}}
        )
        rt.record_page_event(
            pid, {"node": "slider", "kind": "media", "name": "play", "data": {"t": 0}}
        )
        with pytest.raises(FormError, match="no media event 'jump'"):
            rt.record_page_event(pid, {"node": "slider", "kind": "media", "name": "jump"})
        with pytest.raises(FormError, match="longer than 2000"):
            rt.record_page_event(
                pid, {"node": "slider", "kind": "component", "name": "big", "data": "x" * 3000}
            )
        await rt.submit(pid, {"node": "slider", "op": "done"})
        return rt, pid

    rt, pid = run_coroutine(scenario())
    assert rt.node(pid) == "done" and rt.logic.values(pid)["state"]["score"] == 7
    export_study(rt.loaded, rt.db, tmp_path / "export")
    rows = (tmp_path / "export" / "page_events.csv").read_text().splitlines()
    assert rows[1:] and [r.split(",")[3:5] for r in rows[1:]] == [
        ["component_event", "moved"],
        ["media_event", "play"],
    ]


def test_the_component_page_is_served_sandboxed_with_its_api(tmp_path) -> None:
    from starlette.testclient import TestClient

    from collabrl.study.server.app import make_study_app
    from collabrl.study.spec.sandbox import EMBED_POLICY

    (tmp_path / "c.html").write_text("<p>hi</p>")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "a.wav").write_bytes(b"RIFF")
    rt = room_runtime(write_study(tmp_path, [EMBED], state=STATE), tmp_path / "db.sqlite")
    with TestClient(make_study_app(rt, "admin-token-123456")) as client:
        got = client.get("/embed/slider")
        assert got.status_code == 200 and got.text.endswith("<p>hi</p>")
        assert "window.collabrl" in got.text
        assert got.headers.get_list("content-security-policy") == [EMBED_POLICY]
        assert client.get("/embed/consent").status_code == 404
