"""What a simulated participant does in a chat room or at a shared document (pretests): a few
chat messages, each after the agents have answered the last one; at a document one edit, one
request for the agent's proposal (accepted), then the end button. The same requests a browser
sends, through :meth:`StudyRuntime.submit`, so a pretest exercises the room as people would."""

from __future__ import annotations

from typing import Any

from collabrl.study.live.runtime import StudyRuntime

PRETEST_MESSAGES = 2  # chat messages each simulated participant sends


async def act_in_room(
    rt: StudyRuntime, pid: str, view: dict[str, Any], index: int, memo: dict[str, Any]
) -> None:
    """One step in the room ``view`` shows (nothing while an agent is answering); ``memo``
    holds what this participant has done in the room so far."""
    if view["ended"] or view["closed"] or view["pending"]:
        return
    done = memo.setdefault(view["room"], set())
    request: dict[str, Any] = {"action": "end"}
    left = view["turns_left"]
    if view["kind_of_room"] == "chat":
        mine = sum(m["mine"] for m in view["messages"])
        if mine < PRETEST_MESSAGES and (left is None or left > 0):
            text = f"Message {mine + 1} of simulated participant {index}."
            request = {"action": "say", "text": text[: view["max_chars"]]}
    else:
        document = view["document"]
        proposal = document["proposal"]
        if proposal is not None:
            accept = proposal["text"] is not None and proposal["base"] == document["version"]
            request = {"action": "accept" if accept else "dismiss", "proposal": proposal["id"]}
        elif "saved" not in done and (left is None or left > 0):
            line = f"A line by simulated participant {index}."
            gap = "\n" if document["text"] and not document["text"].endswith("\n") else ""
            text = document["text"] + gap + line
            if len(text) <= view["max_chars"]:
                request = {"action": "save", "text": text, "base": document["version"]}
            done.add("saved")
        elif view["agents"] and "asked" not in done:
            request = {"action": "propose"}
            done.add("asked")
    await rt.submit(pid, {"node": view["node"], **request})
