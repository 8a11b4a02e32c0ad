"""Rule-based relay expert: shares its half of the map, then carries parcels along its zone.

It decides from its seat's ``Observation.state`` (its own map, the parcels in its room, the
dialogue), never the hidden game. It learns the other half of the picture only by reading its
teammates' messages, which it and they write in short templates:
"<red> is in room 2." / "<red> goes to room 4." / "Where is <red>?" / "Where does <red> go?".
Its first decision tells the team its whole map; afterwards it speaks only to report a parcel it
left in a hand-off room, to answer a question, or to ask for a fact it misses.

Who carries what follows from public facts, so teammates need not negotiate: a parcel lying in
room r bound for room d is the job of the seat whose zone holds the next step from r toward d;
that seat carries it to d, or to the end of its zone when d lies beyond. A seat with no job waits
in the hand-off room where the next parcel will reach its zone.
"""

from __future__ import annotations

import re
from typing import Any

from collabrl.envs.base import MESSAGE_ACTION, Observation, format_response
from relay_game.game import WAIT

IS_AT = re.compile(r"<(\w+)> is in room (\d+)")
GOES_TO = re.compile(r"<(\w+)> goes to room (\d+)")
ASK_AT = re.compile(r"Where is <(\w+)>\?")
ASK_TO = re.compile(r"Where does <(\w+)> go\?")

State = dict[str, Any]
Zones = dict[str, list[int]]


def at_text(parcel: str, room: int) -> str:
    return f"<{parcel}> is in room {room}."


def to_text(parcel: str, room: int) -> str:
    return f"<{parcel}> goes to room {room}."


def carrier(room: int, dest: int, zones: Zones) -> str | None:
    """The seat whose zone holds the next step from ``room`` toward ``dest`` (None: delivered or
    off the map). Zones share their boundary rooms, so exactly one seat qualifies."""
    for seat, (lo, hi) in zones.items():
        if (room < dest and lo <= room < hi) or (room > dest and lo < room <= hi):
            return seat
    return None


def clamp(room: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, room))


