"""Write lists of records twice: JSONL (greppable, dependency-free) and an HF dataset on disk; read
JSONL back.

The HF copy (``datasets.load_from_disk``) is what analysis notebooks, SFT tools and reward-model
work load. Fields named in ``json_fields`` are stored as JSON strings so records whose nested parts
differ in shape (e.g. the two games' summaries) still share one Arrow schema.

Encoding rule: every JSON line is ASCII (``ensure_ascii``), so each non-ASCII character is a
``\\uXXXX`` escape. Why: generated text may hold U+2028 or U+0085 (which ``str.splitlines`` and
other tools treat as line breaks) or a lone surrogate (which UTF-8 cannot encode); escaped, any
line splitter and any UTF-8 decoder reads the file and every string round-trips exactly. Arrow
strings are UTF-8 too, so the HF copy stores a lone surrogate outside ``json_fields`` as U+FFFD;
the JSONL copy keeps the exact text.

Writing rule: a killed writer never leaves half a file or half a set of files. One file is
written at a temporary name and renamed over the old one (:func:`atomic_open`). A command that
writes several outputs (``collabrl eval``, ``collabrl demos``, a profile-pipeline stage) writes
them as one set with :func:`output_set`: into a staging folder first, then renamed into place
under an ``<set>.incomplete`` flag that only a kill during those renames leaves behind. Readers
of such outputs call :func:`check_complete`, which refuses a file whose set carries the flag.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from collabrl.errors import CollabrlError

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def jsonl_line(record: dict[str, Any]) -> str:
    """One record as one line of ASCII JSON, without the newline (the module's encoding rule)."""
    return json.dumps(record, ensure_ascii=True, default=str)


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """One JSON object per line, written atomically (:func:`atomic_open`)."""
    with atomic_open(path) as f:
        for record in records:
            f.write(jsonl_line(record) + "\n")
    return path


def write_text(path: Path, text: str) -> Path:
    """``text`` as UTF-8, written atomically (:func:`atomic_open`)."""
    with atomic_open(path) as f:
        f.write(text)
    return path


@contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A file (text as UTF-8, or binary with ``mode="wb"``) open at ``path.tmp``, renamed over
    ``path`` when the block ends without error and removed when it fails.

    Why: a crash or kill while writing leaves the old ``path`` (or none), never half a new one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def output_set(folder: Path, name: str) -> Iterator[Path]:
    """A staging folder for the outputs of one run; when the block ends without error, everything
    in it replaces its namesakes in ``folder`` together.

    Design: files are written into ``folder/.NAME.partial/`` while nothing in ``folder`` changes,
    so a failure or kill there leaves the previous outputs whole and readable. Then
    ``NAME.incomplete`` (listing the set) is written, each staged entry is renamed into place and
    the flag is removed. Only a kill during those renames leaves a mix of old and new outputs,
    and then the flag stays until a later run of the same command finishes: readers refuse it
    with :func:`check_complete`. (The flag, rather than a marker of completion, lets outputs that
    never came from a staged run, such as demonstrations made by other tools, load as before.)
    """
    staging = folder / f".{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)  # left by a killed run
    staging.mkdir(parents=True)
    try:
        yield staging
        _move_into_place(staging, folder, _flag(folder, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_complete(
    path: Path, name: str, redo: str, error: type[CollabrlError] = CollabrlError
) -> Path:
    """``path``, unless its output set ``name`` (see :func:`output_set`) was left half replaced:
    then one ``error`` saying the run that wrote it did not finish, and ``redo``."""
    flag = _flag(path.parent, name)
    if flag.exists():
        raise error(
            f"{path} is incomplete: the run that wrote it stopped while replacing its outputs "
            f"({flag.name} is still there); {redo}"
        )
    return path


def read_jsonl(path: Path, error: type[CollabrlError] = CollabrlError) -> list[dict[str, Any]]:
    """The records of a JSONL file; any fault is one ``error`` naming ``file:line``."""
    return [record for _, record in parse_jsonl(str(path), read_text(path, error), error)]


def parse_jsonl(
    label: str, text: str, error: type[CollabrlError] = CollabrlError
) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) per non-blank line of ``text``, which came from the file ``label``.

    Lines are split on "\\n" only: ``str.splitlines`` also splits on U+2028, U+0085, \\x1c..., which
    a JSON string may hold unescaped, and so would cut a valid record in two.
    """
    return [
        (number, _object(f"{label}:{number}", line, error))
        for number, line in enumerate(text.split("\n"), 1)
        if line.strip()
    ]


def read_text(path: Path, error: type[CollabrlError] = CollabrlError) -> str:
    """A UTF-8 file's text, newlines untranslated; unreadable or not UTF-8 is one ``error``."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise error(f"{path}: cannot be read ({err.strerror or err})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise error(f"{path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from None


def decode_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ``JSONDecodeError`` with a position.

    Why: a document nested too deeply (RecursionError) or holding an integer longer than Python
    converts (ValueError) would otherwise escape as a traceback with no line to point at.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, _deepest_bracket(text)) from None
    except ValueError:  # only the int conversion limit (sys.set_int_max_str_digits) raises this
        position = _longest_integer(text)
        raise json.JSONDecodeError("integer with too many digits", text, position) from None


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages such as "got array"."""
    return _JSON_TYPES.get(type(value), "number")


def write_hf_dataset(
    folder: Path, records: Sequence[dict[str, Any]], json_fields: Sequence[str] = ()
) -> None:
    """The HF copy of ``records`` (``json_fields`` as JSON strings, by the encoding rule above)."""
    import datasets

    rows = [
        {k: jsonl_line(v) if k in json_fields else _utf8_only(v) for k, v in r.items()}
        for r in records
    ]
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))


def _flag(folder: Path, name: str) -> Path:
    """The file that marks the output set ``name`` in ``folder`` as half replaced."""
    return folder / f"{name}.incomplete"


def _move_into_place(staging: Path, folder: Path, flag: Path) -> None:
    """Rename every entry of ``staging`` into ``folder`` under ``flag`` (see :func:`output_set`).

    An existing entry is first moved aside into the staging folder (deleted with it): a folder
    such as an HF dataset cannot be replaced by a single rename.
    """
    names = sorted(p.name for p in staging.iterdir())
    write_text(flag, "".join(f"{n}\n" for n in names))
    aside = staging / ".replaced"
    aside.mkdir()
    for n in names:
        _swap(staging / n, folder / n, aside / n)
    flag.unlink()


def _swap(new: Path, target: Path, aside: Path) -> None:
    """Put ``new`` at ``target``, moving what was there to ``aside``."""
    if os.path.lexists(target):
        os.replace(target, aside)
    os.replace(new, target)


def _object(where: str, line: str, error: type[CollabrlError]) -> dict[str, Any]:
    try:
        value = decode_json(line)
    except json.JSONDecodeError as err:
        raise error(f"{where}: bad JSON ({err.msg}, column {err.colno})") from None
    if not isinstance(value, dict):
        raise error(f"{where}: expected a JSON object, got {json_type(value)}")
    return value


def _utf8_only(value: Any) -> Any:
    """``value`` with each lone surrogate (inside lists and dicts too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {k: _utf8_only(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_utf8_only(v) for v in value]
    return value


def _without_strings(text: str) -> str:
    """``text`` with every JSON string blanked (same length): brackets and digits in strings are
    text, not structure."""
    return _JSON_STRING.sub(lambda m: " " * len(m.group()), text)


def _deepest_bracket(text: str) -> int:
    """Offset of the bracket that opens the deepest nesting level."""
    depth = deepest = offset = 0
    for match in re.finditer(r"[\[\]{}]", _without_strings(text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > deepest:
            deepest, offset = depth, match.start()
    return offset


def _longest_integer(text: str) -> int:
    """Offset of the longest run of digits."""
    runs = re.finditer(r"[0-9]+", _without_strings(text))
    return max(runs, key=lambda m: m.end() - m.start()).start()
