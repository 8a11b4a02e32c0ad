"""What a seat is shown: goal sentence, intro rules, observation text, structured state, anchor."""

from __future__ import annotations

from typing import Any, Protocol

from collabrl.envs.base import Observation, lettered
from collabrl.envs.household.knowledge import SeatMind
from collabrl.envs.household.tasks import Predicate, Task
from collabrl.envs.household.world import HOLD_LIMIT, Apartment, token
from collabrl.envs.opening import Opening, visible_dialogue
from collabrl.envs.structures import Structures


class HouseholdState(Protocol):
    """What a seat's view is drawn from: the game's state, read and never changed here.

    Why a protocol and not the game class: the game draws its views with these functions, so
    naming the class here would tie the two files in a circle.
    """

    agents: list[str]
    tick: int
    max_ticks: int
    message_action: str
    opening: Opening
    task: Task
    apartment: Apartment
    names: dict[int, str]
    goal_of: dict[str, Predicate]
    goal_text: str
    minds: list[SeatMind]
    rooms: list[int]
    holding: list[list[int]]
    contents: dict[int, set[int]]
    is_open: dict[int, bool]
    dialogue: list[tuple[int, str, str]]
    opening_lines: list[tuple[int, str, str]]
    team: Structures


DIALOGUE_LINES = 5
HISTORY_LINES = 10


ID_NOTE = "- Everything is written as <name> (id), for example <fridge> (105)."
"""The rules' line on the id notation of the prompt, which a page that writes plain names omits."""


def intro_text(seat: str, others: list[str], goal: str, max_ticks: int) -> str:
    """The rules of the game for a player's prompt."""
    team = f"together with {', '.join(others)}" if others else "on your own"
    return (
        f"You are {seat}, working {team} in a shared apartment with a livingroom, kitchen, "
        "bedroom and bathroom.\n"
        f"Goal: {goal}\n"
        "How the game works:\n"
        f"{ID_NOTE}\n"
        "- You only see what is in your current room and inside containers that are open. "
        "You can check, grab or put only at things you have seen yourself; a teammate's message "
        "can tell you where to look, but you still have to go and see.\n"
        "- You can carry at most two objects at a time.\n"
        "- Actions take time: walking between rooms, opening containers and picking up or "
        "placing objects all cost time steps. Sending a message costs exactly one time step "
        "and every teammate receives it.\n"
        f"- The team succeeds when every goal object is in place; after {max_ticks} time steps "
        "the episode fails.\n"
        "- Choose exactly one of the listed available actions; anything else wastes a time step."
    )


def _where(game: HouseholdState, at: int | str, you: str) -> str:
    if isinstance(at, str):
        return "held by you" if at == you else f"held by {at}"
    fixture = game.apartment.fixtures[at]
    prep = "in" if fixture.container else "on"
    return f"{prep} {token(fixture.name, fixture.id)}"


def observation(game: HouseholdState, i: int, actions: list[str]) -> Observation:
    """Observation text, state and anchor of seat i (rendered only when it must decide)."""
    state = build_state(game, i)
    return Observation(
        seat=game.agents[i],
        tick=game.tick,
        text=render_text(game, state, actions),
        actions=actions,
        anchor=anchor(game, i),
        state=state,
        message_action=game.message_action,
    )


def build_state(game: HouseholdState, i: int) -> dict[str, Any]:
    """Structured form of what seat i knows (ids throughout).

    ``apartment`` names the floor plan (public knowledge, like the goal) so scripted players can
    place the rooms and fixtures a teammate's message names; everything about objects and
    containers comes from the seat's own observations.
    """
    apt, mind, names = game.apartment, game.minds[i], game.names
    room = game.rooms[i]
    contents: dict[int, list[int]] = {}
    for obj, at in mind.where.items():
        if isinstance(at, int):
            contents.setdefault(at, []).append(obj)
    fixtures = []
    for fid in sorted(mind.fixtures):
        fx = apt.fixtures[fid]
        seen = not fx.container or fid in mind.checked
        fixtures.append(
            {
                "id": fid,
                "name": fx.name,
                "room": fx.room,
                "container": fx.container,
                "open": mind.fixtures[fid],
                "checked": seen,
                "objects": sorted(contents.get(fid, ())) if seen else None,
            }
        )
    goal_objects = [
        {"id": o, "name": names[o], "at": at}
        for o, at in sorted(mind.where.items())
        if names[o] in game.goal_of
    ]
    placed = known_progress(game, i)
    progress = [
        {"object": p.object, "count": p.count, "placed": placed[p.object]} for p in game.task.goal
    ]
    return {
        "seat": game.agents[i],
        "seats": list(game.agents),
        "apartment": apt.id,
        "tick": game.tick,
        "max_ticks": game.max_ticks,
        "goal": [vars(p) | {"target_name": apt.fixtures[p.target].name} for p in game.task.goal],
        "room": room,
        "holding": list(game.holding[i]),
        "rooms": [
            {
                "id": r.id,
                "name": r.name,
                "explored": r.id in mind.explored,
                "ticks": apt.travel[room, r.id],
            }
            for r in apt.rooms.values()
        ],
        "fixtures": fixtures,
        "goal_objects": goal_objects,
        "progress": progress,
        "partners": {
            name: {"room": v.room, "holding": list(v.holding), "seen_tick": v.seen_tick}
            for name, v in mind.partners.items()
        },
        "dialogue": [
            {"tick": t, "speaker": s, "text": m}
            for t, s, m in visible_dialogue(game.dialogue, len(game.opening_lines), DIALOGUE_LINES)
        ],
        "history": mind.history[-HISTORY_LINES:],
        "opening": game.opening,
        **({"structure": game.team.view(game.agents[i])} if game.team.active else {}),
    }


