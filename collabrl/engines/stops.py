"""Stop-string truncation shared by all backends.

Why: servers and tokenizers disagree on whether a stop string is kept and where a token boundary
falls; cutting the decoded text here gives every backend the same rule (stop string kept, nothing
after it).
"""

from __future__ import annotations

from collections.abc import Sequence


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` right after the earliest stop string; return (text, whether one was found)."""
    best = -1
    for s in stop:
        if not s:
            continue
        i = text.find(s)
        if i >= 0 and (best < 0 or i + len(s) < best):
            best = i + len(s)
    if best < 0:
        return text, False
    return text[:best], True
