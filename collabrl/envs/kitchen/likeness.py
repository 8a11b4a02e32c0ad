"""How people play the kitchen, in numbers: statistics computed identically from a recorded human
trial and from simulated play (both: states per tick, joint low-level actions, rewards).

Per episode, both chefs pooled (counts per 1,200 ticks, the length of a recorded trial):

- ``score`` and ``soups``: points and soups delivered per 1,200 ticks;
- ``idle``: share of chef-ticks standing still; ``interacts``: interactions per 100 chef-ticks;
- ``useful_interacts``: share of interactions that change what the chef holds;
- ``turns``: share of moves pressed into a non-floor tile (people do it to face a counter);
- ``blocked``: share of moves towards a free floor cell that did not happen (the other chef
  was in the way, or both wanted the same cell);
- ``delivery_gap``: mean ticks between consecutive deliveries (episodes with fewer than two
  deliveries have none);
- the skill mix: which share of the chef's item changes were ``onion`` (from a dispenser),
  ``pot`` (an onion into a pot), ``dish`` (from a dispenser), ``fill`` (a soup onto a dish),
  ``deliver``, ``place`` (anything onto a counter), ``take`` (anything off a counter);
- ``skill_order``: the entropy (bits) of a chef's next skill given its last one, low when play
  follows the soup cycle and high when it wanders.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from collabrl.envs.kitchen.engine import INTERACT, MOVES, STAY, KitchenState, Soup
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.human_data import JointAction, copy_state
from collabrl.envs.kitchen.layouts import (
    COUNTER,
    DISH_SOURCE,
    ONION_SOURCE,
    POT,
    SERVE,
    Layout,
    load_layout,
)

TRIAL_TICKS = 1200  # counts are scaled to this episode length
SKILLS = ("onion", "pot", "dish", "fill", "deliver", "place", "take")
STATISTICS = (
    "score",
    "soups",
    "idle",
    "interacts",
    "useful_interacts",
    "turns",
    "blocked",
    "delivery_gap",
    *(f"skill_{s}" for s in SKILLS),
    "skill_order",
)


@dataclass
class Play:
    """One episode of kitchen play at the tick level (a recorded trial or a simulated one)."""

    layout: str
    states: list[KitchenState] = field(default_factory=list)  # one more than actions
    actions: list[JointAction] = field(default_factory=list)
    rewards: list[int] = field(default_factory=list)


def skill_of(before: object, after: object, faced: str | None) -> str | None:
    """The skill an item change was (see the module docstring), or None for no change."""
    if before == after:
        return None
    if faced == COUNTER:
        return "place" if after is None else "take"
    if after == "onion" and faced == ONION_SOURCE:
        return "onion"
    if before == "onion" and faced == POT:
        return "pot"
    if after == "dish" and faced == DISH_SOURCE:
        return "dish"
    if before == "dish" and isinstance(after, Soup):
        return "fill"
    if isinstance(before, Soup) and faced == SERVE:
        return "deliver"
    return None


def statistics(play: Play) -> dict[str, float]:
    """Every statistic of ``STATISTICS`` for one episode (NaN where it has no instance)."""
    layout = load_layout(play.layout)
    ticks = len(play.actions)
    chefs = len(play.states[0].chefs)
    counts: Counter[str] = Counter()
    skills: list[list[str]] = [[] for _ in range(chefs)]
    for t, joint in enumerate(play.actions):
        before, after = play.states[t], play.states[t + 1]
        for i, action in enumerate(joint):
            _count_action(layout, before, after, i, action, counts, skills[i])
    deliveries = [t for t, r in enumerate(play.rewards) if r > 0]
    scale = TRIAL_TICKS / ticks
    chef_ticks = chefs * ticks
    made = Counter(s for seq in skills for s in seq)
    total_skills = sum(made.values())
    out = {
        "score": sum(play.rewards) * scale,
        "soups": len(deliveries) * scale,
        "idle": counts["stay"] / chef_ticks,
        "interacts": 100 * counts["interact"] / chef_ticks,
        "useful_interacts": _share(counts["useful"], counts["interact"]),
        "turns": _share(counts["turn"], counts["move"]),
        "blocked": _share(counts["blocked"], counts["move"] - counts["turn"]),
        "delivery_gap": (
            (deliveries[-1] - deliveries[0]) / (len(deliveries) - 1)
            if len(deliveries) > 1
            else math.nan
        ),
    }
    for s in SKILLS:
        out[f"skill_{s}"] = _share(made[s], total_skills)
    out["skill_order"] = _conditional_entropy(skills)
    return out


def _count_action(
    layout: Layout,
    before: KitchenState,
    after: KitchenState,
    i: int,
    action: str,
    counts: Counter[str],
    skills: list[str],
) -> None:
    chef, then = before.chefs[i], after.chefs[i]
    if action == STAY:
        counts["stay"] += 1
    elif action == INTERACT:
        counts["interact"] += 1
        if chef.held != then.held:
            counts["useful"] += 1
            faced = (chef.pos[0] + chef.facing[0], chef.pos[1] + chef.facing[1])
            skill = skill_of(chef.held, then.held, layout.tiles.get(faced))
            if skill is not None:
                skills.append(skill)
    else:
        counts["move"] += 1
        dx, dy = MOVES[action]
        target = (chef.pos[0] + dx, chef.pos[1] + dy)
        if target not in layout.floor:
            counts["turn"] += 1
        elif then.pos == chef.pos:
            counts["blocked"] += 1


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def _conditional_entropy(sequences: Sequence[Sequence[str]]) -> float:
    """H(next skill | previous skill) in bits over every chef's consecutive skills."""
    pairs = Counter((a, b) for seq in sequences for a, b in zip(seq, seq[1:], strict=False))
    total = sum(pairs.values())
    if not total:
        return math.nan
    firsts = Counter[str]()
    for (a, _), n in pairs.items():
        firsts[a] += n
    return -sum(n / total * math.log2(n / firsts[a]) for (a, _), n in pairs.items())


class PlayRecorder:
    """Records a :class:`~collabrl.envs.kitchen.game.KitchenGame` tick by tick into a
    :class:`Play` (a tick listener: the game's state and the joint action it applied)."""

    def __init__(self, game: KitchenGame) -> None:
        self.game = game
        self.play = Play(game.layout.name)
        self._score = 0
        game.tick_listeners.append(self._tick)

    def start(self) -> None:
        """Begin a new episode (call after ``game.reset``)."""
        state = self.game.state
        self.play = Play(self.play.layout, [copy_state(state)])
        self._score = state.score

    def _tick(self, game: KitchenGame) -> None:
        state = game.state
        self.play.states.append(copy_state(state))
        self.play.actions.append(tuple(game.last_moves))
        self.play.rewards.append(state.score - self._score)
        self._score = state.score
