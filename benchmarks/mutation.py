"""Mutation testing of the numeric core: does a small wrong change to the maths fail a test?

Each mutant changes one operator, comparison, boolean, constant or min/max inside a function of
the numeric core (GiGPO's advantages, the PPO loss, the reward terms and the training signal,
the analysis game's hypothesis score, CB-Affective's aggregation, the statistics). The script
applies the mutants one at a time and runs the test files that import the mutated module; a
mutant no test notices "survives". The survivors are pinned in ``mutation_survivors.txt``, so a
weakened test shows up as a new survivor and the script exits 1.

Why a mutator of its own: mutmut 3 and cosmic-ray both rerun a copy of the project per mutant or
per session, which costs a torch import each time. Here one process imports the code and its
tests once; each mutant runs in a forked child that swaps the mutated functions' code objects
into the live module (every reference to the function sees the mutant), so a mutant costs only
its tests' run time.

    nice -n 19 python benchmarks/mutation.py                 # all modules; exit 1 on a new survivor
    python benchmarks/mutation.py --list                     # the mutants, nothing run
    python benchmarks/mutation.py collabrl/stats.py          # one module
    nice -n 19 python benchmarks/mutation.py --pin           # rewrite the pinned list

Mutants only touch function bodies: defaults, annotations, docstrings and strings stay as they
are. Keys name the file, the function, the source line's text and the change, so the pinned list
survives edits elsewhere in a file.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import re
import signal
import sys
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SURVIVORS = ROOT / "benchmarks" / "mutation_survivors.txt"
CORE = (
    "collabrl/algos/gigpo.py",
    "collabrl/algos/ppo.py",
    "collabrl/rewards/terms.py",
    "collabrl/training/rewards.py",
    "collabrl/envs/analysis/scoring.py",
    "collabrl/eval/affective.py",
    "collabrl/stats.py",
)
TEST_ROOTS = ("tests", "examples")
NOT_SWAPPED, CRASHED = 90, 91  # a forked child's exit codes when no test could judge the mutant
TIMEOUT_FACTOR, TIMEOUT_FLOOR = 10.0, 120.0  # past this a mutant is killed: an endless loop

BINARY: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Div,
    ast.Pow: ast.Mult,
}
COMPARE: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
BOOLEAN: dict[type, type] = {ast.And: ast.Or, ast.Or: ast.And}
SWAPPED_NAMES = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum"}
SYMBOLS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.And: "and", ast.Or: "or",
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    path: str  # repository-relative
    function: str  # qualified name of the function whose body changes
    line: int
    change: str  # e.g. "< -> <="
    key: str  # stable name: path, function, the line's text, the change (and an ordinal)


def _sites(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Every (node, change) one mutant can make to ``node`` itself."""
    if isinstance(node, ast.BinOp | ast.AugAssign | ast.BoolOp):
        table = BOOLEAN if isinstance(node, ast.BoolOp) else BINARY
        if type(node.op) in table:
            suffix = "=" if isinstance(node, ast.AugAssign) else ""
            before, after = SYMBOLS[type(node.op)], SYMBOLS[table[type(node.op)]]
            yield node, f"{before}{suffix} -> {after}{suffix}"
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            yield node, f"[{i}] {SYMBOLS[type(op)]} -> {SYMBOLS[COMPARE[type(op)]]}"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield node, "drop " + ("not" if isinstance(node.op, ast.Not) else "unary -")
    else:
        yield from _value_sites(node)


