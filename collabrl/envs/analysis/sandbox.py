"""Real pandas cells for LLM seats, each in a throwaway subprocess. OFF BY DEFAULT.

The analysis game's steps are the analysis language (:mod:`collabrl.envs.analysis.language`),
which evaluates nothing. Only when a game section turns its option on may LLM seats send real
pandas code instead; :func:`run_code` runs one such cell and is never called otherwise.

What a cell gets: a fresh interpreter (``sys.executable -I``: no ``PYTHON*`` variables, no user
site-packages, an environment holding nothing of the caller's) whose working directory is a new
temporary folder holding only the task's tables; each table as a DataFrame named like the table,
``pd`` and ``np``. The cell runs like a notebook cell: what it prints, then the value of its last
expression, is the result's text (at most ``output_chars`` characters). Nothing persists from one
cell to the next.

What it may not do (each refusal ends the cell with the result's ``error``):

- run longer than ``time_s`` (a timer interrupts Python code; a CPU limit and a wall-clock kill
  stop anything else);
- use more than ``memory_mb`` MB on top of the interpreter and pandas (RLIMIT_AS);
- write a file over 1 MB or hold more than 32 files open (RLIMIT_FSIZE, RLIMIT_NOFILE);
- open, list, rename, delete or change anything outside its folder, except reading the Python
  modules of the standard library and the installed packages (``import`` works; data files there,
  such as shipped tasks and their answers, stay closed);
- use the network (``socket`` functions replaced, every ``socket.*`` audit event refused);
- start programs or processes (``subprocess``, ``os.system``, ``os.exec*``, ``os.spawn*``,
  ``os.posix_spawn``, ``os.fork``), load C libraries (``ctypes``) or change its limits.

This is a best-effort sandbox for a research tool, NOT a security boundary: audit hooks
(:func:`sys.addaudithook`) and in-process guards stop honest mistakes and casual misuse by a
model, not a determined attacker, who can reach CPython's internals from inside. Where that
matters, run the whole game in a container or VM without network. Linux only (``resource``
limits, ``/proc``); elsewhere :func:`run_code` refuses to run.

This file is also the child's program: the parent runs it as a script, so the child imports
neither collabrl nor anything of the caller's.
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

START_S = 10.0
"""Seconds allowed for the child's start (interpreter, pandas, tables) on top of ``time_s``
before the parent kills it."""
FILE_BYTES = 1 << 20  # largest file a cell may write (RLIMIT_FSIZE)
OPEN_FILES = 32  # RLIMIT_NOFILE
PRELOADED = ("collections", "datetime", "functools", "itertools", "math", "re", "statistics")
"""Modules imported before the guards, beside pandas and numpy (a cell's first import of them
costs nothing)."""
_TRUNCATED = "\n…[output truncated]"


@dataclass(frozen=True)
class SandboxResult:
    """What a cell printed and returned, why it failed (None when it ran), and its wall time."""

    text: str
    error: str | None
    seconds: float


def run_code(
    code: str,
    tables: Mapping[str, pd.DataFrame],
    *,
    time_s: float = 5,
    memory_mb: int = 512,
    output_chars: int = 2000,
) -> SandboxResult:
    """Run one pandas cell in a fresh, limited subprocess (see the module docstring)."""
    if time_s <= 0 or memory_mb <= 0 or output_chars < len(_TRUNCATED):
        raise ValueError("time_s and memory_mb must be positive, output_chars at least 20")
    start = time.perf_counter()
    if not sys.platform.startswith("linux"):
        return SandboxResult("", "the pandas sandbox runs on Linux only", 0.0)
    request = {
        "code": code,
        "tables": list(tables),
        "time_s": time_s,
        "memory_mb": memory_mb,
        "output_chars": output_chars,
    }
    with tempfile.TemporaryDirectory(prefix="collabrl-cell-", ignore_cleanup_errors=True) as folder:
        for name, table in tables.items():
            if not name.isidentifier():
                raise ValueError(f"a table name must be an identifier, got {name!r}")
            table.to_pickle(os.path.join(folder, f"{name}.pkl"))
        text, error = _launch(folder, json.dumps(request), time_s)
    return SandboxResult(text, error, time.perf_counter() - start)


def _child_env() -> dict[str, str]:
    """The child's whole environment: nothing of the caller's (no keys, no tokens), one thread
    for the maths libraries (their thread pools would reserve memory the limit counts)."""
    one = dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")
    return {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **one}


def _launch(folder: str, request: str, time_s: float) -> tuple[str, str | None]:
    """Start the child in ``folder``, hand it the request, wait at most ``time_s + START_S``."""
    child = subprocess.Popen(
        [sys.executable, "-I", "-X", "utf8", os.path.abspath(__file__)],
        cwd=folder,
        env=_child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, killed as a whole
    )
    try:
        out, err = child.communicate(request.encode(), timeout=time_s + START_S)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return "", f"time limit: killed after {time_s:g} s (+{START_S:g} s to start)"
    return _reply(child.returncode, out, err, time_s)


def _decoded(out: bytes) -> tuple[str, str | None] | None:
    """The (text, error) the child wrote as its last act, or None when it wrote none (it was
    killed, or crashed before answering)."""
    try:
        reply = json.loads(out)
        return str(reply["text"]), reply["error"]
    except (ValueError, KeyError, TypeError):
        return None


def _reply(code: int, out: bytes, err: bytes, time_s: float) -> tuple[str, str | None]:
    """The child's (text, error), or why it gave none."""
    reply = _decoded(out)
    if reply is not None:
        return reply
    if code == -signal.SIGXCPU:
        return "", f"time limit: killed at the CPU limit ({time_s:g} s and a second)"
    if code < 0:
        return "", f"the cell was killed ({signal.Signals(-code).name})"
    lines = err.decode(errors="replace").strip().splitlines() or [f"exit status {code}"]
    return "", f"the sandbox failed: {lines[-1][:300]}"