class RelayExpert:
    """A scripted courier for any seat (``collabrl.agents.player.Player``)."""

    name = "relay-expert"

    def __init__(self) -> None:
        self.reset("", 0)

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.where: dict[str, int] = {}  # believed room of each parcel lying somewhere
        self.dest: dict[str, int] = {}  # known destination of each parcel
        self.heard = 0  # dialogue lines already read
        self.news: list[str] = []  # sentences to send at the next decision
        self.asked: set[str] = set()  # questions already asked
        self.located: set[str] = set()  # parcels whose room this seat has ever known
        self.started = False

    # ----------------------------------------------------------------- knowing
    def _start(self, s: State) -> None:
        """Take in the own map once (it is stale afterwards) and queue it for the team."""
        self.seat = s["seat"]
        known = self.where if s["map_kind"] == "pickup" else self.dest
        say = at_text if s["map_kind"] == "pickup" else to_text
        known.update(s["map"])
        self.news.extend(say(p, r) for p, r in s["map"].items())
        self.started = True

    def listen(self, s: State) -> None:
        """Read the teammates' new lines: facts update beliefs, questions queue answers."""
        for line in s["dialogue"][self.heard :]:
            if line["speaker"] == self.seat:
                continue
            text = line["text"]
            self.where.update({p: int(r) for p, r in IS_AT.findall(text)})
            self.dest.update({p: int(r) for p, r in GOES_TO.findall(text)})
            for p in ASK_AT.findall(text):
                if p in self.where:
                    self._queue(at_text(p, self.where[p]))
            for p in ASK_TO.findall(text):
                if p in self.dest:
                    self._queue(to_text(p, self.dest[p]))
        self.heard = len(s["dialogue"])

    def _see(self, s: State) -> None:
        """Own eyes beat hearsay: parcels here are here, one believed here but unseen is gone."""
        for p in [p for p, r in self.where.items() if r == s["room"] and p not in s["here"]]:
            del self.where[p]
        for p in s["holding"] + s["delivered"]:
            self.where.pop(p, None)
        self.where.update({p: s["room"] for p in s["here"]})
        self.located.update(self.where, s["holding"])

    def _queue(self, sentence: str) -> None:
        if sentence not in self.news:
            self.news.append(sentence)

    # ----------------------------------------------------------------- planning
    def _plan(self, s: State) -> tuple[str, str]:
        """The next action and a one-line reason (for the message action: the message)."""
        lo, hi = s["zones"][self.seat]
        if s["holding"]:
            return self._carry(s, s["holding"][0], lo, hi)
        jobs = [
            (abs(r - s["room"]), p, r)
            for p, r in self.where.items()
            if p in self.dest and carrier(r, self.dest[p], s["zones"]) == self.seat
        ]
        if jobs:
            _, parcel, room = min(jobs)
            if room == s["room"]:
                return f"[pickup] <{parcel}>", f"<{parcel}> lies here and is mine to carry"
            return f"[goto] room {room}", f"fetch <{parcel}> from room {room}"
        question = self._question(s)
        if question:
            return MESSAGE_ACTION, question
        post = self._post(s, lo, hi)
        if post != s["room"]:
            return f"[goto] room {post}", "wait where the next parcel will reach my zone"
        return WAIT, "nothing to carry yet"

    def _carry(self, s: State, parcel: str, lo: int, hi: int) -> tuple[str, str]:
        """Carry the held parcel to its destination, or to the end of my zone toward it."""
        if parcel not in self.dest:
            question = f"Where does <{parcel}> go?"
            if question in self.asked:
                return WAIT, f"waiting to hear where <{parcel}> goes"
            self.asked.add(question)
            return MESSAGE_ACTION, question
        goal = clamp(self.dest[parcel], lo, hi)
        if goal != s["room"]:
            return f"[goto] room {goal}", f"carry <{parcel}> toward room {self.dest[parcel]}"
        if goal != self.dest[parcel]:
            self._queue(at_text(parcel, goal))
            return f"[drop] <{parcel}>", f"hand <{parcel}> over in room {goal}"
        return f"[drop] <{parcel}>", f"deliver <{parcel}>"

    def _question(self, s: State) -> str:
        """Ask once for what my teammates' halves of the map should have told me but did not."""
        left = [p for p in s["parcels"] if p not in s["delivered"] and p not in s["holding"]]
        asks = [f"Where does <{p}> go?" for p in left if p not in self.dest]
        # a parcel that vanished from a known room was picked up: only never-located ones are asked
        asks += [f"Where is <{p}>?" for p in left if p not in self.located and p in self.dest]
        asks = [q for q in asks if q not in self.asked]
        self.asked.update(asks)
        return " ".join(asks)

    def _post(self, s: State, lo: int, hi: int) -> int:
        """The hand-off room of my zone where the nearest incoming parcel will arrive (my room
        when none is known to be heading my way)."""
        entries = []
        for p, r in self.where.items():
            d = self.dest.get(p)
            if d is not None and r < lo < d:
                entries.append(lo)
            elif d is not None and d < hi < r:
                entries.append(hi)
        return min(entries, key=lambda room: abs(room - s["room"]), default=s["room"])

    # ----------------------------------------------------------------- Player API
    def act(self, obs: Observation) -> str:
        s = obs.state
        if not self.started:
            self._start(s)
        self.listen(s)
        self._see(s)
        if self.news:
            message, self.news = " ".join(self.news), []
            return format_response("Tell the team what only I know.", message, MESSAGE_ACTION)
        action, text = self._plan(s)
        if action not in obs.actions:  # cannot happen with the game's offers; stay safe anyway
            action, text = WAIT, "fall back to waiting"
        if action == MESSAGE_ACTION:
            return format_response("Ask for what my half of the map lacks.", text, action)
        return format_response(f"{text}.", f"I'll {action}.", action)
