"""The Markdown files of the repository that tests/docs reads, and the docs hook they share."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
SITE_PAGES = sorted((REPO / "docs").glob("*.md"))
"""The manual's pages (the settings page is generated at build time, not committed)."""
OUTSIDE_SITE = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "benchmarks" / "README.md"]
"""Markdown the site does not build, so its strict build does not check it."""


def docs_hook(name: str) -> ModuleType:
    """A hook of ``docs/hooks/`` as a module (the hooks are files MkDocs loads, not a package)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
