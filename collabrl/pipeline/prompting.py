"""Load the pipeline's prompt files and fill their ``$placeholders``.

Why: prompts are data that change more often than code. Each file starts with a
``version: <id>`` line; the id is recorded with every reply, so results stay traceable to the
exact prompt text after it is edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any

import yaml

from collabrl.pipeline.config import PipelineError

PACKAGE = "collabrl.pipeline.prompts"


@dataclass(frozen=True)
class Prompt:
    """One prompt file: its version id and its template body."""

    name: str
    version: str
    body: str

    def render(self, **values: str) -> str:
        """The body with every ``$name`` filled; a missing value is a programming error."""
        return Template(self.body).substitute(values)


@cache
def load_prompt(name: str) -> Prompt:
    """The prompt ``<name>.txt`` shipped in :mod:`collabrl.pipeline.prompts`."""
    resource = files(PACKAGE).joinpath(f"{name}.txt")
    if not resource.is_file():
        raise PipelineError(f"prompt file {name}.txt missing from {PACKAGE}; reinstall collabrl")
    head, _, body = resource.read_text(encoding="utf-8").partition("\n")
    key, _, version = head.partition(":")
    if key.strip() != "version" or not version.strip():
        raise PipelineError(f"prompt file {name}.txt must start with a 'version: <id>' line")
    return Prompt(name, version.strip(), body.strip() + "\n")


def game_context(game: str) -> str:
    """What the judge and summariser prompts say about ``game``: its shipped ``game_<name>.txt``
    when there is one, else the one sentence its section gives for judge prompts (a plug-in)."""
    if files(PACKAGE).joinpath(f"game_{game}.txt").is_file():
        return load_prompt(f"game_{game}").body.strip()
    from collabrl.envs.registry import get_game

    return f"Game: {get_game(game).description}"


@cache
def load_data(name: str) -> dict[str, Any]:
    """A versioned YAML data file (e.g. ``descriptors.yaml``) from the prompts package."""
    resource = files(PACKAGE).joinpath(name)
    data = yaml.safe_load(resource.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or "version" not in data:
        raise PipelineError(f"{name} in {PACKAGE} must be a mapping with a 'version' key")
    return data
