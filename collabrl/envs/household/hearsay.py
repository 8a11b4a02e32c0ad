"""What a scripted player was told by teammates (player-side memory, never the game's).

A report ("Found <apple> (301) in <fridge> (105)") is a lead: it tells the player where to go and
look, but only the player's own observation (the game's state) lets it grab or check anything.
Claims ("I'll explore <kitchen> (11)") and requests ("could you check the fridge?") are kept per
teammate with the tick they were said, so the player can honour or answer them while fresh.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from collabrl.envs.household.messages import MessageInfo, MessageReader
from collabrl.envs.household.world import Apartment, load_apartments

MENTION = re.compile(r"\((\d+)\)")
Line = tuple[int, str, str]  # (tick, speaker, text)


@dataclass(frozen=True)
class Said:
    """The latest plans (or requests) one teammate voiced, as (verb, id) pairs, and when."""

    tick: int
    items: tuple[tuple[str, int], ...]


@dataclass
class Hearsay:
    """Everything a player heard, parsed once per dialogue line (call :meth:`listen` each turn)."""

    reader: MessageReader | None = None
    heard: set[Line] = field(default_factory=set)
    reported: dict[int, int] = field(default_factory=dict)  # object -> fixture a teammate named
    held: dict[int, str] = field(default_factory=dict)  # object -> teammate who says it carries it
    names: dict[int, str] = field(default_factory=dict)  # object id -> name used in messages
    claims: dict[str, Said] = field(default_factory=dict)
    requests: dict[str, Said] = field(default_factory=dict)
    mentioned: set[int] = field(default_factory=set)  # ids anyone (this player too) named
    told: set[int] = field(default_factory=set)  # ids teammates named

    @property
    def apartment(self) -> Apartment:
        """The floor plan of the current game (known once :meth:`listen` has run)."""
        if self.reader is None:
            raise RuntimeError("call listen() with an observation state first")
        return self.reader.apartment

    def listen(self, state: dict[str, Any]) -> list[Line]:
        """Take in the dialogue lines of ``state`` not heard before; returns the new ones."""
        if self.reader is None:
            apartment = load_apartments()[state["apartment"]]
            self.reader = MessageReader(apartment, (g["object"] for g in state["goal"]))
        new = []
        for d in state["dialogue"]:
            line = (d["tick"], d["speaker"], d["text"])
            if line in self.heard:
                continue
            self.heard.add(line)
            new.append(line)
            ids = {int(x) for x in MENTION.findall(line[2])}
            self.mentioned |= ids
            if line[1] != state["seat"]:
                self.told |= ids
                self._take_in(line, self.reader.read(line[2]))
        return new

    def _take_in(self, line: Line, info: MessageInfo) -> None:
        """Update leads, carriers, claims and requests from one teammate's parsed message."""
        tick, speaker, _ = line
        self.names.update(info.names)
        for obj, fixture in info.locations:
            self.reported[obj] = fixture
            self.held.pop(obj, None)
        for obj in info.held:
            self.held[obj] = speaker
            self.reported.pop(obj, None)
        if info.claims:
            self.claims[speaker] = Said(tick, tuple(info.claims))
        if info.requests:
            self.requests[speaker] = Said(tick, tuple(info.requests))
