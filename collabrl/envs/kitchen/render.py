"""What a seat sees at a decision point: structured state, prompt text and GiGPO anchor key.

The structured state is built first; text and anchor are both derived from it, so they never
disagree. No positions are shown: CollabBench's Cook prompts forbid location information.
Teammates' held items are shown unless the ``holdings`` option hides them (by default on
forced_coordination, as the released code does).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from collabrl.envs.base import lettered
from collabrl.envs.kitchen.engine import COOK_TIME, SOUP_ONIONS, Chef, Item, KitchenState, Soup
from collabrl.envs.kitchen.layouts import DISH_SOURCE, ONION_SOURCE, POT, SERVE, Layout

REACH_KINDS = {
    POT: "pots",
    ONION_SOURCE: "onion dispenser",
    DISH_SOURCE: "dish dispenser",
    SERVE: "serving counter",
}
_HELD_TEXT = {None: "nothing", "onion": "an onion", "dish": "an empty dish", "soup": "a soup"}

# Whether a seat sees what its teammates hold (``holdings``). "released": as the released ProAgent
# code renders the scene, which leaves the teammate out on forced_coordination (the paper says
# nothing); "always": on every layout.
HOLDINGS = ("released", "always")
RELEASED_HIDDEN_HOLDINGS = frozenset({"forced_coordination"})
HIDDEN = "unknown"
"""A teammate's ``held`` in the structured observation when the seat cannot see it."""


def shows_holdings(layout: str, holdings: str) -> bool:
    """Whether seats on ``layout`` see their teammates' held items under ``holdings``."""
    if holdings not in HOLDINGS:
        raise ValueError(f"holdings must be one of {HOLDINGS}, got {holdings!r}")
    return holdings == "always" or layout not in RELEASED_HIDDEN_HOLDINGS


def item_name(item: Item | None) -> str | None:
    """``None``, ``"onion"``, ``"dish"`` or ``"soup"``."""
    return "soup" if isinstance(item, Soup) else item


def pot_view(soup: Soup | None, cook_time: int) -> dict[str, Any]:
    """Onion count, status (empty / filling / full / cooking / ready) and ticks left to cook."""
    if soup is None:
        return {"onions": 0, "status": "empty", "remaining": 0}
    if soup.idle:
        status = "full" if soup.onions >= SOUP_ONIONS else "filling"
        return {"onions": soup.onions, "status": status, "remaining": 0}
    remaining = max(0, cook_time - soup.tick)
    return {
        "onions": soup.onions,
        "status": "cooking" if remaining else "ready",
        "remaining": remaining,
    }


def state_frame(state: KitchenState) -> dict[str, Any]:
    """A kitchen state as a frame: what the board draws and what recorded frames hold (a human
    session's, or a recorded trial's), so a frame can be read back into a state."""
    return {
        "tick": state.tick,
        "score": state.score,
        "chefs": [
            {"x": c.pos[0], "y": c.pos[1], "facing": list(c.facing), "held": item_name(c.held)}
            for c in state.chefs
        ],
        "pots": [
            {"x": p[0], "y": p[1], "onions": s.onions, "cooking": s.tick}
            for p, s in sorted(state.pots.items())
        ],
        "counters": [
            {"x": p[0], "y": p[1], "item": item_name(i)} for p, i in sorted(state.counters.items())
        ],
    }


def frame_state(frame: dict[str, Any]) -> KitchenState:
    """A board frame (:func:`state_frame`) read back into a kitchen state (score 0): a held or
    counter soup is a finished one, as only finished soups leave a pot."""

    def item(name: str | None) -> Item | None:
        return Soup(3, COOK_TIME) if name == "soup" else name

    return KitchenState(
        chefs=[
            Chef((c["x"], c["y"]), (c["facing"][0], c["facing"][1]), item(c["held"]))
            for c in frame["chefs"]
        ],
        pots={(p["x"], p["y"]): Soup(p["onions"], p["cooking"]) for p in frame["pots"]},
        counters={(c["x"], c["y"]): item(c["item"]) for c in frame["counters"]},  # type: ignore[misc]
        tick=frame["tick"],
    )


def reach_kinds(layout: Layout, reachable: frozenset) -> list[str]:
    """Which kinds of kitchen stations a chef can reach, in a fixed order."""
    return [
        name
        for kind, name in REACH_KINDS.items()
        if any(t in reachable for t in layout.of_kind(kind))
    ]


