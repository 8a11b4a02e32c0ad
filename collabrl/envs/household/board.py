"""The apartment drawn for a person: a room map of what one seat knows (drawer ``room-map``).

The household's :class:`collabrl.envs.registry.BoardDrawer` (``HouseholdSection.board``). The
rooms sit on the apartment's grid; a seat's part of a frame says where it is, the walking time to
each room, which rooms it has explored, the goal objects and closed containers it has found in
each, what it carries, how far the goal is (as far as it knows) and where it last saw each
teammate. A whole frame holds every seat's part (the record keeps it); a page is sent only its own
seat's part (:meth:`RoomMap.for_seat`), so a teammate's knowledge never reaches another browser.

A frame is built only when the pages need one (a person is owed a decision, or the episode ends):
the household has no per-tick hook, and building maps on every step would slow every session.

The page never shows ids: entities are named in words (``kitchencabinet`` -> "kitchen cabinet"),
numbered where several share a name in the apartment ("kitchen cabinet 2", "book 3").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from collabrl.envs.household.game import HouseholdGame, explore_action
from collabrl.envs.household.render import ID_NOTE, known_progress, true_goal_objects
from collabrl.envs.household.tasks import get_task, plural
from collabrl.envs.household.world import load_apartments

Frame = dict[str, Any]

# Compound names of the shipped apartments and tasks, in words a person reads at first sight.
WORDS = {
    "livingroom": "living room",
    "kitchencabinet": "kitchen cabinet",
    "bathroomcabinet": "bathroom cabinet",
    "coffeetable": "coffee table",
    "kitchentable": "kitchen table",
    "kitchencounter": "kitchen counter",
    "bathroomcounter": "bathroom counter",
    "wineglass": "wine glass",
    "waterglass": "water glass",
    "remotecontrol": "remote control",
    "cellphone": "cell phone",
}

HELP = (
    "Go to a room: walk there (the map shows how many steps) and look around; you see what lies "
    "on the furniture there. Click a room on the map to go there.",
    "Go back to a room: walk to a room you have already seen (to look again or to fetch "
    "something).",
    "Look inside: open a closed container (a cabinet, the fridge, ...) in a room you have seen.",
    "Pick up: walk to a goal object you have seen and take it (you carry at most two).",
    "Put: carry what you hold to its goal place and put it there.",
    "Send a message: tell your teammate something; it costs one step, like any action.",
)


def spoken(name: str) -> str:
    """An entity's name in words: ``kitchen_cabinet`` / ``kitchencabinet`` -> kitchen cabinet."""
    return WORDS.get(name, name.replace("_", " "))


@lru_cache(maxsize=64)
def display_names(task_name: str) -> dict[int, str]:
    """Page names of every room, fixture and object of a task's apartment, by id: in words, with
    a number where several share a name ("kitchen cabinet 2"), counted in id order."""
    task = get_task(task_name)
    apartment = load_apartments()[task.apartment]
    entities = [
        *((r.id, r.name) for r in apartment.rooms.values()),
        *((f.id, f.name) for f in apartment.fixtures.values()),
        *((oid, name) for oid, name, _ in task.objects),
    ]
    shared = Counter(name for _, name in entities)
    seen: Counter[str] = Counter()
    names = {}
    for ident, name in sorted(entities):
        seen[name] += 1
        names[ident] = spoken(name) + (f" {seen[name]}" if shared[name] > 1 else "")
    return names


def goal_places(game: HouseholdGame, names: dict[int, str]) -> list[dict[str, Any]]:
    """Each goal place with its room and what goes there, e.g. ``{place: "coffee table", room:
    59, what: "3 books, 1 glasses"}``."""
    places: dict[int, list[str]] = {}
    for p in game.task.goal:
        noun = spoken(p.object)
        places.setdefault(p.target, []).append(f"{p.count} {plural(noun) if p.count > 1 else noun}")
    return [
        {"place": names[t], "room": game.apartment.fixtures[t].room, "what": ", ".join(what)}
        for t, what in places.items()
    ]


class RoomMap:
    """The household's board: rooms on the apartment grid, drawn by the pages' ``room-map``."""

    kind = "room-map"

    def layout(self, game: HouseholdGame) -> dict[str, Any]:
        """Rooms (cell, name, the action that walks there), the goal places, entity names by id
        (the page writes names instead of ids), seat names, the actions' explanations, and the rules'
        lines a page with plain names leaves out (the prompt's id notation)."""
        apartment, names = game.apartment, display_names(game.task.name)
        return {
            "rooms": [
                {
                    "id": r.id,
                    "name": names[r.id],
                    "cell": list(r.cell),
                    "action": explore_action(apartment, r.id),
                }
                for r in apartment.rooms.values()
            ],
            "goal": goal_places(game, names),
            "names": {str(i): n for i, n in names.items()},
            "seats": list(game.agents),
            "help": list(HELP),
            "omit_rules": [ID_NOTE],
        }

    def frame(self, game: HouseholdGame) -> Frame:
        """The apartment now, as every seat knows it (the record keeps whole frames)."""
        return {
            "tick": game.tick,
            "seats": {seat: self._part(game, i) for i, seat in enumerate(game.agents)},
        }

    def for_seat(self, frame: Frame, seat: str) -> Frame:
        """The part of ``frame`` the page of ``seat`` may see: its own knowledge only."""
        return {"tick": frame["tick"], "seat": seat, **frame["seats"][seat]}

    def watch(self, game: HouseholdGame, sink: Callable[[Frame], None]) -> None:
        """Hand ``sink`` the frame now; the pages take the later ones at decision points."""
        sink(self.frame(game))

    def _part(self, game: HouseholdGame, i: int) -> dict[str, Any]:
        """What seat ``i`` knows: its room and hands, walking steps, explored rooms, finds per
        room, goal progress and goal objects (the true ones once the episode is over) and teammates
        last seen."""
        apartment, mind = game.apartment, game.minds[i]
        names = display_names(game.task.name)
        room = game.rooms[i]
        found: dict[int, list[str]] = {}
        known = (
            [(g["id"], g["at"]) for g in true_goal_objects(game)]
            if game.done
            else sorted(mind.where.items())
        )
        for obj, at in known:
            if isinstance(at, int) and game.names[obj] in game.goal_of:
                fixture = apartment.fixtures[at]
                where = "in" if fixture.container else "on"
                found.setdefault(fixture.room, []).append(f"{names[obj]} {where} {names[at]}")
        for fid in sorted(mind.fixtures):
            if apartment.fixtures[fid].container and fid not in mind.checked:
                found.setdefault(apartment.fixtures[fid].room, []).append(f"{names[fid]}: closed")
        placed = game._progress() if game.done else known_progress(game, i)
        return {
            "room": room,
            "steps": {str(r): apartment.travel[room, r] for r in apartment.rooms},
            "explored": sorted(mind.explored),
            "holding": [names[o] for o in game.holding[i]],
            "found": {str(r): lines for r, lines in found.items()},
            "progress": [
                {"object": spoken(p.object), "placed": placed[p.object], "count": p.count}
                for p in game.task.goal
            ],
            "seen": {
                other: {"room": view.room, "tick": view.seen_tick}
                for other, view in mind.partners.items()
                if view.seen_tick is not None
            },
        }


BOARD = RoomMap()
