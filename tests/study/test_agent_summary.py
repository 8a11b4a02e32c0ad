"""Agent facilitation: an LLM agent with a ``summary`` request sums the chat up when the room
closes, through the OpenAI-compatible engine against the repo's fake server; the summary is its
last line in the transcript and an ``agent_reply`` (trigger ``summary``) in the export."""

from __future__ import annotations

import json

import pytest

from collabrl.errors import RecipeError
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.testing.fake_openai import FakeOpenAIServer
from tests.study.room_helpers import ended_chat, write_study

ASK = "Summarise in one sentence what was agreed."
AGENT = {
    "name": "Max",
    "kind": "llm",
    "engine": {"backend": "openai", "model": "fake-chat-model"},
    "prompt": "You help plan trips.",
    "summary": ASK,
}


def answer(messages: list[dict[str, str]]) -> str:
    """The fake server's model: a summary of what it was told when asked for one."""
    if messages[-1]["content"] == ASK:
        said = [m["content"] for m in messages if m["role"] == "user"][:-1]
        return f"We agreed on {' and '.join(said)}."
    return "Sounds good."


def chat_page(agent: dict) -> dict:
    return {"id": "chat", "kind": "chat", "text": "Plan a trip.", "agents": [agent]}


@pytest.fixture
def server(monkeypatch):
    with FakeOpenAIServer(responder=answer) as srv:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("COLLABRL_OPENAI_API_KEY", "sk-test")
        yield srv


def test_an_llm_agent_summarises_the_chat_when_it_closes(tmp_path, server) -> None:
    path = write_study(tmp_path, [chat_page(AGENT)])

    rt, pid = ended_chat(path, tmp_path / "study.sqlite", "Rome")
    assert rt.node(pid) == "done"
    lines = [(e["data"]["name"], e["data"]["text"]) for e in rt.db.events("chat_message")]
    assert lines == [
        (None, "Rome"),
        ("Max", "Sounds good."),
        ("Max", "We agreed on Participant 1: Rome."),
    ]
    export_study(rt.compiled.loaded, rt.db, tmp_path / "out")
    replies = [json.loads(line) for line in (tmp_path / "out" / "agent_replies.jsonl").open()]
    summary = replies[-1]
    assert (
        summary["trigger"] == "summary" and summary["text"] == "We agreed on Participant 1: Rome."
    )
    assert summary["prompt"][-1] == {"role": "user", "content": ASK}
    assert summary["model"] == "openai:fake-chat-model" and summary["completion_tokens"] > 0
    assert summary["error"] is None


def test_a_summary_is_an_llm_agents(tmp_path) -> None:
    scripted = {"name": "Sam", "lines": ["Hi."], "summary": ASK}
    with pytest.raises(RecipeError, match="summary is an llm agent's"):
        compile_study(load_study(str(write_study(tmp_path, [chat_page(scripted)]))))
