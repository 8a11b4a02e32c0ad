"""What a relay seat is shown: intro rules, observation text, structured state and anchor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collabrl.envs.base import Observation, lettered

if TYPE_CHECKING:
    from relay_game.game import RelayGame

DIALOGUE_LINES = 6  # dialogue lines quoted in the observation text (the state has them all)
HISTORY_LINES = 6  # own previous actions quoted in the observation text
MAP_TEXT = {
    "pickup": "where each parcel lay at the start",
    "destination": "the room each parcel must be delivered to",
}


def zone_text(lo: int, hi: int) -> str:
    return f"rooms {lo}-{hi}"


def intro_text(game: RelayGame, i: int) -> str:
    """The rules of the game for seat i's prompt."""
    seat, (lo, hi) = game.agents[i], game.zones[i]
    others = ", ".join(
        f"{name} ({zone_text(*zone)})"
        for name, zone in zip(game.agents, game.zones, strict=True)
        if name != seat
    )
    parcels = ", ".join(f"<{p.name}>" for p in game.task.parcels)
    kind = game.map_kind(i)
    return (
        f"You are {seat}, one of a relay team of couriers in a corridor of rooms 0-"
        f"{game.task.rooms - 1} (west to east). You work {zone_text(lo, hi)}; your teammates: "
        f"{others}.\n"
        f"Goal: deliver every parcel ({parcels}) to its destination room.\n"
        "How the game works:\n"
        "- You can only walk within your own rooms. Neighbouring couriers share the room where "
        "their stretches meet: drop a parcel there and the next courier can carry it on.\n"
        f"- Your map shows {MAP_TEXT[kind]}; a teammate holds the other half of the picture. "
        "You see the parcels lying in your own room; nothing else unless a teammate tells you.\n"
        "- You carry at most one parcel. Dropping it in its destination room delivers it; "
        "dropped anywhere else it lies there for anyone to pick up.\n"
        "- Actions take time: walking one tick per room, picking up, dropping and waiting one "
        "tick each. Sending a message costs exactly one tick and every teammate receives it.\n"
        f"- The team succeeds when every parcel is delivered; after {game.max_ticks} ticks the "
        "episode fails.\n"
        "- Choose exactly one of the listed available actions; anything else wastes a tick."
    )


def observation(game: RelayGame, i: int, actions: list[str]) -> Observation:
    """Observation text, state and anchor of seat i (rendered only when it must decide)."""
    state = build_state(game, i)
    return Observation(
        seat=game.agents[i],
        tick=game.tick,
        text=render_text(state, actions),
        actions=actions,
        anchor=anchor(game, i),
        state=state,
        message_action=game.message_action,
    )


def build_state(game: RelayGame, i: int) -> dict[str, Any]:
    """Structured form of what seat i knows: its own half of the picture, never the other half.

    The zones are public (every seat knows who works where), so is the list of delivered
    parcels; ``dialogue`` holds every line so far, for scripted players that read messages.
    """
    return {
        "seat": game.agents[i],
        "seats": list(game.agents),
        "tick": game.tick,
        "max_ticks": game.max_ticks,
        "rooms": game.task.rooms,
        "zones": {a: list(z) for a, z in zip(game.agents, game.zones, strict=True)},
        "parcels": [p.name for p in game.task.parcels],
        "room": game.rooms[i],
        "holding": list(game.holding[i]),
        "here": game.here(i),
        "map_kind": game.map_kind(i),
        "map": dict(game.maps[i]),
        "delivered": list(game.delivered),
        "dialogue": [{"tick": t, "speaker": s, "text": m} for t, s, m in game.dialogue],
        "history": game.history[i][-HISTORY_LINES:],
    }


def render_text(state: dict[str, Any], actions: list[str]) -> str:
    """The observation text (goal, progress, what the seat sees and knows, dialogue, actions)."""
    parcels, delivered = state["parcels"], state["delivered"]
    zones = "; ".join(f"{a}: {zone_text(*z)}" for a, z in state["zones"].items())
    lines = [
        f"Goal: deliver every parcel ({', '.join(f'<{p}>' for p in parcels)}) to its "
        "destination room.",
        f"Time: tick {state['tick']} of {state['max_ticks']}.",
        f"Zones: {zones}.",
        f"You are in room {state['room']}, carrying "
        f"{', '.join(f'<{p}>' for p in state['holding']) or 'nothing'}.",
        f"Parcels lying here: {', '.join(f'<{p}>' for p in state['here']) or 'none'}.",
        f"Your map ({MAP_TEXT[state['map_kind']]}): "
        + "; ".join(f"<{p}> room {r}" for p, r in state["map"].items())
        + ".",
        f"Delivered: {', '.join(f'<{p}>' for p in delivered) or 'none'} "
        f"({len(delivered)} of {len(parcels)}).",
        f"Dialogue (last {DIALOGUE_LINES}):",
    ]
    dialogue = state["dialogue"][-DIALOGUE_LINES:]
    lines.extend(f'{d["speaker"]}: "{d["text"]}"' for d in dialogue)
    if not dialogue:
        lines.append("(no messages yet)")
    lines.append(f"Your previous actions (last {HISTORY_LINES}):")
    lines.extend(state["history"] or ["(none yet)"])
    lines.append("Available actions:")
    lines.append(lettered(actions))
    return "\n".join(lines)


def anchor(game: RelayGame, i: int) -> tuple:
    """GiGPO anchor: own room, hands, parcels seen here, delivered parcels (no tick, dialogue or
    map: the map is fixed for a seat within a task, so it would not split anchor groups)."""
    return (
        game.rooms[i],
        tuple(game.holding[i]),
        tuple(game.here(i)),
        tuple(sorted(game.delivered)),
    )
