"""What a scripted player was told by teammates (player-side memory, never the game's).

A report ("Found <apple> (301) in <fridge> (105)") is a lead: it tells the player where to go and
look, but only the player's own observation (the game's state) lets it grab or check anything.
Claims ("I'll explore <kitchen> (11)") and requests ("could you check the fridge?") are kept per
teammate with the tick they were said, so the player can honour or answer them while fresh. A
request addressed to other seats by name ("Charlie, could you check the fridge?") is theirs: it
counts as their claim, so the listener leaves that work to them. Entries on the group-memory
board (collaboration structure ``memory`` or ``scaffolded``) are heard like messages.
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
        """Take in the dialogue lines (and board entries) of ``state`` not heard before; returns
        the new ones."""
        if self.reader is None:
            apartment = load_apartments()[state["apartment"]]
            goal = (g["object"] for g in state["goal"])
            self.reader = MessageReader(apartment, goal, state["seats"])
        board = (state.get("structure") or {}).get("board", [])
        said = [(d["tick"], d["speaker"], d["text"]) for d in state["dialogue"]]
        new = []
        for line in [*said, *((e["tick"], e["author"], e["text"]) for e in board)]:
            if line in self.heard:
                continue
            self.heard.add(line)
            new.append(line)
            ids = {int(x) for x in MENTION.findall(line[2])}
            self.mentioned |= ids
            if line[1] != state["seat"]:
                self.told |= ids
                self._take_in(line, self.reader.read(line[2]), state["seat"])
        return new

    def _take_in(self, line: Line, info: MessageInfo, listener: str) -> None:
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
        mine = [
            m for m in info.requests if listener in info.asked.get(m, ()) or not info.asked.get(m)
        ]
        if mine:
            self.requests[speaker] = Said(tick, tuple(mine))
        for move in info.requests:
            for other in info.asked.get(move, ()):
                if other != listener:
                    self.claims[other] = Said(tick, (*self._fresh(other, tick), move))

    def _fresh(self, seat: str, tick: int) -> tuple[tuple[str, int], ...]:
        """``seat``'s claims voiced at ``tick`` (one message may hand it several moves)."""
        said = self.claims.get(seat)
        return said.items if said is not None and said.tick == tick else ()
