"""The shared group-memory board: one team record that every seat sees.

Why: group-process research calls the cure for unshared expertise a transactive memory (who
knows what, who does what); the study this follows externalises it as a board the whole team
reads. Here an entry is structured (section, author, tick, text), a write costs its author one
tick like a message, and the game never interprets the text: it is shown, not obeyed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SECTIONS = ("expertise", "responsibilities", "plan", "evidence")
SECTION_TITLES = {
    "expertise": "who knows what",
    "responsibilities": "who does what",
    "plan": "plan",
    "evidence": "evidence and open checks",
}
SHOWN_PER_SECTION = 3  # latest entries of each section in an observation (the record keeps all)


@dataclass(frozen=True)
class Entry:
    """One board entry."""

    tick: int
    author: str
    section: str
    text: str


@dataclass
class Board:
    """Every entry written this episode, in order."""

    entries: list[Entry] = field(default_factory=list)

    def write(self, tick: int, author: str, section: str, text: str) -> Entry:
        if section not in SECTIONS:
            raise ValueError(f"unknown board section {section!r}; sections: {', '.join(SECTIONS)}")
        entry = Entry(tick, author, section, text)
        self.entries.append(entry)
        return entry

    def shown(self) -> list[Entry]:
        """What an observation shows: the latest entries of each section, sections in order."""
        out: list[Entry] = []
        for section in SECTIONS:
            out += [e for e in self.entries if e.section == section][-SHOWN_PER_SECTION:]
        return out

    def lines(self) -> list[str]:
        """The board as observation lines, one per section."""
        shown = self.shown()
        out = []
        for section in SECTIONS:
            notes = [f"[step {e.tick}] {e.author}: {e.text}" for e in shown if e.section == section]
            out.append(f"- {section} ({SECTION_TITLES[section]}): {' | '.join(notes) or '(empty)'}")
        return out

    def anchor(self) -> tuple[bool, ...]:
        """Which sections hold an entry (GiGPO anchors compare states, not wording)."""
        filled = {e.section for e in self.entries}
        return tuple(s in filled for s in SECTIONS)

    def records(self, entries: list[Entry] | None = None) -> list[dict[str, Any]]:
        return [asdict(e) for e in (self.entries if entries is None else entries)]
