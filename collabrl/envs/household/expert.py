"""Rule-based household expert: explore, check, grab, place; shares finds and honours claims.

It reads only its seat's ``Observation.state`` (its own beliefs and teammates' parsed claims), never
the hidden world. Its messages follow short templates that ``messages.MessageReader`` parses:
"Found <apple> (301) in <fridge> (105)." / "Placed <apple> (301) into <fridge> (105)." /
"I'll explore <kitchen> (11)."
"""

from __future__ import annotations

import re
from typing import Any

from collabrl.agents.player import format_response
from collabrl.envs.base import MESSAGE_ACTION, Observation
from collabrl.envs.household.world import token

ACTION = re.compile(r"^\[go(\w+)\] <([^>]+)> \((\d+)\)$")
MENTION = re.compile(r"\((\d+)\)")
CLAIM_TTL = 30  # ticks a teammate's announced plan is honoured
DEFER = 20  # extra cost (ticks) of a place a teammate claimed or already reported on


def spread(ids: list[int], rank: int, seats: int) -> dict[int, int]:
    """Tie-break order that differs per seat, so teammates in one room pick different things."""
    ids = sorted(ids)
    offset = rank * len(ids) // max(seats, 1)
    return {x: (k - offset) % len(ids) for k, x in enumerate(ids)}


