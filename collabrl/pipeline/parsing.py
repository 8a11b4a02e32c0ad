"""Tolerant reading of JSON answers from LLMs (summariser and judges).

Why: models wrap JSON in code fences or prose, leave trailing commas or use curly quotes. Such
replies are repaired where that is safe; anything else raises :class:`ReplyError` with a short
reason that the stage records, so one bad reply never crashes a run.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_FAIL = re.compile(r"\bfail\b", re.IGNORECASE)
_FAIL_KEYS = ("profile", "status", "result", "verdict")
MAX_STARTS = 50  # candidate '{' positions tried, so a huge reply stays cheap


class ReplyError(ValueError):
    """A reply that cannot be used; the message says why in a few words."""


def extract_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (fences, prose, trailing commas and curly quotes ok)."""
    if not text.strip():
        raise ReplyError("empty reply")
    cleaned = _TRAILING_COMMA.sub(r"\1", text.translate(_QUOTES))
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"\{", cleaned)][:MAX_STARTS]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(cleaned, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ReplyError("no JSON object in reply" if not starts else "malformed JSON in reply")


def is_fail(text: str) -> bool:
    """Whether the reply declines (``Fail``), as a bare word or as a JSON field value."""
    try:
        obj = extract_object(text)
    except ReplyError:
        return bool(_FAIL.search(text))
    return any(str(obj.get(k, "")).strip().lower() == "fail" for k in _FAIL_KEYS)
