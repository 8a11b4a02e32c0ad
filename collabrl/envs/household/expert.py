"""Rule-based household expert: explore, check, grab, place; shares finds and honours claims.

It decides from its seat's ``Observation.state`` (what the seat saw itself) plus what it heard
(:class:`~collabrl.envs.household.hearsay.Hearsay`), never the hidden world. A teammate's report
only sends it to look: "Found <apple> (301) in <fridge> (105)" makes it walk to the fridge's room
and check the fridge; it grabs the apple once it has seen it there. Its own messages follow short
templates that :class:`~collabrl.envs.household.messages.MessageReader` parses:
"Found <apple> (301) in <fridge> (105)." / "Placed <apple> (301) into <fridge> (105)." /
"I'll explore <kitchen> (11)."

Private guidance (:meth:`HouseholdExpert.brief`) is private knowledge: where some goal objects
are (leads it follows itself) and which containers hold nothing needed (it never checks them);
it shares the whole of it at its first decision. Under a collaboration structure it does its
part: it approves every request addressed to it at once (a gated move here is always a step
toward the goal), as the first seat it chooses the gate owners the team has not chosen
(:func:`~collabrl.envs.structures.pick_owner`), and with a group-memory board it writes what it
would have said there instead (its private knowledge under "expertise", finds under "evidence",
its plans under "responsibilities"), where no dialogue window pushes it out of sight.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from collabrl.envs.base import MESSAGE_ACTION, Observation, format_response
from collabrl.envs.household.hearsay import MENTION, Hearsay
from collabrl.envs.household.world import HOLD_LIMIT, token
from collabrl.envs.structures import StructureView, organises, pick_owner

ACTION = re.compile(r"^\[go(\w+)\] <([^>]+)> \((\d+)\)$")
CLAIM_TTL = 30  # ticks a teammate's announced plan is honoured
DEFER = 20  # extra cost (ticks) of a place a teammate claimed or already reported on
LEAD_COST = 1  # extra cost of a reported (not yet seen) object over a seen one at equal distance

Move = tuple[str, int]  # (explore|check|grab|put, id)
State = dict[str, Any]


def spread(ids: list[int], rank: int, seats: int) -> dict[int, int]:
    """Tie-break order that differs per seat, so teammates in one room pick different things."""
    ids = sorted(ids)
    offset = rank * len(ids) // max(seats, 1)
    return {x: (k - offset) % len(ids) for k, x in enumerate(ids)}


def offered_moves(actions: list[str]) -> dict[Move, str]:
    """Offered moves keyed by (verb, id), e.g. ("grab", 301) -> "[gograb] <apple> (301)"."""
    out = {}
    for a in actions:
        m = ACTION.match(a)
        if m:
            out[m.group(1), int(m.group(3))] = a
    return out


class HouseholdExpert:
    """A scripted teammate for any seat (``collabrl.agents.player.Player``)."""

    name = "household-expert"

    def __init__(self) -> None:
        self.found: dict[int, tuple[str, int]] = {}  # private guidance: object -> (name, fixture)
        self.empty: frozenset[int] = frozenset()  # private guidance: containers with nothing needed
        self.note = ""  # the guidance as one sentence to share
        self.reset("", 0)

    def brief(self, found: Mapping[int, tuple[str, int]], empty: Iterable[int], note: str) -> None:
        """Give this player private guidance for every episode from now on: ``found`` goal
        objects (id -> (name, fixture id)), ``empty`` containers, and ``note`` to share."""
        self.found, self.empty, self.note = dict(found), frozenset(empty), note
        self.reset(self.seat, 0)

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.hearsay = Hearsay()
        self.hearsay.reported.update({obj: fixture for obj, (_, fixture) in self.found.items()})
        self.hearsay.names.update({obj: name for obj, (name, _) in self.found.items()})
        self.shared = not self.note  # nothing to share, or shared already
        self.last_visit: dict[int, int] = {}
        self.my_claim: Move | None = None
        self.my_claim_tick = -1
        self.last_holding: list[int] = []
        self.last_was_message = False
        self.reported_holding: set[int] = set()

    def listen(self, s: State) -> None:
        """Take in new dialogue (players that wrap the expert call this every turn)."""
        self.hearsay.listen(s)

    # ----------------------------------------------------------------- reading the state
    def _yield_to(self, s: State, honour: bool) -> set[Move]:
        """Teammates' fresh claims this seat should leave alone (none when not honouring)."""
        if not honour:
            return set()
        rank = s["seats"].index(s["seat"])
        out = set()
        for name, said in self.hearsay.claims.items():
            if s["tick"] - said.tick > CLAIM_TTL:
                continue
            first = (said.tick, s["seats"].index(name)) < (self.my_claim_tick, rank)
            for move in said.items:
                if move != self.my_claim or first:
                    out.add(move)
        return out

    def _handled(self, s: State, claimed: set[Move], target_of: dict[str, int]) -> set[int]:
        """Goal objects someone already takes care of: held, placed, or claimed by a teammate."""
        h = self.hearsay
        handled = {o for v, o in claimed if v == "grab"} | set(s["holding"])
        handled |= set(h.held) - set(s["holding"])
        handled |= {o for o, f in h.reported.items() if f == target_of.get(h.names.get(o, ""))}
        for g in s["goal_objects"]:
            at = g["at"]
            if (isinstance(at, str) and at != s["seat"]) or at == target_of[g["name"]]:
                handled.add(g["id"])
        return handled

    # ----------------------------------------------------------------- planning
    def _plan(self, s: State, claimed: set[Move]) -> tuple[Move, str]:
        """Next (verb, id) and a one-line reason."""
        ticks = {r["id"]: r["ticks"] for r in s["rooms"]}
        fixtures = {f["id"]: f for f in s["fixtures"]}
        target_of = {g["object"]: g["target"] for g in s["goal"]}
        names = self.hearsay.names | {g["id"]: g["name"] for g in s["goal_objects"]}
        handled = self._handled(s, claimed, target_of)
        need = {g["object"]: g["count"] for g in s["goal"]}
        for o in handled:
            if names.get(o) in need:
                need[names[o]] -= 1
        if len(s["holding"]) < HOLD_LIMIT:
            options = self._seen_options(s, ticks, fixtures, handled, need)
            options += self._leads(s, ticks, fixtures, handled, need, target_of)
            if options:
                _, obj, move = min(options)
                if move[0] == "grab":
                    return move, f"{token(names[obj], obj)} is still needed and I know where"
                return move, f"a teammate said {token(names[obj], obj)} is there; go and look"
        if s["holding"]:
            target = target_of[names[s["holding"][0]]]
            if target in fixtures:
                return ("put", target), "my hands are full or nothing else is known; deliver"
            room = self.hearsay.apartment.fixtures[target].room
            if room != s["room"]:
                return ("explore", room), "carry what I hold to the room of the target"
        return self._search(s, ticks, fixtures, claimed)

    @staticmethod
    def _seen_options(s: State, ticks, fixtures, handled, need) -> list[tuple[int, int, Move]]:
        """(cost, object, grab move) for goal objects this seat saw lying where it can fetch them."""
        return [
            (ticks[fixtures[g["at"]]["room"]], g["id"], ("grab", g["id"]))
            for g in s["goal_objects"]
            if isinstance(g["at"], int)
            and g["at"] in fixtures
            and g["id"] not in handled
            and need[g["name"]] > 0
        ]

    def _leads(
        self, s: State, ticks, fixtures, handled, need, target_of
    ) -> list[tuple[int, int, Move]]:
        """(cost, object, move) toward goal objects a teammate reported but this seat has not seen.

        A lead dies once this seat has looked at the named fixture and the object was not there.
        """
        h, seen = self.hearsay, {g["id"] for g in s["goal_objects"]}
        out = []
        for obj, fixture in h.reported.items():
            name = h.names.get(obj, "")
            if obj in seen or obj in handled or need.get(name, 0) <= 0:
                continue
            if fixture == target_of[name] or fixtures.get(fixture, {}).get("checked"):
                continue
            room = h.apartment.fixtures[fixture].room
            out.append((ticks[room] + LEAD_COST, obj, self.look_at(s, fixture)))
        return out

    def look_at(self, s: State, fixture: int) -> Move:
        """The move that lets this seat see ``fixture``'s contents: check it if the seat has seen
        it, otherwise walk to its room first (after looking around there it can check it)."""
        if any(f["id"] == fixture for f in s["fixtures"]):
            return ("check", fixture)
        return ("explore", self.hearsay.apartment.fixtures[fixture].room)

    def toward(self, s: State, move: Move) -> Move | None:
        """A step toward a move a teammate asked for that may not be possible yet (None: give up).

        Checking or putting at a fixture not seen yet starts by walking to its room; grabbing an
        object this seat has not seen starts by looking where it was reported.
        """
        verb, ident = move
        if verb == "grab" and all(g["id"] != ident for g in s["goal_objects"]):
            fixture = self.hearsay.reported.get(ident)
            return None if fixture is None else self.look_at(s, fixture)
        if verb in ("check", "put") and all(f["id"] != ident for f in s["fixtures"]):
            return ("explore", self.hearsay.apartment.fixtures[ident].room)
        return move

    def _search(self, s: State, ticks, fixtures, claimed) -> tuple[Move, str]:
        """Where to look next: the cheapest unseen container or room, avoiding teammates' work."""
        busy_rooms = {i for v, i in claimed if v == "explore"}
        rank, seats = s["seats"].index(s["seat"]), len(s["seats"])
        order = spread([f["id"] for f in fixtures.values()] + list(ticks), rank, seats)
        options = []
        for f in fixtures.values():
            if f["container"] and not f["checked"] and f["id"] not in self.empty:
                taken = ("check", f["id"]) in claimed or f["id"] in self.hearsay.told
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
    def _news(self, s: State) -> list[str]:
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
            if g["id"] in self.hearsay.mentioned or g["id"] in placed or not isinstance(at, int):
                continue
            if at == goal[g["name"]]["target"] or at not in fixtures:
                continue
            f = fixtures[at]
            prep = "in" if f["container"] else "on"
            found.append(f"{token(g['name'], g['id'])} {prep} {token(f['name'], f['id'])}")
        if found:
            news.append("Found " + ", ".join(found) + ".")
        return news

    def _carrying(self, s: State) -> list[str]:
        """'I have ...' for objects picked up since this seat last spoke (rides on other news)."""
        names = {g["id"]: g["name"] for g in s["goal_objects"]}
        new = [o for o in s["holding"] if o not in self.reported_holding and o in names]
        self.reported_holding = set(s["holding"])
        return [f"I have {', '.join(token(names[o], o) for o in new)}."] if new else []

    # ----------------------------------------------------------------- Player API
    def act(self, obs: Observation) -> str:
        self.listen(obs.state)
        return self.duty(obs) or self.reply(obs)

    def intent(self, obs: Observation) -> str:
        """The move this seat would make next as a claim ("I'll explore <kitchen> (11)."), without
        changing anything; empty when that move is not on offer."""
        s = obs.state
        plan, _ = self._plan(s, self._yield_to(s, True))
        action = offered_moves(obs.actions).get(plan)
        return f"I'll {plan[0]} {action.split('] ', 1)[-1]}." if action else ""

    def duty(self, obs: Observation) -> str | None:
        """What comes before its own move (None: nothing): decide a request addressed to it,
        choose gate owners, share private guidance. (A wrapping persona has its own duties and
        calls :meth:`reply` only.)"""
        s = obs.state
        view = StructureView.of(s)
        if view is not None and view.to_decide:
            request = view.to_decide[0]
            why = f"{request['seat']}'s {request['action']} is a step toward the goal"
            return format_response(f"Approve: {why}.", "", request["approve"])
        if view is not None and organises(view, s["seat"], s["seats"], s["tick"]):
            kind = view.unassigned()[0]
            owner = pick_owner(view, s["seat"], s["seats"])
            why = f"The team needs an approver for {kind}; {owner} is best placed."
            return format_response(why, "", view.assign[kind][owner])
        if not self.shared and len(s["seats"]) > 1:
            self.shared = True
            self.hearsay.mentioned.update(int(x) for x in MENTION.findall(self.note))
            action = talk_action(view, "expertise", obs.actions)
            assert action is not None, "a team of two or more is always offered the message action"
            return format_response("Share what only I know.", self.note, action)
        return None

    def reply(self, obs: Observation, honour_claims: bool = True) -> str:
        """The expert's answer; ``honour_claims=False`` plays as if it had ignored teammates'
        announced plans (a wrapping persona that does not comply uses this)."""
        s = obs.state
        self.listen(s)
        self.last_visit[s["room"]] = s["tick"]
        plan, why = self._plan(s, self._yield_to(s, honour_claims))
        offered = offered_moves(obs.actions)
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
        talk = talk_action(
            StructureView.of(s), "evidence" if news else "responsibilities", obs.actions
        )
        self.last_was_message = len(s["seats"]) > 1 and talk is not None and bool(news or announce)
        claim = f"I'll {plan[0]} {action.split('] ', 1)[-1]}."
        if talk is None or not self.last_was_message:  # talk is set when a message goes
            return format_response(f"{why}.", claim, action)
        message = " ".join([*news, *self._carrying(s), claim])
        self.hearsay.mentioned.update(int(x) for x in MENTION.findall(message))
        self.my_claim, self.my_claim_tick = plan, s["tick"]
        return format_response(f"Tell the team first, then {plan[0]}: {why}.", message, talk)


def talk_action(view: StructureView | None, section: str, actions: list[str]) -> str | None:
    """How to tell the team: the board's ``section`` when there is a board, else a message
    (None when neither is on offer)."""
    if view is not None and view.has_board:
        return view.update[section]
    return MESSAGE_ACTION if MESSAGE_ACTION in actions else None