class HouseholdExpert:
    """A scripted teammate for any seat (``collabrl.agents.player.Player``)."""

    name = "household-expert"

    def __init__(self) -> None:
        self.reset("", 0)

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.shared: set[int] = set()  # ids anyone already mentioned in the dialogue
        self.heard: set[tuple[int, str, str]] = set()
        self.told: set[int] = set()  # ids teammates mentioned (containers they checked or will)
        self.last_visit: dict[int, int] = {}
        self.my_claim: tuple[str, int] | None = None
        self.my_claim_tick = -1
        self.last_holding: list[int] = []
        self.last_was_message = False
        self.reported_holding: set[int] = set()

    # ----------------------------------------------------------------- reading the state
    def _listen(self, s: dict[str, Any]) -> None:
        for line in s["dialogue"]:
            key = (line["tick"], line["speaker"], line["text"])
            if key not in self.heard:
                self.heard.add(key)
                ids = {int(x) for x in MENTION.findall(line["text"])}
                self.shared |= ids
                if line["speaker"] != s["seat"]:
                    self.told |= ids

    def _yield_to(self, s: dict[str, Any]) -> set[tuple[str, int]]:
        """Teammates' fresh claims this seat should leave alone."""
        rank = s["seats"].index(s["seat"])
        out = set()
        for name, p in s["partners"].items():
            if p["claim_tick"] is None or s["tick"] - p["claim_tick"] > CLAIM_TTL:
                continue
            first = (p["claim_tick"], s["seats"].index(name)) < (self.my_claim_tick, rank)
            for verb, ident in p["claims"]:
                if (verb, ident) != self.my_claim or first:
                    out.add((verb, ident))
        return out

    # ----------------------------------------------------------------- planning
    def _plan(self, s: dict[str, Any]) -> tuple[tuple[str, int], str]:
        """Next (verb, id) and a one-line reason."""
        me = s["seat"]
        ticks = {r["id"]: r["ticks"] for r in s["rooms"]}
        fixtures = {f["id"]: f for f in s["fixtures"]}
        goal = {g["object"]: g for g in s["goal"]}
        claimed = self._yield_to(s)
        handled = {o for v, o in claimed if v == "grab"} | set(s["holding"])
        for g in s["goal_objects"]:
            at = g["at"]
            if (isinstance(at, str) and at != me) or at == goal[g["name"]]["target"]:
                handled.add(g["id"])
        need = {name: g["count"] for name, g in goal.items()}
        names = {g["id"]: g["name"] for g in s["goal_objects"]}
        for o in handled:
            if o in names:
                need[names[o]] -= 1
        for o in s["holding"]:
            need.setdefault(names.get(o, ""), 0)
        wanted = [
            (ticks[fixtures[g["at"]]["room"]], g["id"])
            for g in s["goal_objects"]
            if isinstance(g["at"], int)
            and g["id"] not in handled
            and need[g["name"]] > 0
            and g["at"] in fixtures
        ]
        if wanted and len(s["holding"]) < 2:
            _, obj = min(wanted)
            return ("grab", obj), f"{token(names[obj], obj)} is still needed and I know where"
        if s["holding"]:
            target = goal[names[s["holding"][0]]]["target"]
            if target in fixtures:
                return ("put", target), "my hands are full or nothing else is known; deliver"
        return self._search(s, ticks, fixtures, claimed)

    def _search(self, s, ticks, fixtures, claimed) -> tuple[tuple[str, int], str]:
        """Where to look next: the cheapest unseen container or room, avoiding teammates' work."""
        busy_rooms = {i for v, i in claimed if v == "explore"}
        rank, seats = s["seats"].index(s["seat"]), len(s["seats"])
        order = spread([f["id"] for f in fixtures.values()] + list(ticks), rank, seats)
        options = []
        for f in fixtures.values():
            if f["container"] and not f["checked"]:
                taken = ("check", f["id"]) in claimed or f["id"] in self.told
                cost = ticks[f["room"]] + DEFER * (taken or f["room"] in busy_rooms)
                options.append((cost, order[f["id"]], ("check", f["id"])))
        for r in s["rooms"]:
            if not r["explored"]:
                cost = r["ticks"] + 1 + DEFER * (r["id"] in busy_rooms)
                options.append((cost, order[r["id"]], ("explore", r["id"])))
        if options:
            return min(options)[2], "nothing needed is known; search the nearest unseen place"
        others = [r["id"] for r in s["rooms"] if r["id"] != s["room"]] or [s["room"]]
        room = min(others, key=lambda r: (self.last_visit.get(r, -1), order[r]))
        return ("explore", room), "everything seen; revisit rooms in case objects moved"

    # ----------------------------------------------------------------- talking
    def _news(self, s: dict[str, Any]) -> list[str]:
        """Sentences about goal objects nobody mentioned yet and objects this seat just placed."""
        fixtures = {f["id"]: f for f in s["fixtures"]}
        goal = {g["object"]: g for g in s["goal"]}
        names = {g["id"]: g["name"] for g in s["goal_objects"]}
        news = []
        placed = [o for o in self.last_holding if o not in s["holding"]]
        for o in placed:
            g = goal[names[o]]
            prep = "into" if g["relation"] == "INSIDE" else "onto"
            news.append(
                f"Placed {token(names[o], o)} {prep} {token(g['target_name'], g['target'])}."
            )
        found = []
        for g in s["goal_objects"]:
            at = g["at"]
            if g["id"] in self.shared or g["id"] in placed or not isinstance(at, int):
                continue
            if at == goal[g["name"]]["target"] or at not in fixtures:
                continue
            f = fixtures[at]
            prep = "in" if f["container"] else "on"
            found.append(f"{token(g['name'], g['id'])} {prep} {token(f['name'], f['id'])}")
        if found:
            news.append("Found " + ", ".join(found) + ".")
        return news

    def _carrying(self, s: dict[str, Any]) -> list[str]:
        """'I have ...' for objects picked up since this seat last spoke (rides on other news)."""
        names = {g["id"]: g["name"] for g in s["goal_objects"]}
        new = [o for o in s["holding"] if o not in self.reported_holding and o in names]
        self.reported_holding = set(s["holding"])
        return [f"I have {', '.join(token(names[o], o) for o in new)}."] if new else []

    # ----------------------------------------------------------------- Player API
    def act(self, obs: Observation) -> str:
        s = obs.state
        self._listen(s)
        self.last_visit[s["room"]] = s["tick"]
        plan, why = self._plan(s)
        offered = {}
        for a in obs.actions:
            m = ACTION.match(a)
            if m:
                offered[m.group(1), int(m.group(3))] = a
        if plan not in offered:  # cannot happen with the game's offers; stay safe anyway
            plan, why = next(iter(offered), ("message", -1)), "fall back to a listed action"
        action = offered.get(plan, MESSAGE_ACTION)
        news = self._news(s)
        room_of = {f["id"]: f["room"] for f in s["fixtures"]}
        local = plan[0] == "check" and room_of[plan[1]] == s["room"]
        announce = (
            plan[0] in ("explore", "check", "grab")
            and not local
            and plan != self.my_claim
            and not self.last_was_message
        )
        self.last_holding = list(s["holding"])
        self.last_was_message = (
            len(s["seats"]) > 1 and MESSAGE_ACTION in obs.actions and bool(news or announce)
        )
        claim = f"I'll {plan[0]} {action.split('] ', 1)[-1]}."
        if not self.last_was_message:
            return format_response(f"{why}.", claim, action)
        message = " ".join([*news, *self._carrying(s), claim])
        self.shared.update(int(x) for x in MENTION.findall(message))
        self.my_claim, self.my_claim_tick = plan, s["tick"]
        return format_response(
            f"Tell the team first, then {plan[0]}: {why}.", message, MESSAGE_ACTION
        )