# ------------------------------------------------------------------------------- the child
class _TimeUp(BaseException):
    """Raised by the timer inside the cell: a BaseException, so ``except Exception`` in the
    cell does not swallow it."""


class _Capped(io.StringIO):
    """Keeps the first ``limit`` characters written and counts the rest: a printing loop
    cannot fill the memory, and the reply stays small."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.total = 0

    def write(self, s: str) -> int:
        room = self.limit - self.total
        if room > 0:
            super().write(s[:room])
        self.total += len(s)
        return len(s)


def _child_main() -> None:
    """The child: read the request, load the tables, set the limits and guards, run the cell,
    write the reply to the saved stdout."""
    request = json.loads(sys.stdin.read())
    folder = os.path.realpath(os.getcwd())
    namespace: dict[str, Any] = {"__name__": "__cell__", "__builtins__": __builtins__}
    for name in request["tables"]:
        namespace[name] = pd.read_pickle(os.path.join(folder, f"{name}.pkl"))
    namespace.update(pd=pd, np=np)
    for module in PRELOADED:
        __import__(module)
    pd.set_option("display.max_rows", 30)
    pd.set_option("display.width", 100)
    reply = _quiet_standard_streams()
    _limit(request["memory_mb"], request["time_s"])
    _guard(folder)
    text, error = _run_cell(
        request["code"], namespace, request["time_s"], request["memory_mb"], request["output_chars"]
    )
    data = json.dumps({"text": text, "error": error}).encode()
    while data:
        data = data[os.write(reply, data) :]


def _quiet_standard_streams() -> int:
    """Point fds 1 and 2 at /dev/null (a cell writing to them directly is lost, not mixed into
    the reply) and return a private copy of the real stdout for the reply."""
    reply = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    return reply


def _vm_bytes() -> int:
    """The process's virtual size now (``VmSize``), what RLIMIT_AS counts."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _limit(memory_mb: int, time_s: float) -> None:
    """Resource limits counted from now, so that the interpreter and pandas are not the cell's:
    memory on top of the current size, CPU on top of the CPU used so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + time_s) + 1
    memory = _vm_bytes() + memory_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_REFUSED_EVENTS = frozenset(
    {
        "os.system",
        "os.exec",
        "os.spawn",
        "os.posix_spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "os.chdir",
        "os.chroot",
        "pty.spawn",
        "subprocess.Popen",
        "resource.setrlimit",
        "resource.prlimit",
        "sys.addaudithook",
    }
)
_REFUSED_PREFIXES = ("socket.", "ctypes.", "_ctypes.")
_PATH_EVENTS = frozenset(
    {
        "os.listdir",
        "os.scandir",
        "glob.glob",
        "glob.glob/2",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.link",
        "os.symlink",
        "os.chmod",
        "os.chown",
        "os.truncate",
        "os.utime",
        "os.chflags",
        "os.mkfifo",
        "os.mknod",
        "os.setxattr",
        "os.removexattr",
        "shutil.rmtree",
        "shutil.copyfile",
        "shutil.copytree",
        "shutil.move",
    }
)
_LISTING = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.glob/2"})
_MODULE_SUFFIXES = (".py", ".pyc", ".so")
_REFUSED_MODULES = frozenset({"_posixsubprocess", "_ctypes"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _guard(folder: str) -> None:
    """No network, no programs, no reach beyond ``folder``: the in-process stand-ins first,
    then the audit hook (which cannot be removed once added)."""
    _disarm_modules()
    sys.addaudithook(_audit_hook(folder))


def _disarm_modules() -> None:
    """Replace the socket functions and subprocess's fork_exec (which raises no audit event)
    with functions that refuse, and forget the C modules behind them."""
    import socket

    no_network = _refuser("sandbox: the network is off")

    class NoSocket(socket.socket):  # a class still, so that ssl can subclass it
        __init__ = no_network

    socket.socket = NoSocket  # type: ignore[misc]
    for name in ("create_connection", "create_server", "socketpair", "fromfd", "getaddrinfo"):
        setattr(socket, name, no_network)
    for name in ("gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
        setattr(socket, name, no_network)
    no_programs = _refuser("sandbox: starting programs is off")
    subprocess._fork_exec = subprocess._posixsubprocess = no_programs  # type: ignore[attr-defined]
    for module in _REFUSED_MODULES:
        sys.modules.pop(module, None)


def _audit_hook(folder: str) -> Callable[[str, tuple[Any, ...]], None]:
    """The hook refusing every event the module docstring lists; reading and listing are also
    allowed in the libraries' folders (``roots``), for imports."""
    paths = sysconfig.get_paths()
    roots = tuple(
        sorted({os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib")})
    )

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            _check_open(args, folder, roots)
        elif event in _PATH_EVENTS:
            readable = roots if event in _LISTING else ()
            for arg in args:
                if isinstance(arg, (str, bytes, os.PathLike)) and not _inside(
                    arg, folder, readable
                ):
                    raise PermissionError(f"sandbox: {event} outside the cell's folder")
        elif event == "import" and args[0] in _REFUSED_MODULES:
            raise PermissionError(f"sandbox: import of {args[0]} is not allowed")
        elif event in _REFUSED_EVENTS or event.startswith(_REFUSED_PREFIXES):
            raise PermissionError(f"sandbox: {event} is not allowed")

    return hook


def _refuser(message: str) -> Any:
    """A stand-in for a forbidden function: raises PermissionError(message) when called."""

    def refuse(*_args: object, **_kwargs: object) -> Any:
        raise PermissionError(message)

    return refuse


def _check_open(args: tuple[Any, ...], folder: str, roots: tuple[str, ...]) -> None:
    """Anything inside ``folder``; outside it, only reading a Python module of the libraries."""
    path, mode, flags = args
    if isinstance(path, int):  # an fd the cell already holds
        return
    writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & _WRITE_FLAGS)
    module = not writes and os.fsdecode(path).endswith(_MODULE_SUFFIXES)
    if not _inside(path, folder, roots if module else ()):
        raise PermissionError(f"sandbox: no access to {os.fsdecode(path)[:120]!r}")


def _inside(path: Any, folder: str, roots: tuple[str, ...] = ()) -> bool:
    """Whether ``path`` (symlinks resolved) lies in ``folder`` or one of ``roots``."""
    try:
        real = os.path.realpath(os.fsdecode(os.fspath(path)))
    except (TypeError, ValueError, OSError):
        return False
    return any(real == top or real.startswith(top + os.sep) for top in (folder, *roots))


def _run_cell(
    code: str, namespace: dict[str, Any], time_s: float, memory_mb: int, output_chars: int
) -> tuple[str, str | None]:
    """Run ``code`` like a notebook cell (all statements, then the last expression's value
    shown) under the timer; (text, error)."""
    out = _Capped(output_chars)
    error = None

    def time_up(_signum: int, _frame: object) -> None:
        raise _TimeUp

    signal.signal(signal.SIGALRM, time_up)
    signal.setitimer(signal.ITIMER_REAL, time_s)
    try:
        with redirect_stdout(out), redirect_stderr(out):
            value = _execute(code, namespace)
            if value is not None:
                print(repr(value), file=out)
    except _TimeUp:
        error = f"time limit: stopped after {time_s:g} s"
    except MemoryError:
        error = f"MemoryError: over the memory limit ({memory_mb} MB)"
    except BaseException as exc:  # the cell's own failure, SystemExit and KeyboardInterrupt too
        error = _describe(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    text = out.getvalue().rstrip("\n")
    if out.total > output_chars:
        text = text[: output_chars - len(_TRUNCATED)] + _TRUNCATED
    return text, error


def _execute(code: str, namespace: dict[str, Any]) -> Any:
    """Exec every statement but a final expression, then eval that one and return its value."""
    tree = ast.parse(code, "<cell>", "exec")
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        tree.body.pop()
    exec(compile(tree, "<cell>", "exec"), namespace)
    if not isinstance(last, ast.Expr):
        return None
    return eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)


def _describe(exc: BaseException) -> str:
    """One line: the exception, its message and the cell's line where it happened."""
    line = exc.lineno if isinstance(exc, SyntaxError) else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<cell>":
            line = tb.tb_lineno
        tb = tb.tb_next
    said = exc.msg if isinstance(exc, SyntaxError) else exc  # its str repeats the line
    message = " ".join(f"{type(exc).__name__}: {said}".split())[:300]
    return f"{message} (line {line})" if line else message


if __name__ == "__main__":
    _child_main()