def station_summary(layout: Layout) -> str:
    """E.g. ``"1 pot, 2 onion dispensers, 1 dish dispenser, 1 serving counter"``."""
    parts = []
    for kind, plural in REACH_KINDS.items():
        n = len(layout.of_kind(kind))
        singular = "pot" if kind == POT else plural
        parts.append(f"{n} {singular if n == 1 else plural if kind == POT else plural + 's'}")
    return ", ".join(parts)


def build_state(
    *,
    layout: Layout,
    state: KitchenState,
    seat: int,
    names: list[str],
    skills: list[str | None],
    reach: list[list[str]],
    cook_time: int,
    horizon: int,
    soups_delivered: int,
    chat: list[tuple[int, str, str]],
    partner_holdings: bool = True,
) -> dict[str, Any]:
    """Structured observation for seat index ``seat`` (JSON-friendly). ``partner_holdings``
    False: teammates' ``held`` is :data:`HIDDEN`."""

    def chef(i: int) -> dict[str, Any]:
        seen = i == seat or partner_holdings
        return {
            "name": names[i],
            "index": i,
            "held": item_name(state.chefs[i].held) if seen else HIDDEN,
            "skill": skills[i],
            "can_reach": reach[i],
        }

    return {
        "layout": layout.name,
        "kitchen": station_summary(layout),
        "tick": state.tick,
        "horizon": horizon,
        "score": state.score,
        "soups_delivered": soups_delivered,
        "self": chef(seat),
        "partners": [chef(i) for i in range(len(names)) if i != seat],
        "pots": [pot_view(state.pots.get(p), cook_time) for p in layout.pots],
        "counters": dict(sorted(Counter(item_name(i) for i in state.counters.values()).items())),
        "chat": [{"tick": t, "seat": s, "text": m} for t, s, m in chat],
    }


def anchor_key(view: dict[str, Any]) -> tuple[Hashable, ...]:
    """Own held item, partners' held items and running skills, pot statuses, counter contents."""
    return (
        view["self"]["held"],
        tuple((p["held"], p["skill"]) for p in view["partners"]),
        tuple((p["onions"], p["status"]) for p in view["pots"]),
        tuple(view["counters"].items()),
    )


def _pot_line(i: int, pot: dict[str, Any]) -> str:
    n, status = pot["onions"], pot["status"]
    onions = f"{n} onion{'s' if n != 1 else ''}"
    text = {
        "empty": "empty",
        "filling": f"{onions}, not cooking (needs {SOUP_ONIONS - n} more)",
        "full": f"{onions}, full but not cooking yet (start_cooking() starts it)",
        "cooking": f"cooking {onions}, ready in {pot['remaining']} steps",
        "ready": f"soup of {onions} is ready to be served",
    }[status]
    return f"Pot {i + 1}: {text}."


def render_text(view: dict[str, Any], actions: list[str], notes: Sequence[str] = ()) -> str:
    """Prompt text: timestep, kitchen, who holds what, pots, counters, recent chat, ``notes``
    (the collaboration structure's lines), actions."""
    me = view["self"]
    lines = [
        f"Timestep {view['tick']} of {view['horizon']}. Score {view['score']} "
        f"({view['soups_delivered']} soup{'' if view['soups_delivered'] == 1 else 's'} delivered).",
        f"Kitchen {view['layout']}: {view['kitchen']}.",
        f"You are {me['name']}, holding {_HELD_TEXT[me['held']]}.",
    ]
    missing = [k for k in REACH_KINDS.values() if k not in me["can_reach"]]
    if missing:
        lines.append(
            f"You cannot reach: {', '.join(missing)}. Hand items over on a shared counter."
        )
    for p in view["partners"]:
        doing = f"doing {p['skill']}" if p["skill"] else "deciding what to do"
        if p["held"] == HIDDEN:
            lines.append(f"{p['name']} is {doing}.")
        else:
            lines.append(f"{p['name']} is holding {_HELD_TEXT[p['held']]} and {doing}.")
    lines += [_pot_line(i, pot) for i, pot in enumerate(view["pots"])]
    stock = ", ".join(f"{n} {k}{'s' if n > 1 else ''}" for k, n in view["counters"].items())
    lines.append(f"Items on counters: {stock or 'none'}.")
    if view["chat"]:
        lines.append("Recent chat:")
        lines += [f"  [{c['tick']}] {c['seat']}: {c['text']}" for c in view["chat"]]
    else:
        lines.append("Recent chat: none yet.")
    lines += [*notes, "Available actions:", lettered(actions)]
    return "\n".join(lines)
