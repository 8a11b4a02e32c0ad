"""Reading small settings files (recipes, evaluation settings) safely.

Every way such a file can be unusable is a one-line :class:`RecipeError` naming it: not a regular
file, unreadable, too big, binary, not UTF-8, not YAML, empty, or built to blow up: a "billion
laughs" document (nested YAML aliases) or exponentially chained ``${...}`` interpolations, which
PyYAML and OmegaConf would expand without limit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from collabrl.errors import RecipeError

# Bounds on recipe and settings files: real ones are a few KB with a handful of levels and no
# aliases, so anything past these is the wrong file or a deliberate blow-up.
MAX_FILE_BYTES = 1 << 20  # 1 MiB
MAX_YAML_VALUES = 100_000  # values after expanding YAML aliases (a recipe has a few hundred)
MAX_YAML_DEPTH = 50  # nesting levels (a recipe has about five)
MAX_RESOLVED_SIZE = 1_000_000  # values + characters of interpolated strings after ``${...}``


def clip(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, so that a hostile value cannot flood an error line."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def read_text_file(path: Path, what: str) -> str:
    """The UTF-8 text of a small settings file; ``what`` names its kind (``"a recipe"``).

    Every way the file can be unusable (a directory, a FIFO or device that could block or never
    end, no permission, too big, binary, another encoding) is a one-line RecipeError naming it.
    """
    try:
        if path.is_dir():
            raise RecipeError(f"{path}: is a directory, not {what} file")
        if not path.is_file():
            raise RecipeError(f"{path}: is not a regular file; give {what} YAML file")
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise RecipeError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise RecipeError(
            f"{path}: is larger than {MAX_FILE_BYTES >> 10} KiB; {what} file is a few KB of YAML"
        )
    if b"\0" in data:
        raise RecipeError(f"{path}: is a binary file, not {what} YAML file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecipeError(
            f"{path}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from None


def _yaml_size(
    node: yaml.Node, where: str, seen: dict[int, tuple[int, int] | None]
) -> tuple[int, int]:
    """(values, depth) of ``node`` once every alias in it is expanded.

    An alias is the very node object it names, so each node is measured once: linear time even
    for a document that would expand to 10**9 values.
    """
    key = id(node)
    if key in seen:
        measured = seen[key]
        if measured is None:
            raise RecipeError(f"{where}: a YAML alias refers to a node that contains it")
        return measured
    seen[key] = None
    if isinstance(node, yaml.MappingNode):
        children = [child for pair in node.value for child in pair]
    else:
        children = node.value if isinstance(node, yaml.SequenceNode) else []
    values, depth = 1, 1
    for child in children:
        child_values, child_depth = _yaml_size(child, where, seen)
        values, depth = values + child_values, max(depth, child_depth + 1)
    if depth > MAX_YAML_DEPTH:
        raise RecipeError(f"{where}: YAML nested deeper than {MAX_YAML_DEPTH} levels")
    if values > MAX_YAML_VALUES:
        raise RecipeError(
            f"{where}: YAML holds more than {MAX_YAML_VALUES} values once its aliases are "
            "expanded (a 'billion laughs' document?); write the values out"
        )
    seen[key] = (values, depth)
    return values, depth


def load_yaml(text: str, where: str) -> Any:
    """One YAML document, bounded: PyYAML has no limit of its own, and a few hundred bytes of
    nested aliases expand to 10**9 values when OmegaConf copies them. Syntax errors stay
    ``yaml.YAMLError``; bounds and unconvertible values are RecipeErrors."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _yaml_size(node, where, {})
        return loader.construct_document(node)
    except RecursionError:
        raise RecipeError(f"{where}: YAML nested deeper than {MAX_YAML_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        reason = str(exc).split(";")[0]  # not the advice to raise Python's own limit
        raise RecipeError(f"{where}: {clip(reason, 120)}") from None
    finally:
        loader.dispose()


def parse_yaml(text: str, where: str) -> Any:
    """``load_yaml`` with syntax errors as one-line RecipeErrors (line and column when known)."""
    try:
        return load_yaml(text, where)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise RecipeError(f"{where}: not valid YAML{at}: {clip(problem, 160)}") from None


def yaml_mapping(text: str, where: str, what: str) -> dict[Any, Any]:
    """The mapping a settings file holds; an empty file is an error, not "all defaults"."""
    data = parse_yaml(text, where)
    if data is None:
        raise RecipeError(f"{where}: is empty; {what} needs at least one key")
    if not isinstance(data, dict):
        raise RecipeError(f"{where}: {what} must be a mapping of keys to values")
    return data


_INTERPOLATION = re.compile(r"\$\{[^}]*\}")
_REFERENCE = re.compile(r"\.*[A-Za-z_][\w-]*(?:\.[\w-]+|\[\d+\])*")
_MISSING = object()


def _at(root: Any, path: tuple[Any, ...]) -> Any:
    """The value at ``path`` (dict keys, list indices; digits index lists), or ``_MISSING``."""
    for part in path:
        if isinstance(root, list) and str(part).isdigit() and int(part) < len(root):
            root = root[int(part)]
        elif isinstance(root, dict) and part in root:
            root = root[part]
        else:
            return _MISSING
    return root


def _references(root: Any, path: tuple[Any, ...], text: str) -> list[tuple[Any, ...]]:
    """Existing key paths that the ``${...}`` of the string at ``path`` may name: absolute, or
    relative (``${.sibling}``, ``${..uncle}``). Over-approximated: every key-like token counts."""
    targets = []
    for interpolation in _INTERPOLATION.findall(text):
        for token in _REFERENCE.findall(interpolation):
            dots = len(token) - len(token.lstrip("."))
            base = path[: len(path) - dots] if dots else ()
            target = (*base, *(k for k in re.split(r"[.\[\]]+", token) if k))
            if target != path and _at(root, target) is not _MISSING:
                targets.append(target)
    return targets


def _resolved_size(root: Any, path: tuple[Any, ...], sizes: dict, where: str) -> int:
    """Upper bound of values + interpolated characters that ``path`` resolves to."""
    if path in sizes:
        return sizes[path]
    sizes[path] = 0  # a cycle adds nothing here; OmegaConf reports it when resolving
    value = _at(root, path)
    if isinstance(value, dict | list):
        keys = value if isinstance(value, dict) else range(len(value))
        size = 1 + sum(_resolved_size(root, (*path, k), sizes, where) for k in keys)
    elif isinstance(value, str) and "${" in value:
        targets = _references(root, path, value)
        size = len(value) + sum(_resolved_size(root, t, sizes, where) for t in targets)
    else:
        size = 1
    if size > MAX_RESOLVED_SIZE:
        raise RecipeError(
            f"{where}: ${{...}} interpolations would expand past {MAX_RESOLVED_SIZE} values and "
            f"characters (at {'.'.join(map(str, path)) or 'the top'}); reference less"
        )
    sizes[path] = size
    return size


def resolve_bounded(config: Any, where: str) -> Any:
    """``config`` with ``${...}`` resolved, as plain dicts and lists.

    OmegaConf expands interpolations without limit: ``b: ${a}${a}``, ``c: ${b}${b}``, ... grows
    exponentially and hangs. An upper bound of the result is computed first (every key a
    reference names counts in full each time) and refused past MAX_RESOLVED_SIZE.
    """
    try:
        raw = OmegaConf.to_container(config, resolve=False)
        _resolved_size(raw, (), {}, where)
        return OmegaConf.to_container(config, resolve=True)
    except RecursionError:
        raise RecipeError(f"{where}: values nested or interpolations chained too deeply") from None
