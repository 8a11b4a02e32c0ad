"""KitchenExpert: a rule-based skill player for Cook-MultiPlayer (baseline partner and sanity check).

It reads only what a seat is shown (structured observation and offered actions) and coordinates
through the partner's visible held item and running skill, so two experts split the work
(one fetches the dish while the other fetches onions) instead of doing the same thing.
Under a collaboration structure it approves every request addressed to it at once, as the first
seat chooses the gate owners a scaffolded team lacks, and with a group-memory board it writes
its opening plan there (under "responsibilities") instead of saying it.
"""

from __future__ import annotations

from typing import Any

from collabrl.envs.base import Decision, Observation, format_response
from collabrl.envs.kitchen.skills import (
    DELIVER,
    FILL_DISH,
    PICKUP_DISH,
    PICKUP_ONION,
    PICKUP_SOUP,
    PLACE_ON_COUNTER,
    PUT_ONION,
    SET_MESSAGE,
    START_COOKING,
    WAIT,
)
from collabrl.envs.structures import StructureView, organises, pick_owner

# Scores of two rule-based skill agents over 400 ticks on Overcooked-AI 1.1.0 (collabbench-facts.md;
# counter_circuit is Overcooked-AI's counter_circuit_o_1order).
REFERENCE_SCORES = {
    "cramped_room": 160,
    "asymmetric_advantages": 340,
    "coordination_ring": 140,
    "forced_coordination": 260,
    "counter_circuit": 80,
}
DISH_LEAD = 8  # fetch the dish when a cooking soup is at most this many ticks from ready
SUPPLY_SLACK = 2  # extra onions a chef who cannot reach the pots keeps on the counters


