"""MkDocs hook: every code name the docs write in backticks still exists.

A page that names ``collabrl.x.y`` (a module, or a name inside one, or an entry-point group) or a
repository path such as ``collabrl/envs/base.py`` inside inline code or a fenced block is checked
against the code and the checkout; ``from collabrl.m import a, b`` checks ``a`` and ``b`` too. A
name that no longer resolves is a warning, which ``mkdocs build --strict`` turns into a failure,
so a renamed function cannot leave the manual describing it. ``tests/docs`` runs the same check on
the Markdown files outside the site (README, CONTRIBUTING, benchmarks/README.md).
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import logging
import re
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: paths in the docs are relative to it."""

CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.S)
"""A fenced block (its body) or an inline code span."""
DOTTED = re.compile(r"(?<![\w./-])collabrl(?:\.[A-Za-z_]\w*)+")
FROM_IMPORT = re.compile(r"from (collabrl(?:\.\w+)+) import (?:\(([\w,\s]+)\)|([\w, ]+))")
PATH = re.compile(
    r"(?<![\w./<-])(?:collabrl|examples|benchmarks|scripts|tests|launch|deploy|docs)/[\w./*<>-]*"
)

log = logging.getLogger(f"mkdocs.hooks.{__name__}")


@cache
def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is an importable module, a name inside one, or an entry-point group."""
    if importlib.metadata.entry_points(group=dotted):
        return True
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            target: Any = importlib.import_module(module)
        except ImportError:
            continue
        except Exception:  # a module whose optional extra is missing: read its source instead
            found = defined_at_top(module, parts[cut:])
            if found is None:
                continue
            return found
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def defined_at_top(module: str, names: list[str]) -> bool | None:
    """Whether ``module``'s source defines ``names[0]`` at its top level, for a module that cannot
    be imported here because an optional extra is not installed (deeper names are not followed);
    None where ``module`` is no module file (its parent is what failed to import)."""
    try:
        spec = importlib.util.find_spec(module)
    except Exception:
        return None
    if spec is None or spec.origin is None:
        return None
    if not names:
        return True
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names[0] in defined


def path_exists(path: str) -> bool:
    """Whether a repository path exists (``*`` as a glob); a ``<placeholder>`` path is not checked."""
    path = path.rstrip(".")
    if "<" in path:
        return True
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


def stale_names(markdown: str) -> list[str]:
    """The code names and paths in ``markdown``'s code that no longer exist, in order, once each."""
    stale: dict[str, None] = {}
    for match in CODE.finditer(markdown):
        code = match.group(1) if match.group(1) is not None else match.group(2)
        names = DOTTED.findall(code)
        for module, grouped, inline in FROM_IMPORT.findall(code):
            names += [f"{module}.{name.strip()}" for name in (grouped or inline).split(",")]
        for name in names:
            if not resolves(name.rstrip(".")):
                stale[name] = None
        for path in PATH.findall(code):
            if not path_exists(path):
                stale[path] = None
    return list(stale)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Warn (an error under ``--strict``) for each stale code name on the page."""
    for name in stale_names(markdown):
        log.warning(f"{page.file.src_uri}: `{name}` names code that does not exist")
    return markdown
