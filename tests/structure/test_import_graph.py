"""The package's import graph: no circles among its files nor among its top-level packages, and
games at the bottom (they import nothing from the players, training, evaluation or anything else
above them), as the design notes require.

Imports are read from the source (``ast``): module-level, lazy function-level and type-only
(``if TYPE_CHECKING:``) imports all count, relative ones resolved; a type-only import still ties
two files together for a reader and for mypy.
"""

from __future__ import annotations

import ast
from pathlib import Path

import collabrl

ROOT = Path(collabrl.__file__).resolve().parent
GAMES = "collabrl.envs"
GAMES_MAY_IMPORT = (
    "collabrl.envs",
    "collabrl.errors",
    # the settings base every game section builds on (below the games, importing nothing above)
    "collabrl.sections",
    "collabrl.numbers",
    "collabrl.settings_files",
    # file and error-text helpers (layer 0: they import only errors and the version)
    "collabrl.records",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def owner(name: str) -> str | None:
    """The package module that ``name`` (a module or a name inside one) belongs to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(path: Path) -> set[str]:
    return imports_in(path.read_text(encoding="utf-8"), path)


def imports_in(source: str, path: Path) -> set[str]:
    """The package modules that ``source`` (the text of the file at ``path``) imports."""
    tree = ast.parse(source)
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            names += [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return {owner(n) for n in names if n.startswith("collabrl")} - {None}


GRAPH = {name: imports_of(path) - {name} for name, path in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read_from_the_source() -> None:
    """Guards the checks below against an empty graph (e.g. a broken walk)."""
    assert len(MODULES) > 100
    assert "collabrl.envs.base" in GRAPH["collabrl.envs.household.game"]
    assert "collabrl.training.lockstep" in GRAPH["collabrl.training.loop"]


def top_package(module: str) -> str:
    """``collabrl.eval.cli`` -> ``eval``; a top-level module is its own (``cli``)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else pieces[0]


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which top-level package imports which (the root ``collabrl`` package left out)."""
    out: dict[str, set[str]] = {}
    for module, imported_set in graph.items():
        if module == "collabrl":
            continue
        out.setdefault(top_package(module), set())
        for imported in imported_set - {"collabrl"}:
            if top_package(imported) != top_package(module):
                out[top_package(module)].add(top_package(imported))
    for package in {p for targets in out.values() for p in targets} - out.keys():
        out[package] = set()
    return out


def test_no_import_circles() -> None:
    assert cycles(GRAPH) == []


def test_no_circles_among_the_top_level_packages() -> None:
    """E.g. ``eval`` and ``report`` share a layer; one of them may use the other, not both."""
    assert cycles(package_graph(GRAPH)) == []


def test_type_only_and_relative_imports_are_read() -> None:
    """A circle closed only by an ``if TYPE_CHECKING:`` import, or a relative one, is found."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from collabrl.envs.base import Game\n"
        "def f():\n"
        "    from .report import summary_table\n"
        "    from ..records import write_text\n"
    )
    inside = ROOT / "eval" / "new_module.py"  # where the text would stand; never written
    assert imports_in(source, inside) == {
        "collabrl.envs.base",
        "collabrl.eval.report",
        "collabrl.records",
    }


def test_games_import_nothing_from_above_them() -> None:
    upward = {
        (module, imported)
        for module, imported_set in GRAPH.items()
        if module.startswith(GAMES)
        for imported in imported_set
        if not imported.startswith(GAMES_MAY_IMPORT)
    }
    assert upward == set()


def test_the_checks_catch_what_they_look_for() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert cycles(graph) == [["a", "b", "c"]]
