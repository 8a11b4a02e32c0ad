"""Read teammates' messages (a player-side helper): reported locations, claimed plans, requests.

The game never reads messages; scripted players do, the way a person listens, to decide where to
go and look (what they may act on still comes only from their own observation).
Understands the expert's templates ("Found <apple> (301) in <fridge> (105).", "I'll check
<fridge> (105).") and simple free text ("I'm going to the bedroom", "let me grab <apple> (301)",
"could you check the kitchen?", "please bring <plate> (312) to the coffee table").
Rooms and fixtures must exist in the apartment under that name and id (or be named without an id
when the name is unique there). An object counts when it is written with an id and its name is
one the listener listens for (e.g. the goal objects); whether it is really there is for the
listener to go and see. A request sentence that names seats ("Bob, could you check the fridge?")
is addressed to them (:attr:`MessageInfo.asked`); one naming nobody is for anyone who hears it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from collabrl.envs.household.tasks import get_task
from collabrl.envs.household.world import Apartment, load_apartments
from collabrl.envs.structures import Speech

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
    fixtures: list[int] = field(default_factory=list)  # fixtures mentioned
    names: dict[int, str] = field(default_factory=dict)  # object id -> the name it was given
    held: list[int] = field(default_factory=list)  # objects the speaker says it is carrying
    requests: list[tuple[str, int]] = field(default_factory=list)  # what the speaker asks of us
    asked: dict[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)  # request -> seats


class MessageReader:
    """Parses messages against one apartment's floor plan and the object names of interest."""

    def __init__(
        self, apartment: Apartment, object_names: Iterable[str], seats: Iterable[str] = ()
    ) -> None:
        self.apartment = apartment
        self.object_names = frozenset(object_names)
        self.seat_words = {s.lower(): s for s in seats}
        self.room_names = {r.name: r.id for r in apartment.rooms.values()}
        counts: dict[str, list[int]] = {}
        for fx in apartment.fixtures.values():
            counts.setdefault(fx.name, []).append(fx.id)
        self.unique_fixtures = {n: ids[0] for n, ids in counts.items() if len(ids) == 1}

    def _entity(self, name: str, ident: int | None) -> tuple[str, int] | None:
        """Classify a mention as ("room"|"fixture"|"object", id), or None if it names nothing."""
        name = name.replace(" ", "")
        apt = self.apartment
        if ident is None:
            if name in self.room_names:
                return "room", self.room_names[name]
            if name in self.unique_fixtures:
                return "fixture", self.unique_fixtures[name]
            return None
        if ident in apt.rooms:
            return ("room", ident) if apt.rooms[ident].name == name else None
        if ident in apt.fixtures:
            return ("fixture", ident) if apt.fixtures[ident].name == name else None
        return ("object", ident) if name in self.object_names else None

    def _mentions(self, sentence: str, names: dict[int, str]) -> list[tuple[str, int]]:
        """Entities named in ``sentence`` in order; object names are noted in ``names``."""
        found = []
        ident: int | None
        for m in TOKEN.finditer(sentence):
            if m.group(1) is not None:
                name, ident = m.group(1), int(m.group(2))
            else:
                name, ident = m.group(3), int(m.group(4)) if m.group(4) else None
            entity = self._entity(name, ident)
            if entity is not None:
                found.append(entity)
                if entity[0] == "object":
                    names[entity[1]] = name.replace(" ", "")
        return found

    def read(self, text: str) -> MessageInfo:
        """Everything usable in ``text``; unknown words and ids that contradict the floor plan
        (or name an object nobody listens for) are ignored."""
        info = MessageInfo()
        for sentence in SENTENCE.split(TWO_WORDS.sub(r"\1\2", text.lower())):
            if REQUEST.search(sentence):
                asked_before = len(info.requests)
                for clause in CLAUSE.split(sentence):
                    self._read_sentence(clause, info)
                named = self._addressees(sentence)
                for move in info.requests[asked_before:]:
                    info.asked[move] = named
            else:
                self._read_sentence(sentence, info)
        return info

    def _addressees(self, sentence: str) -> tuple[str, ...]:
        """Seats named in a request sentence, as the game spells them."""
        words = set(re.findall(r"[a-z0-9]+", sentence))
        return tuple(name for word, name in self.seat_words.items() if word in words)

    def _read_sentence(self, sentence: str, info: MessageInfo) -> None:
        """Add what one sentence (or one clause of a request sentence) says to ``info``."""
        mentions = self._mentions(sentence, info.names)
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


def speech_reader(task: str) -> Callable[[str], Speech]:
    """Claims and requests of messages in ``task`` as trace subgoals (``"check:105"``): what
    process metrics compare with the work seats later did (the game itself never reads them)."""
    spec = get_task(task)
    reader = MessageReader(load_apartments()[spec.apartment], (p.object for p in spec.goal))

    def read(text: str) -> Speech:
        info = reader.read(text)
        return Speech(
            claims=tuple(f"{verb}:{ident}" for verb, ident in info.claims),
            requests=tuple(f"{verb}:{ident}" for verb, ident in info.requests),
        )

    return read
