"""Wording that does not repeat itself: a persona's chat within one episode, kept fresh.

A persona draws its phrases with the same random call whether or not it varies its wording, so
its random stream, and with it every action it chooses, is the same either way. Varying only
changes what is written: a drawn phrase already said this episode gives way to the next unsaid
phrase of its bank, then to two of its phrases joined, and a whole message said before is sent
marked as a repeat ("Again: ..."), so no chat line of one persona repeats within an episode.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from collabrl.envs.base import MAX_MESSAGE_CHARS

MARKS = ("Again:", "Once more:", "As I said:")  # the first, second and third repeat of a line


def clip_message(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut at a word boundary so it fits the game's message limit."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0]


def repeat_mark(n: int) -> str:
    """How the ``n``-th repeat (1 = the first) of a message is marked."""
    return MARKS[n - 1] if n <= len(MARKS) else f"Again ({n + 1} times now):"


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    """``phrase`` as a search pattern; a template's ``{fields}`` match whatever filled them."""
    parts = re.split(r"\{[^{}]*\}", phrase)
    return re.compile(".+?".join(re.escape(part) for part in parts))


class SaidLog:
    """The chat messages one persona has sent this episode, and the fresh wording they leave."""

    def __init__(self) -> None:
        self.messages: set[str] = set()

    def used(self, phrase: str) -> bool:
        """True when ``phrase`` (or a filling of its template) is in a message sent already."""
        pattern = _pattern(phrase)
        return any(pattern.search(message) for message in self.messages)

    def fresh(self, drawn: str, bank: Sequence[str]) -> str:
        """``drawn`` (one of ``bank``) if unsaid; else the next unsaid phrase of the bank, then
        ``drawn`` joined with another, then ``drawn`` itself (:meth:`sent` marks the repeat)."""
        if not self.used(drawn):
            return drawn
        start = list(bank).index(drawn)
        others = [bank[(start + k) % len(bank)] for k in range(1, len(bank))]
        others = [phrase for phrase in others if phrase != drawn]
        unsaid = next((phrase for phrase in others if not self.used(phrase)), None)
        if unsaid is not None:
            return unsaid
        joined = (f"{drawn} {phrase}" for phrase in others)
        return next((text for text in joined if not self.used(text)), drawn)

    def sent(self, message: str) -> str:
        """``message`` as it is sent (marked when said before this episode), remembered."""
        text, repeats = message, 0
        while text in self.messages:
            repeats += 1
            text = clip_message(f"{repeat_mark(repeats)} {message}")
        self.messages.add(text)
        return text
