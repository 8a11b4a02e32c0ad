"""The package's import graph: no circles, and games at the bottom (they import nothing from the
players, training, evaluation or anything else above them), as the design notes require.

Imports are read from the source (``ast``), lazy function-level imports included; imports under
``if TYPE_CHECKING:`` are only type hints and are left out.
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


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of import nodes inside ``if TYPE_CHECKING:`` blocks."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            out |= {id(n) for child in node.body for n in ast.walk(child)}
    return out


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hints = type_checking_nodes(tree)
    names = []
    for node in ast.walk(tree):
        if id(node) in hints:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
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


def test_no_import_circles() -> None:
    assert cycles(GRAPH) == []


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
