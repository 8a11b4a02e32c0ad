"""Versioned prompt files: load them, fill their ``{{slots}}``, split them into chat sections.

Prompts are data that change more often than code. Every file starts with ``version: NAME`` and
every result carries ``NAME@sha`` (first 8 hex of the body's SHA-256), so an edited prompt that
forgot to bump its version is still told apart. Slots are ``{{name}}`` (not ``str.format``)
because judge prompts contain JSON braces. Sections are headed ``=== name ===`` lines.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.resources import files
from typing import Literal

PromptLayout = Literal["paper", "compact"]
"""How the agent's prompt is laid out. ``paper``: the E.6 prompt (rules, how to decide, the answer
format) before the observation. ``compact``: only the seat's name and the observation, for a model
trained from scratch that cannot read the rules' English but pays for every token of it (about 40%
of a household decision); such a model learns the answer format from demonstrations. Never the
default of the paper's recipes."""

_SLOT = re.compile(r"\{\{(\w+)\}\}")
_SECTION = re.compile(r"^=== (\w+) ===$", re.MULTILINE)


@dataclass(frozen=True)
class PromptFile:
    """One template: its declared version, content hash and text."""

    name: str
    version: str
    text: str

    @cached_property
    def stamp(self) -> str:
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:8]
        return f"{self.version}@{digest}"

    @cached_property
    def sections(self) -> dict[str, str]:
        """Section name -> its stripped text (the file's ``=== name ===`` blocks); split once,
        since prompts are built for every decision."""
        parts = _SECTION.split(self.text)
        return dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))


@cache
def load_prompt(package: str, name: str) -> PromptFile:
    """``<package>/<name>.txt``; a file without a version line is an error."""
    text = files(package).joinpath(f"{name}.txt").read_text(encoding="utf-8")
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


def chat(prompt: PromptFile, values: Mapping[str, str]) -> list[dict[str, str]]:
    """System + user messages from a template's ``system`` and ``user`` sections."""
    sections = prompt.sections
    return [
        {"role": "system", "content": fill(sections["system"], values)},
        {"role": "user", "content": fill(sections["user"], values)},
    ]
