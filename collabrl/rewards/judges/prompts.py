"""Load the versioned judge prompt files and fill them for one step or one window.

Every file starts with ``version: NAME`` and every result carries ``NAME@sha`` (first 8 hex of
the file's SHA-256), so an edited prompt that forgot to bump its version is still told apart.
Templates use ``{{name}}`` slots (not ``str.format``) because the prompts contain JSON braces.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from collabrl.engines.types import Message
from collabrl.rewards.judges.records import StepView

PROMPT_PACKAGE = "collabrl.rewards.prompts"
_SLOT = re.compile(r"\{\{(\w+)\}\}")
_SECTION = re.compile(r"^=== (system|user) ===$", re.MULTILINE)
OBSERVATION_CHARS = 4000  # per step; long observations keep their head and tail

GAME_DESCRIPTIONS = {
    "household": (
        "a household game: two players search the rooms and containers of an apartment for goal "
        "objects and carry them to target places; each holds at most two objects, every action "
        "takes game time, and sending a message costs one time step."
    ),
    "kitchen": (
        "an Overcooked-style kitchen: two chefs put three onions in a pot, the soup cooks, then "
        "someone fills a dish and delivers it for points; each chef carries one item, and sending "
        "a message costs one time step."
    ),
}


@dataclass(frozen=True)
class PromptFile:
    """One template: its declared version, content hash and text."""

    name: str
    version: str
    text: str

    @property
    def stamp(self) -> str:
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:8]
        return f"{self.version}@{digest}"


@cache
def load_prompt(name: str) -> PromptFile:
    """``collabrl/rewards/prompts/<name>.txt``; a file without a version line is an error."""
    text = files(PROMPT_PACKAGE).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    first, _, body = text.partition("\n")
    if not first.startswith("version:"):
        raise ValueError(f"prompt file {name}.txt must start with 'version: <id>'")
    return PromptFile(name=name, version=first.removeprefix("version:").strip(), text=body)


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace every ``{{slot}}``; an unknown slot is a programming error."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt slot {{{{{key}}}}} has no value")
        return values[key]

    return _SLOT.sub(one, template)


def chat(prompt: PromptFile, values: Mapping[str, str]) -> list[Message]:
    """System + user messages from a template split by ``=== system ===`` / ``=== user ===``."""
    parts = _SECTION.split(prompt.text)
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    return [
        {"role": "system", "content": fill(sections["system"], values)},
        {"role": "user", "content": fill(sections["user"], values)},
    ]


def _clip(text: str, limit: int = OBSERVATION_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters omitted ...]\n{text[-half:]}"


def _heard(step: StepView) -> str:
    return "\n".join(f"{who}: {text}" for who, text in step.heard) or "(none)"


def _common(step: StepView) -> dict[str, str]:
    return {
        "game_description": GAME_DESCRIPTIONS.get(step.game, step.game),
        "partner_profile": step.partner_profile or "(no profile given)",
    }


def step_messages(step: StepView) -> list[Message]:
    """The interactivity judge's chat for one decision."""
    return chat(
        load_prompt("interactivity"),
        {
            **_common(step),
            "observation": _clip(step.observation),
            "heard": _heard(step),
            "think": step.think or "(empty)",
            "message": step.message or "(empty)",
            "action": step.action or "(invalid or missing)",
            "sent": "message sent" if step.sent_message else "message not sent",
        },
    )


def render_window(window: Sequence[StepView]) -> str:
    """The stretch as the window judges read it: per decision, what the AI saw, heard and did."""
    blocks = []
    for n, step in enumerate(window, 1):
        blocks.append(
            f"--- decision {n} (tick {step.tick}) ---\n"
            f"What the AI saw:\n{_clip(step.observation)}\n"
            f"Partner lines since its previous decision:\n{_heard(step)}\n"
            f"AI reasoning: {step.think or '(empty)'}\n"
            f"AI message draft: {step.message or '(empty)'}\n"
            f"AI action: {step.action or '(invalid or missing)'} "
            f"({'message sent' if step.sent_message else 'message not sent'})"
        )
    return "\n\n".join(blocks)


def window_prompt_stamp(dimension: str) -> str:
    """Version of a dimension's window prompt: shared template + its criteria file."""
    return f"{load_prompt('window').stamp}+{load_prompt(dimension).stamp}"


def window_messages(window: Sequence[StepView], dimension: str) -> list[Message]:
    """One window judge's chat: the shared template filled with one dimension's criteria."""
    return chat(
        load_prompt("window"),
        {
            **_common(window[0]),
            "dimension_title": dimension.capitalize(),
            "criteria": load_prompt(dimension).text.strip(),
            "steps": str(len(window)),
            "window": render_window(window),
        },
    )
