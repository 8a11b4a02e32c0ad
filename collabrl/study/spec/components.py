"""Custom page components: a study adds a question kind of its own without editing collabrl.

A component is two files next to the study file, declared under ``components:``::

    components:
      confidence_slider:
        script: components/confidence_slider.js     # the page side (an ES module)
        server: components/confidence_slider.py:ConfidenceSlider  # the server side

and used in a survey as ``{id: guess, kind: component, component: confidence_slider, config:
{...}}``. The page script exports ``render(box, question)`` that draws the component into the
question's box and returns an object whose ``value()`` is the answer (null: none yet). The
server class (instantiated once, without arguments) has:

- ``check_config(config) -> None``: raise ValueError when a question's ``config`` is wrong
  (lint runs it for every question using the component);
- ``validate(value, config) -> answer``: the answer as stored, or ValueError with the words the
  page shows beside the question (a scripted client can send anything: only what this returns
  is kept, and exported: a mapping becomes one column per key);
- ``sample(rng, config) -> answer``: a valid answer for simulated participants (pretests).

Lint refuses a component without its server class, a class without these methods, a script that
is not a ``.js`` file next to the study, and a question naming an undeclared component. The
server class runs in the study server, like the study's own code: only load files you wrote.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from collabrl.errors import RecipeError
from collabrl.sections import Strict

REQUIRED = ("check_config", "validate", "sample")
"""The methods a component's server class must have."""


class ComponentSpec(Strict):
    """A custom page component: its page script and its server-side class."""

    script: str = Field(pattern=r"\.js$")
    """The page side: an ES module (path relative to the study file) exporting render(box,
    question)."""
    server: str | None = None
    """The server side: FILE.py:CLASS (relative to the study file), whose check_config,
    validate and sample methods check and simulate answers."""


@dataclass(frozen=True)
class Component:
    """A loaded component: its page script and an instance of its server class."""

    name: str
    script: Path
    server: Any

    def validate(self, value: Any, config: dict[str, Any]) -> Any:
        """The stored answer; raises ValueError (the page's words) for an invalid one."""
        return self.server.validate(value, config)

    def sample(self, rng: Any, config: dict[str, Any]) -> Any:
        return self.server.sample(rng, config)


def inside(folder: Path, relative: str, what: str) -> Path:
    """``folder/relative``, refusing a path that leaves ``folder`` (RecipeError)."""
    path = (folder / relative).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise RecipeError(f"{what}: {relative!r} is outside the study's folder")
    if not path.is_file():
        raise RecipeError(f"{what}: no file {relative!r} next to the study file")
    return path


def _server_class(folder: Path, name: str, server: str) -> type:
    """The class ``FILE.py:CLASS`` names, imported from the study's folder."""
    file, _, attribute = server.partition(":")
    where = f"components.{name}.server"
    if not file.endswith(".py") or not attribute:
        raise RecipeError(f"{where}: {server!r} is not FILE.py:CLASS")
    path = inside(folder, file, where)
    module_name = f"collabrl_study_component_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None  # a .py file that exists
    module = importlib.util.module_from_spec(spec)
    try:
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    except Exception as exc:  # the researcher's file: any error is theirs, said in one line
        raise RecipeError(f"{where}: {file} fails to import: {type(exc).__name__}: {exc}") from None
    found = getattr(module, attribute, None)
    if not isinstance(found, type):
        raise RecipeError(f"{where}: {file} has no class {attribute!r}")
    return found


def load_components(specs: dict[str, ComponentSpec], folder: Path | None) -> dict[str, Component]:
    """Every declared component, loaded and checked; raises RecipeError (one line)."""
    out = {}
    for name, spec in specs.items():
        if folder is None:
            raise RecipeError(f"components.{name}: a shipped study cannot carry components")
        if spec.server is None:
            raise RecipeError(
                f"components.{name}: no server-side schema: give server: FILE.py:CLASS (a class "
                f"with {', '.join(REQUIRED)}) so its answers are checked before they are stored"
            )
        script = inside(folder, spec.script, f"components.{name}.script")
        cls = _server_class(folder, name, spec.server)
        missing = [m for m in REQUIRED if not callable(getattr(cls, m, None))]
        if missing:
            raise RecipeError(
                f"components.{name}: class {cls.__name__} lacks {', '.join(missing)} "
                f"(a component class needs {', '.join(REQUIRED)})"
            )
        try:
            server = cls()
        except Exception as exc:
            raise RecipeError(
                f"components.{name}: {cls.__name__}() fails: {type(exc).__name__}: {exc}"
            ) from None
        out[name] = Component(name, script, server)
    return out


def check_questions(components: dict[str, Component], questions: list[tuple[str, Any]]) -> None:
    """Every component question names a declared component whose class accepts its config and
    whose sample answer it accepts itself; ``questions``: (where, question)."""
    import random

    for where, question in questions:
        component = components.get(question.component)
        if component is None:
            known = ", ".join(components) or "none declared"
            raise RecipeError(
                f"{where}: unknown component {question.component!r} (components: {known})"
            )
        try:
            component.server.check_config(question.config)
            component.validate(component.sample(random.Random(0), question.config), question.config)
        except Exception as exc:
            raise RecipeError(
                f"{where}: component {question.component}: {type(exc).__name__}: {exc}"
            ) from None
