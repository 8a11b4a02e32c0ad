"""Read teammates' messages: object locations they report, plans they claim, requests they make.

Understands the expert's templates ("Found <apple> (301) in <fridge> (105).", "I'll check
<fridge> (105).") and simple free text ("I'm going to the bedroom", "let me grab the apple (301)",
"could you check the kitchen?", "please bring <plate> (12) to the coffee table").
Only entities that exist in the apartment/task and whose name matches their id are kept; an object
named without an id counts only when the task has exactly one object of that name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from collabrl.envs.household.world import Apartment

TOKEN = re.compile(r"<\s*([a-z_ ]+?)\s*>\s*\((\d+)\)|\b([a-z]+)\b(?:\s*\((\d+)\))?")
TWO_WORDS = re.compile(
    r"\b(living|bed|bath|coffee|kitchen|night|book|dish|water|wine|remote|bathroom)\s+"
    r"(room|table|cabinet|counter|stand|shelf|washer|glass|control)\b"
)
SENTENCE = re.compile(r"[.!?;\n]+")
INTENT = re.compile(
    r"\b(i'll|i will|i'm going|i am going|i'm heading|i am heading|heading|let me|i plan to|"
    r"i'm about to|i am about to|i'm on my way|on my way|i'll be|i can|i'm taking|i am taking|"
    r"i'm checking|i am checking|i'm exploring|i am exploring|i'm grabbing|i am grabbing)\b"
)
NEGATION = re.compile(r"\b(won't|will not|not going|can't|cannot|don't)\b")
REQUEST = re.compile(
    r"\b(can you|could you|would you|will you|can u|please|pls|you should|you could|"
    r"you need to|you take|you go|you check|you grab|you bring|you explore|you search|"
    r"you look|you handle|you cover|your job)\b"
)
# Where a request sentence changes speaker intent: "you take the kitchen, and I'll check the bedroom".
CLAUSE = re.compile(r",|;|\b(?:and|while|then)\b(?=\s+(?:i\b|i'll|i'm|let me|you\b))")
PUT_VERB = re.compile(r"\b(put|place|bring|deliver|drop)\b")
HOLDING = re.compile(
    r"\b(i have|i've got|i got|got|i'm holding|i am holding|i'm carrying|i am carrying|"
    r"i picked up|picked up|i grabbed|i took)\b"
)


@dataclass
class MessageInfo:
    """What one message says: object locations (object id, fixture id) and claimed plans."""

    locations: list[tuple[int, int]] = field(default_factory=list)
    claims: list[tuple[str, int]] = field(default_factory=list)  # (explore|check|grab|put, id)
    fixtures: list[int] = field(default_factory=list)  # fixtures mentioned (so they become known)
    held: list[int] = field(default_factory=list)  # objects the speaker says it is carrying
    requests: list[tuple[str, int]] = field(default_factory=list)  # what the speaker asks of us


class MessageReader:
    """Parses messages against one apartment and one task's objects (built once per game)."""

    def __init__(self, apartment: Apartment, objects: dict[int, str]) -> None:
        self.apartment = apartment
        self.objects = objects
        self.room_names = {r.name: r.id for r in apartment.rooms.values()}
        counts: dict[str, list[int]] = {}
        for fx in apartment.fixtures.values():
            counts.setdefault(fx.name, []).append(fx.id)
        self.unique_fixtures = {n: ids[0] for n, ids in counts.items() if len(ids) == 1}
        by_name: dict[str, list[int]] = {}
        for oid, name in objects.items():
            by_name.setdefault(name, []).append(oid)
        self.unique_objects = {n: ids[0] for n, ids in by_name.items() if len(ids) == 1}

    def _entity(self, name: str, ident: int | None) -> tuple[str, int] | None:
        """Classify a mention as ("room"|"fixture"|"object", id), or None if it names nothing."""
        name = name.replace(" ", "")
        apt = self.apartment
        if ident is None:
            if name in self.room_names:
                return "room", self.room_names[name]
            if name in self.unique_fixtures:
                return "fixture", self.unique_fixtures[name]
            if name in self.unique_objects:
                return "object", self.unique_objects[name]
            return None
        if ident in apt.rooms and apt.rooms[ident].name == name:
            return "room", ident
        if ident in apt.fixtures and apt.fixtures[ident].name == name:
            return "fixture", ident
        if self.objects.get(ident) == name:
            return "object", ident
        return None

    def _mentions(self, sentence: str) -> list[tuple[str, int]]:
        found = []
        for m in TOKEN.finditer(sentence):
            if m.group(1) is not None:
                entity = self._entity(m.group(1), int(m.group(2)))
            else:
                entity = self._entity(m.group(3), int(m.group(4)) if m.group(4) else None)
            if entity is not None:
                found.append(entity)
        return found

    def read(self, text: str) -> MessageInfo:
        """Everything usable in ``text``; unknown words and invented ids are ignored."""
        info = MessageInfo()
        for sentence in SENTENCE.split(TWO_WORDS.sub(r"\1\2", text.lower())):
            if REQUEST.search(sentence):
                for clause in CLAUSE.split(sentence):
                    self._read_sentence(clause, info)
            else:
                self._read_sentence(sentence, info)
        return info

    def _read_sentence(self, sentence: str, info: MessageInfo) -> None:
        """Add what one sentence (or one clause of a request sentence) says to ``info``."""
        mentions = self._mentions(sentence)
        if not mentions:
            return
        info.fixtures.extend(i for kind, i in mentions if kind == "fixture")
        negated = NEGATION.search(sentence) is not None
        if HOLDING.search(sentence):
            if not negated:
                info.held.extend(i for kind, i in mentions if kind == "object")
        elif INTENT.search(sentence):
            if not negated:
                info.claims.extend(self._claims(sentence, mentions))
        elif REQUEST.search(sentence):
            if not negated:
                info.requests.extend(self._claims(sentence, mentions))
        else:
            self._locations(mentions, info)

    @staticmethod
    def _locations(mentions: list[tuple[str, int]], info: MessageInfo) -> None:
        """'<apple> (301) ... <fridge> (105)': each object lies in the fixture named after it."""
        pending: list[int] = []
        for kind, ident in mentions:
            if kind == "object":
                pending.append(ident)
            elif kind == "fixture" and pending:
                info.locations.extend((o, ident) for o in pending)
                pending = []

    def _claims(self, sentence: str, mentions: list[tuple[str, int]]) -> list[tuple[str, int]]:
        putting = PUT_VERB.search(sentence) is not None
        claims = []
        for kind, ident in mentions:
            if kind == "room":
                claims.append(("explore", ident))
            elif kind == "object":
                claims.append(("grab", ident))
            elif putting:
                claims.append(("put", ident))
            elif self.apartment.fixtures[ident].container:
                claims.append(("check", ident))
        return claims
