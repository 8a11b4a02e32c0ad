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
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def jsonl_line(record: dict[str, Any]) -> str:
    """One record as one line of ASCII JSON, without the newline (the module's encoding rule)."""
    return json.dumps(record, ensure_ascii=True, default=str)


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """One JSON object per line, written to a temporary file first: a crash never leaves half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(jsonl_line(record) + "\n")
    tmp.replace(path)
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