class KitchenExpert:
    """Greedy kitchen player usable in any seat; ``act`` returns think/message/action text.

    It idles with the bare ``wait(x)`` entry (one tick), which every parser accepts verbatim.
    """

    def __init__(self, name: str = "kitchen-expert", greet: bool = True) -> None:
        self.name = name
        self.greet = greet
        self._greeted = False

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self._greeted = False

    def act(self, obs: Observation) -> str:
        return format_response(*self.respond(obs))

    def decide(self, obs: Observation) -> Decision:
        """The same choice as ``act`` as a ready-made Decision (no text round trip)."""
        think, message, action = self.respond(obs)
        return Decision(action=action, message=message, think=think)

    def respond(self, obs: Observation) -> tuple[str, str, str]:
        """(think, message, action) for this decision point."""
        view = StructureView.of(obs.state)
        if view is not None and view.to_decide:
            return "A request for my approval: approve it.", "", view.to_decide[0]["approve"]
        chefs = sorted([obs.state["self"], *obs.state["partners"]], key=lambda c: c["index"])
        seats, me = [c["name"] for c in chefs], obs.state["self"]["name"]
        if view is not None and organises(view, me, seats, obs.state["tick"]):
            kind = view.unassigned()[0]
            return "The team needs an approver.", "", view.assign[kind][pick_owner(view, me, seats)]
        action, reason = self.choose(obs.state, obs.actions)
        plan = {
            PICKUP_ONION: "I'll bring an onion.",
            PICKUP_DISH: "I'll get a dish for the soup.",
            FILL_DISH: "I'll fill my dish with soup.",
            DELIVER: "Serving a soup now!",
            PUT_ONION: "Adding an onion to the pot.",
            PLACE_ON_COUNTER: "Leaving this on the counter for you.",
        }.get(action, "Waiting for the right moment.")
        if not self._greeted and self.greet and SET_MESSAGE in obs.actions:
            self._greeted = True
            partner = ", ".join(p["name"] for p in obs.state["partners"])
            return (
                f"Start of the game; I tell {partner} how I will work.",
                f"Hi {partner}! I'll keep the pots filled with onions and grab a dish whenever a "
                "soup is cooking and nobody else is on it."
                if "pots" in obs.state["self"]["can_reach"]
                else f"Hi {partner}! I can't reach the pots, so I'll pass you onions and dishes "
                "over the counter; you cook and serve.",
                view.update["responsibilities"]
                if view is not None and view.has_board
                else SET_MESSAGE,
            )
        return reason, plan, action

    def choose(self, view: dict[str, Any], actions: list[str]) -> tuple[str, str]:
        """(action, one-line reason) from the structured observation."""
        me, partners = view["self"], view["partners"]
        held = me["held"]
        reaches_pot = "pots" in me["can_reach"]

        def pick(*options: str) -> str | None:
            return next((o for o in options if o in actions), None)

        if held == "soup":
            return pick(DELIVER, PLACE_ON_COUNTER) or WAIT, "I hold a soup, so I serve it."
        if held == "dish":
            if FILL_DISH in actions:
                return FILL_DISH, "I hold a dish and a soup is cooking or ready."
            if not reaches_pot:
                return pick(PLACE_ON_COUNTER) or WAIT, "I cannot reach the pots: hand over."
            return WAIT, "I hold a dish but no soup is on the way yet."
        if held == "onion":
            if PUT_ONION in actions:
                return PUT_ONION, "I hold an onion and a pot has room."
            free_partner = any(p["held"] is None and "pots" in p["can_reach"] for p in partners)
            if not reaches_pot or (self._dish_missing(view, reaches_pot) and not free_partner):
                why = "hand it over" if not reaches_pot else "free my hands for a dish"
                return pick(PLACE_ON_COUNTER) or WAIT, f"Pots are full; {why}."
            return WAIT, "Pots are full; I keep the onion for the next soup."
        if START_COOKING in actions:
            return START_COOKING, "A pot holds 3 onions; start it."
        if PICKUP_SOUP in actions and "serving counter" in me["can_reach"]:
            return PICKUP_SOUP, "A finished soup waits on a counter."
        jobs = self._jobs(view, reaches_pot)
        contested = [j for j in jobs if j in actions]
        partner_deciding = any(
            p["skill"] is None and p["held"] is None and p["index"] < me["index"] for p in partners
        )
        if partner_deciding and len(contested) > 1:
            contested = contested[1:]  # the lower seat takes the top job
        if contested:
            job = contested[0]
            return job, f"{'A dish' if job == PICKUP_DISH else 'An onion'} is needed next."
        return WAIT, "Nothing useful to do right now."

    def _jobs(self, view: dict[str, Any], reaches_pot: bool) -> list[str]:
        """Empty-handed jobs in priority order."""
        pots = view["pots"]
        onion_gap = sum(3 - p["onions"] for p in pots if p["status"] in ("empty", "filling"))
        onion_gap -= self._coming(view, "onion", PICKUP_ONION, reaches_pot)
        dish_gap = self._dish_missing(view, reaches_pot)
        soon = any(
            p["status"] == "ready" or (p["status"] == "cooking" and p["remaining"] <= DISH_LEAD)
            for p in pots
        )
        jobs = []
        if dish_gap and (soon or onion_gap <= 0):
            jobs.append(PICKUP_DISH)
        if onion_gap > 0:
            jobs.append(PICKUP_ONION)
        if dish_gap and PICKUP_DISH not in jobs:
            jobs.append(PICKUP_DISH)
        if reaches_pot or onion_gap > -SUPPLY_SLACK:
            jobs.append(PICKUP_ONION)  # hold (or stock) an onion for the next soup
        return list(dict.fromkeys(jobs))

    def _dish_missing(self, view: dict[str, Any], reaches_pot: bool) -> bool:
        soups = sum(p["status"] in ("cooking", "ready", "full") for p in view["pots"])
        return soups > self._coming(view, "dish", PICKUP_DISH, reaches_pot)

    @staticmethod
    def _coming(view: dict[str, Any], item: str, pickup: str, reaches_pot: bool) -> int:
        """Items of this kind already on their way to the pots, not counting my own hands."""
        count = 0
        for p in view["partners"]:
            busy = p["skill"] in (pickup, FILL_DISH if item == "dish" else PUT_ONION)
            if (p["held"] == item or busy) and "pots" in p["can_reach"]:
                count += 1
        if not reaches_pot:  # a supplier's stock on the counters is on its way too
            count += view["counters"].get(item, 0)
        return count
