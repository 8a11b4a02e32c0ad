"""Every record format the project writes reads back exactly, whatever the text holds.

Generated text may contain line separators JSON allows unescaped (U+2028, U+0085...), NUL, lone
surrogates, direction marks or a megabyte on one line; the JSONL files, the HF dataset copy and the
training metrics log must all round-trip it through the project's own readers.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from collabrl.errors import CollabrlError
from collabrl.records import read_jsonl, write_hf_dataset, write_jsonl
from collabrl.report.html import read_metrics
from collabrl.training.logging import METRICS_FILE, RunLogger

HOSTILE = {
    "line separator": "before\u2028after",
    "paragraph separator": "before\u2029after",
    "other splitlines breaks": "a\x1cb\x1dc\x1ed\x85e\x0bf\x0cg\rh",
    "nul": "a\x00b",
    "lone surrogate": "a\ud800b\udfff",
    "direction marks": "\u200fright-to-left\u202eoverride",
    "one megabyte line": "x" * 1_000_000 + "\u2028",
}
NO_SURROGATES = {name: text for name, text in HOSTILE.items() if name != "lone surrogate"}


def _records() -> list[dict]:
    return [
        {"name": name, "text": text, "chat": [{"role": "user", "content": text}]}
        for name, text in HOSTILE.items()
    ]


def test_jsonl_round_trip_is_exact_and_one_ascii_line_per_record(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "records.jsonl", _records())
    assert read_jsonl(path) == _records()
    data = path.read_bytes()
    assert data.isascii() and data.count(b"\n") == len(HOSTILE)
    # what a naive reader does still works, because every separator is escaped
    assert len(data.decode().splitlines()) == len(HOSTILE)


def test_reader_splits_on_newline_only(tmp_path: Path) -> None:
    """Files other tools write keep U+2028 & co. raw inside strings; CRLF and blank lines pass."""
    records = [{"text": text} for text in NO_SURROGATES.values()]
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    path = tmp_path / "raw.jsonl"
    path.write_bytes(("\r\n".join(lines) + "\n\n").encode("utf-8"))
    assert "\u2028" in path.read_text(encoding="utf-8")
    assert read_jsonl(path) == records


class _StageError(CollabrlError):
    """Stands for a caller's own error type (ProfileError, PipelineError)."""


@pytest.mark.parametrize(
    "line,expected",
    [
        (b"{not json", "bad JSON (Expecting property name enclosed in double quotes, column 2)"),
        (b"[1, 2]", "expected a JSON object, got array"),
        (b'"text"', "expected a JSON object, got string"),
        (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "bad JSON (nested too deeply"),
        (b'{"n": ' + b"7" * 5000 + b"}", "bad JSON (integer with too many digits, column 7)"),
        (b'{"a": "\xff\xfe"}', "not UTF-8 text (byte 0xff)"),
    ],
)
def test_a_bad_line_is_one_line_error_naming_file_and_line(
    tmp_path: Path, line: bytes, expected: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"ok": 1}\n' + line + b"\n")
    with pytest.raises(_StageError) as info:
        read_jsonl(path, _StageError)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:2: {expected}")


def test_hf_copy_round_trips_and_replaces_only_lone_surrogates(tmp_path: Path) -> None:
    records = [{**r, "nested": {"parts": [r["text"]]}} for r in _records()]
    write_hf_dataset(tmp_path / "hf", records, json_fields=("nested",))
    rows = list(datasets.load_from_disk(str(tmp_path / "hf")))
    assert [row["name"] for row in rows] == list(HOSTILE)
    for row, record in zip(rows, records, strict=True):
        # JSON fields keep the exact text, surrogates included (escaped in the JSON string)
        assert json.loads(row["nested"]) == record["nested"]
        if record["name"] in NO_SURROGATES:
            assert row["text"] == record["text"] and row["chat"] == record["chat"]
        else:  # Arrow strings are UTF-8, which cannot hold a lone surrogate: U+FFFD stands in
            assert row["text"] == row["chat"][0]["content"] == "a\ufffdb\ufffd"


def test_metrics_log_round_trips_and_truncates_for_resume(tmp_path: Path) -> None:
    logger = RunLogger(tmp_path, {}, mode="disabled", project="test")
    for iteration, text in enumerate(HOSTILE.values()):
        logger.log(iteration, {"sample": text, "loss": 0.5})
    expected = [
        {"iteration": i, "sample": text, "loss": 0.5} for i, text in enumerate(HOSTILE.values())
    ]
    path = tmp_path / METRICS_FILE
    assert read_metrics(path) == expected
    logger.truncate_after(3)
    assert read_metrics(path) == expected[:4]
    redone = {"iteration": 4, "sample": HOSTILE["nul"], "loss": 0.25}
    logger.log(4, {"sample": HOSTILE["nul"], "loss": 0.25})
    assert read_metrics(path) == [*expected[:4], redone]
