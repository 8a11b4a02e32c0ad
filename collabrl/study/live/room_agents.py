"""What the agents of a chat room or a shared document say: a scripted agent's next line, or
an LLM's reply through any engine collabrl supports (:class:`collabrl.factory.EngineCache`).

A reply is asked for in a worker thread with a deadline; anything that goes wrong (the engine
errs, returns nothing, takes longer than ``timeout_s``) raises :class:`AgentFailure`, which the
room turns into the agent's apology line and an ``agent_failure`` event, never a crash.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.store.room import Room


class AgentFailure(CollabrlError):
    """An agent that could not answer (the reason, in one line)."""

    def __init__(self, message: str, latency_s: float = 0.0) -> None:
        super().__init__(message)
        self.latency_s = latency_s


@dataclass(frozen=True)
class AgentReply:
    """An LLM agent's reply with what the reply log records of it."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


def speaker(message: dict[str, Any], names: dict[str, str]) -> str:
    """Who said ``message``, as the agents see it (``names``: participant id -> shown name)."""
    if message["by"] == "participant":
        return names.get(message["pid"], "A participant")
    return str(message["name"])


def chat_conversation(
    agent: ChatAgent, room: Room, task: str, names: dict[str, str]
) -> list[dict[str, str]]:
    """The chat as an LLM agent's conversation: its prompt and the task as the system message,
    its own lines as the assistant's, everyone else's as the user's (``Name: text``)."""
    system = f"{agent.prompt}\n\nYou are {agent.name} in a chat room.\n\nThe task:\n{task}"
    conversation = [{"role": "system", "content": system}]
    for message in room.messages:
        if message["by"] == "agent" and message["name"] == agent.name:
            conversation.append({"role": "assistant", "content": message["text"]})
        elif message["by"] != "system":
            text = f"{speaker(message, names)}: {message['text']}"
            conversation.append({"role": "user", "content": text})
    return conversation


def document_conversation(agent: ChatAgent, room: Room, task: str) -> list[dict[str, str]]:
    """The shared document as an LLM agent's request for a revised version."""
    system = f"{agent.prompt}\n\nYou are {agent.name}, helping to write a shared document."
    ask = (
        f"The task:\n{task}\n\nThe document now:\n<<<\n{room.text}\n>>>\n\nReply with the "
        "whole improved document only, without any comment."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": ask}]


def scripted_line(agent: ChatAgent, said: int) -> str | None:
    """A scripted agent's line after it has said ``said`` lines (None: it has no more)."""
    return agent.lines[said] if said < len(agent.lines) else None


async def llm_reply(
    agent: ChatAgent, engines: Any, conversation: list[dict[str, str]], seed: int
) -> AgentReply:
    """The LLM agent's reply to ``conversation``; raises AgentFailure (with the time spent)."""
    from collabrl.engines import SamplingParams

    params = SamplingParams(
        temperature=agent.sampling.temperature,
        top_p=agent.sampling.top_p,
        max_new_tokens=agent.sampling.max_new_tokens,
        stop=(),
        seed=seed,
    )
    start = time.monotonic()
    try:
        engine = engines.get(agent.engine)
        work = asyncio.to_thread(engine.generate, [conversation], params)
        (result,) = await asyncio.wait_for(work, agent.timeout_s)
    except TimeoutError:
        raise AgentFailure(f"no reply within {agent.timeout_s:g} s", agent.timeout_s) from None
    except Exception as exc:  # an engine that cannot load or errs: the room carries on
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise AgentFailure(reason, time.monotonic() - start) from None
    latency = time.monotonic() - start
    if result.error:
        raise AgentFailure(" ".join(str(result.error).split()), latency)
    text = result.text.strip()
    if not text:
        raise AgentFailure("the reply was empty", latency)
    return AgentReply(text, result.prompt_tokens, result.completion_tokens, latency)