def _value_sites(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Constants (a boolean flipped, a number plus one) and min/max swapped."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield node, f"{node.value} -> {not node.value}"
    elif isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        yield node, f"{node.value!r} -> {_bumped(node.value)!r}"
    elif isinstance(node, ast.Name) and node.id in SWAPPED_NAMES:
        yield node, f"{node.id} -> {SWAPPED_NAMES[node.id]}"
    elif isinstance(node, ast.Attribute) and node.attr in SWAPPED_NAMES:
        yield node, f".{node.attr} -> .{SWAPPED_NAMES[node.attr]}"


def _bumped(value: int | float) -> int | float:
    return value + 1


def _apply(node: ast.AST, change: str) -> None:
    """Make ``change`` (one of ``_sites``'s) to ``node`` in place."""
    if isinstance(node, ast.BinOp | ast.AugAssign):
        node.op = BINARY[type(node.op)]()
    elif isinstance(node, ast.Compare):
        i = int(change[1 : change.index("]")])
        node.ops[i] = COMPARE[type(node.ops[i])]()
    elif isinstance(node, ast.BoolOp):
        node.op = BOOLEAN[type(node.op)]()
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        node.value = not node.value
    elif isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        node.value = _bumped(node.value)
    elif isinstance(node, ast.Name):
        node.id = SWAPPED_NAMES[node.id]
    elif isinstance(node, ast.Attribute):
        node.attr = SWAPPED_NAMES[node.attr]


class _Unwrap(ast.NodeTransformer):
    """Replaces one unary operation (``not x``, ``-x``) by its operand."""

    def __init__(self, target: ast.UnaryOp) -> None:
        self.target = target

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        return node.operand if node is self.target else self.generic_visit(node)


def _body_nodes(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(function qualname, node) for every node of every function body, in a fixed order;
    docstrings, annotations, defaults and decorators are not bodies."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                body = child.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                ):
                    body = body[1:]  # the docstring
                for statement in body:
                    for node in _walk_code(statement):
                        yield name, node

    yield from walk(tree, "")


def _walk_code(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` in source order, leaving out annotations, f-string parts and ``strict=``."""
    yield node
    for field, value in ast.iter_fields(node):
        if field in ("annotation", "returns") or isinstance(node, ast.JoinedStr):
            continue
        if isinstance(node, ast.keyword) and node.arg == "strict":
            continue  # zip(..., strict=False) is equivalent whenever the lengths agree
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield from _walk_code(child)


def mutants_of(path: str) -> list[Mutant]:
    source = (ROOT / path).read_text()
    lines = source.splitlines()
    out: list[Mutant] = []
    seen: dict[str, int] = {}
    for function, node in _body_nodes(ast.parse(source)):
        for site, change in _sites(node):
            text = " ".join(lines[site.lineno - 1].split())  # type: ignore[attr-defined]
            base = f"{path}::{function}: {text!r} {change}"
            seen[base] = seen.get(base, 0) + 1
            key = base if seen[base] == 1 else f"{base} #{seen[base]}"
            out.append(Mutant(path, function, site.lineno, change, key))  # type: ignore[attr-defined]
    return out


def mutated_code(path: str, index: int) -> dict[str, types.CodeType]:
    """The code objects (by qualname) of module ``path`` with its ``index``-th mutant applied."""
    source = (ROOT / path).read_text()
    tree = ast.parse(source)
    count, dropped = 0, None
    for _, node in _body_nodes(tree):
        for site, change in _sites(node):
            if count == index:
                if isinstance(site, ast.UnaryOp):
                    dropped = site
                else:
                    _apply(site, change)
            count += 1
    if dropped is not None:
        tree = _Unwrap(dropped).visit(tree)
    code = compile(tree, str(ROOT / path), "exec")
    functions: dict[str, types.CodeType] = {}

    def gather(c: types.CodeType) -> None:
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name not in ("<lambda>", "<genexpr>", "<listcomp>", "<dictcomp>"):
                    functions.setdefault(const.co_qualname, const)
                gather(const)

    gather(code)
    return functions


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _is_function(value: object, qualname: str) -> bool:
    """``value`` is the function named ``qualname`` (not another one's alias)."""
    return isinstance(value, types.FunctionType) and value.__code__.co_qualname == qualname


def swap_in(module: types.ModuleType, code: dict[str, types.CodeType]) -> int:
    """Replace the live functions' code with ``code``; returns how many were swapped."""
    swapped = 0

    def visit(owner: object, prefix: str) -> None:
        nonlocal swapped
        for name, value in list(vars(owner).items()):
            if isinstance(value, property):
                value = value.fget
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            qualname = f"{prefix}{name}"
            if getattr(value, "__module__", None) != module.__name__:
                continue  # imported here, defined elsewhere
            if isinstance(value, type) and value.__qualname__ == qualname:
                visit(value, f"{qualname}.")
            elif _is_function(value, qualname) and qualname in code:
                value.__code__ = code[qualname]
                swapped += 1

    visit(module, "")
    return swapped


def tests_of(path: str) -> list[str]:
    """The test files that import ``path``'s module (by name), found afresh on each run."""
    name = module_name(path)
    package, _, leaf = name.rpartition(".")
    pattern = re.compile(
        rf"(from {re.escape(name)} import|import {re.escape(name)}\b"
        rf"|from {re.escape(package)} import [^\n]*\b{leaf}\b)"
    )
    found = []
    for root in TEST_ROOTS:
        for test in sorted((ROOT / root).rglob("test_*.py")):
            if pattern.search(test.read_text()):
                found.append(str(test.relative_to(ROOT)))
    return found


def run_tests(tests: list[str], code: dict[str, types.CodeType] | None, module: str,
              timeout: float) -> str:  # fmt: skip
    """Run ``tests`` in a forked child with ``code`` swapped into ``module``: "passed",
    "failed" or "timeout"."""
    import pytest

    pid = os.fork()
    if pid == 0:  # the child
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            if code is not None and swap_in(importlib.import_module(module), code) == 0:
                os._exit(NOT_SWAPPED)
            args = ["-x", "-q", "-n", "0", "-p", "no:cacheprovider", *tests]  # the fast subset
            os._exit(int(pytest.main(args)))
        except BaseException:
            os._exit(CRASHED)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code_ = os.waitstatus_to_exitcode(status)
            if code_ in (NOT_SWAPPED, CRASHED, int(pytest.ExitCode.NO_TESTS_COLLECTED)):
                raise RuntimeError(f"{module}: the test run itself broke (exit {code_})")
            return "passed" if code_ == 0 else "failed"
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.02)


def _collect(tests: list[str]) -> None:
    """Import the test files here, once, so that each forked child finds them imported."""
    import pytest

    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        pytest.main(["--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", *tests])
    finally:
        os.dup2(saved, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=list(CORE), help="modules (default: the core)")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--pin", action="store_true", help=f"rewrite {SURVIVORS.name}")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    unknown = [p for p in args.paths if p not in CORE]
    if unknown:
        parser.error(
            f"not in the numeric core: {', '.join(unknown)} (choose from {', '.join(CORE)})"
        )
    if args.list:
        for path in args.paths:
            for m in mutants_of(path):
                print(m.key)
        return 0

    survivors, totals = [], dict.fromkeys(OUTCOMES, 0)
    for path in args.paths:
        counts, survived = run_module(path)
        if counts is None:
            return 2
        survivors += survived
        for k, v in counts.items():
            totals[k] += v
    print(f"total: {_counts(totals)}")
    return compare_with_pinned(args.paths, survivors, pin=args.pin)


OUTCOMES = {"failed": "killed", "timeout": "timed out", "passed": "survived"}


def _counts(counts: dict[str, int]) -> str:
    return f"{sum(counts.values())} mutants, " + ", ".join(
        f"{counts[k]} {word}" for k, word in OUTCOMES.items()
    )


def run_module(path: str) -> tuple[dict[str, int] | None, list[str]]:
    """Run every mutant of ``path``: the counts by test result and the survivors' keys (counts
    None when the module's tests fail unmutated)."""
    tests, module = tests_of(path), module_name(path)
    importlib.import_module(module)
    _collect(tests)
    start = time.monotonic()
    if not tests or run_tests(tests, None, module, 1e9) != "passed":
        print(f"{path}: its tests ({len(tests)} files) do not pass unmutated", file=sys.stderr)
        return None, []
    timeout = max(TIMEOUT_FLOOR, TIMEOUT_FACTOR * (time.monotonic() - start))
    counts, survivors = dict.fromkeys(OUTCOMES, 0), []
    for index, m in enumerate(mutants_of(path)):
        result = run_tests(tests, mutated_code(path, index), module, timeout)
        counts[result] += 1
        if result == "passed":
            survivors.append(m.key)
    print(f"{path}: {_counts(counts)} ({len(tests)} test files)", flush=True)
    return counts, survivors


def compare_with_pinned(paths: list[str], survivors: list[str], *, pin: bool) -> int:
    """Exit status: 1 when a mutant survives that the pinned list does not hold (with ``pin``,
    the list is rewritten instead)."""
    checked = set(paths)
    pinned = [k for k in _pinned() if k.split("::", 1)[0] in checked]
    if pin:
        kept = [k for k in _pinned() if k.split("::", 1)[0] not in checked]
        SURVIVORS.write_text(_header() + "".join(f"{k}\n" for k in sorted(kept + survivors)))
        print(f"pinned {len(survivors)} survivors in {SURVIVORS.relative_to(ROOT)}")
        return 0
    for key in sorted(set(pinned) - set(survivors)):
        print(f"now killed (unpin it with --pin): {key}")
    new = sorted(set(survivors) - set(pinned))
    for key in new:
        print(f"NEW SURVIVOR: {key}")
    return 1 if new else 0


def _header() -> str:
    return (
        "# Mutants of the numeric core that no test kills (benchmarks/mutation.py --pin writes\n"
        "# this file). Each is equivalent or accepted; a survivor not listed fails the script.\n"
    )


def _pinned() -> list[str]:
    if not SURVIVORS.exists():
        return []
    return [line for line in SURVIVORS.read_text().splitlines() if line and line[0] != "#"]


if __name__ == "__main__":
    sys.exit(main())