def known_progress(game: HouseholdState, i: int) -> dict[str, int]:
    """Goal objects of each predicate that seat ``i`` has seen in place (capped at the count)."""
    mind, names = game.minds[i], game.names
    placed = {}
    for p in game.task.goal:
        here = sum(1 for o, at in mind.where.items() if at == p.target and names[o] == p.object)
        placed[p.object] = min(p.count, here)
    return placed


def final_observation(game: HouseholdState, i: int, placed: dict[str, int]) -> Observation:
    """What seat i sees once the episode is over: its last view, with no actions, and the goal
    progress as it truly ended (``placed``; the outcome says so anyway; "book 3/3" beside
    "Success")."""
    state = build_state(game, i)
    for entry in state["progress"]:
        entry["placed"] = placed[entry["object"]]
    state["goal_objects"] = true_goal_objects(game)
    state["final"] = True  # the progress above is the true one, not the seat's belief
    return Observation(
        seat=game.agents[i],
        tick=game.tick,
        text=render_text(game, state, []),
        actions=[],
        anchor=anchor(game, i),
        state=state,
        message_action=game.message_action,
    )


def true_goal_objects(game: HouseholdState) -> list[dict[str, Any]]:
    """Where every goal object really is (a fixture id, or the seat holding it): the final view
    shows the finished state, not the seat's last beliefs ("book 2 held by Bob" beside 3/3)."""
    at: dict[int, int | str] = {o: f for f, objs in game.contents.items() for o in objs}
    at.update({o: game.agents[j] for j, held in enumerate(game.holding) for o in held})
    return [
        {"id": o, "name": game.names[o], "at": at[o]}
        for o in sorted(at)
        if game.names[o] in game.goal_of
    ]


def render_text(game: HouseholdState, state: dict[str, Any], actions: list[str]) -> str:
    """The observation text (goal, progress, dialogue, own history, lettered actions)."""
    apt, names, you = game.apartment, game.names, state["seat"]
    held = [token(names[o], o) for o in state["holding"]]
    free = HOLD_LIMIT - len(held)
    hands = f"{', '.join(held) or 'nothing'} ({free} free hand{'s' if free != 1 else ''})"
    explored = [apt.room_token(r["id"]) for r in state["rooms"] if r["explored"]]
    unexplored = [apt.room_token(r["id"]) for r in state["rooms"] if not r["explored"]]
    lines = [
        f"Goal: {game.goal_text}",
        f"Time: step {state['tick']} of {state['max_ticks']}.",
        "Progress:",
        f"- You are in {apt.room_token(state['room'])}; holding: {hands}.",
        f"- Goal objects in place{'' if state.get('final') else ' (as far as you know)'}: "
        + ", ".join(f"{p['object']} {p['placed']}/{p['count']}" for p in state["progress"])
        + ".",
        f"- Explored rooms: {', '.join(explored) or 'none'}; "
        f"unexplored rooms: {', '.join(unexplored) or 'none'}.",
    ]
    found = []
    for f in state["fixtures"]:
        where = f"{token(f['name'], f['id'])} in {apt.room_token(f['room'])}"
        if f["objects"] is None:
            status = "closed, not checked" if f["open"] is False else "not checked"
            found.append(f"{where} ({status})")
        else:
            items = ", ".join(token(names[o], o) for o in f["objects"]) or "nothing"
            found.append(f"{where}: {items}")
    lines.append(f"- Furniture and containers found: {'; '.join(found) or 'none'}.")
    goal_found = [
        f"{token(g['name'], g['id'])} {_where(game, g['at'], you)}" for g in state["goal_objects"]
    ]
    lines.append(f"- Goal objects found: {'; '.join(goal_found) or 'none yet'}.")
    for name, p in state["partners"].items():
        if p["seen_tick"] is None:
            seen = f"- {name}: not seen yet"
        else:
            carry = ", ".join(token(names[o], o) for o in p["holding"]) or "nothing"
            seen = (
                f"- {name}: last seen in {apt.room_token(p['room'])} at step {p['seen_tick']}, "
                f"holding {carry}"
            )
        lines.append(seen + ".")
    lines.append("Dialogue (last 5):")
    lines.extend(f'{d["speaker"]}: "{d["text"]}"' for d in state["dialogue"])
    if not state["dialogue"]:
        lines.append("(no messages yet)")
    lines.append("Your previous actions (last 10):")
    lines.extend(state["history"] or ["(none yet)"])
    lines.extend(game.team.lines(you))
    lines.append("Available actions:")
    lines.append(lettered(actions))
    return "\n".join(lines)


def anchor(game: HouseholdState, i: int) -> tuple:
    """GiGPO anchor: own room, hands, known goal-object places, containers, progress, partners,
    and, under a collaboration structure, what it adds (board sections filled, gate state)."""
    mind, names = game.minds[i], game.names
    goal_where = tuple(sorted((o, at) for o, at in mind.where.items() if names[o] in game.goal_of))
    containers = tuple(
        sorted((f, mind.fixtures[f], f in mind.checked) for f in mind.fixtures if f in game.is_open)
    )
    progress = tuple(
        sum(1 for o, at in mind.where.items() if at == p.target and names[o] == p.object)
        for p in game.task.goal
    )
    partners = tuple((n, v.room, v.holding) for n, v in sorted(mind.partners.items()))
    key = (game.rooms[i], tuple(game.holding[i]), goal_where, containers, progress, partners)
    return (*key, game.team.anchor(game.agents[i])) if game.team.active else key
