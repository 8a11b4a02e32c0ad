"""Measure how personas play: one episode's behaviour numbers and per-type averages.

Shared by ``benchmarks/persona_behaviour.py`` and the tests, so both judge the same quantities:
message rate, speed (household steps, failures count as the time limit) or score (kitchen),
success, invalid rate, reassurance questions, instructions and honoured requests.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from collabrl.agents.persona import PersonaBase
from collabrl.agents.player import Player
from collabrl.envs.registry import get_game
from collabrl.episode import play_episode
from collabrl.factory import make_persona
from collabrl.profiles.schema import Profile


@dataclass
class Outcome:
    """What one persona did in one episode, next to one partner."""

    player_type: str
    success: bool
    steps: int  # household: success tick or the time limit; kitchen: ticks played
    score: int  # kitchen score; household: 0
    decisions: int
    messages: int
    invalid: int
    stats: Counter[str] = field(default_factory=Counter)


def expert_for(game: str) -> Player:
    """The rule-based expert of ``game``, the default partner."""
    from collabrl.factory import make_expert

    return make_expert(get_game(game).model_validate({}))


def play_with(
    profile: Profile, partner: Player | None = None, seed: int = 0, seat: int = 0
) -> Outcome:
    """Play ``profile``'s persona in seat ``seat`` (0 or 1) on its own task next to ``partner``."""
    game = get_game(profile.game).model_validate({}).for_task(profile.task).make_game()
    persona = make_persona(profile)
    assert isinstance(persona, PersonaBase), "the shipped games' personas count their behaviour"
    other = partner if partner is not None else expert_for(profile.game)
    me, them = game.agents[seat], game.agents[1 - seat]
    summary = play_episode(game, {me: persona, them: other}, seed).summary
    return Outcome(
        player_type=profile.player_type,
        success=bool(summary.get("success", summary.get("score", 0) > 0)),
        steps=summary.get("steps", summary["ticks"]),
        score=summary.get("score", 0),
        decisions=summary["decisions"][me],
        messages=summary["messages"][me],
        invalid=summary["invalid"][me],
        stats=Counter(persona.stats),
    )


def by_type(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """Per player type: episodes, message / invalid rate, steps, score, success, behaviour counts."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.player_type].append(o)
    table = {}
    for kind, rows in groups.items():
        n = len(rows)
        decisions = sum(o.decisions for o in rows) or 1
        stats = sum((o.stats for o in rows), Counter())
        table[kind] = {
            "episodes": n,
            "message_rate": sum(o.messages for o in rows) / decisions,
            "invalid_rate": sum(o.invalid for o in rows) / decisions,
            "steps": sum(o.steps for o in rows) / n,
            "score": sum(o.score for o in rows) / n,
            "success": sum(o.success for o in rows) / n,
            "doubts": stats["doubts"] / n,
            "instructions": stats["instructions"] / n,
            "requests": stats["requests"],
            "honoured": stats["honoured"] / stats["requests"]
            if stats["requests"]
            else float("nan"),
        }
    return table
