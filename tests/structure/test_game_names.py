"""A game is known to collabrl through its registry entry only: outside a game's own folder, no
module names a registered game. Adding a game must never mean editing the core.

The string literals of every module are read from the source (``ast``; docstrings and comments
are prose and may mention a game). The shipped profile library is each game's own data (its
section's ``profile_source``, inside its folder); the code that builds, loads and perturbs it
names no game.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import collabrl
from collabrl.envs.registry import registered_games

ROOT = Path(collabrl.__file__).resolve().parent
NOT_A_GAME = {"models/corpus.py": {"kitchen"}}  # a room name in the tiny model's word list


def string_literals(path: Path) -> set[str]:
    """Every string constant of a module that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    }


def owned_by_a_game(relative: str, games: dict) -> bool:
    """Inside a game's folder, or a module its registry entry names (its expert, persona, ...)."""
    module = "collabrl." + relative.removesuffix(".py").replace("/", ".")
    for name, section in games.items():
        if relative.startswith(f"envs/{name}/"):
            return True
        addons = (section.expert, section.persona, section.events, section.board, section.speech)
        if any(path and path.partition(":")[0] == module for path in addons):
            return True
    return False


def builtin_games() -> dict:
    return {n: s for n, s in registered_games().items() if s.__module__.startswith("collabrl.")}


def test_no_module_outside_a_game_names_it() -> None:
    games = builtin_games()
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if owned_by_a_game(relative, games):
            continue
        named = sorted(string_literals(path) & set(games) - NOT_A_GAME.get(relative, set()))
        if named:
            offenders.append(f"{relative}: {', '.join(named)}")
    assert offenders == []


def test_no_web_page_names_a_game() -> None:
    """The pages (HTML, scripts, styles) draw boards by kind and show what the server sends;
    they hold no game name at all, not even in comments."""
    offenders = []
    for path in sorted((ROOT / "web" / "static").iterdir()):
        text = path.read_text(encoding="utf-8")
        named = sorted(g for g in builtin_games() if re.search(rf"\b{g}\b", text, re.IGNORECASE))
        if named:
            offenders.append(f"web/static/{path.name}: {', '.join(named)}")
    assert offenders == []
