"""Persona players finish games, answer in the agent format, stay legal and are reproducible."""

from __future__ import annotations

import pytest

from collabrl.agents.persona import HouseholdPersona, KitchenPersona
from collabrl.agents.persona.base import clip_message
from collabrl.agents.persona.kitchen_chat import jobs_for_listener
from collabrl.agents.player import Player
from collabrl.envs.base import MAX_MESSAGE_CHARS
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.episode import EpisodeRecord, play_episode
from collabrl.eval.persona_behaviour import expert_for
from collabrl.factory import make_persona
from collabrl.profiles import load_profiles
from collabrl.profiles.schema import Profile

HOUSEHOLD = load_profiles(game="household", split="test")
KITCHEN = load_profiles(game="kitchen", split="test")


def one_per_type(profiles: list[Profile], skip: int = 0) -> list[Profile]:
    """A small sample: the ``skip``-th profile of each player type."""
    seen: dict[str, list[Profile]] = {}
    for p in profiles:
        seen.setdefault(p.player_type, []).append(p)
    return [rows[skip % len(rows)] for rows in seen.values()]


def play(profile: Profile, partner: Player | None = None, seed: int = 0) -> EpisodeRecord:
    game = HouseholdGame(profile.task) if profile.game == "household" else KitchenGame(profile.task)
    other = partner if partner is not None else expert_for(profile.game)
    seats = dict(zip(game.agents, (make_persona(profile), other), strict=True))
    return play_episode(game, seats, seed)


def test_factory_picks_the_game_and_rejects_a_mismatch() -> None:
    assert isinstance(make_persona(HOUSEHOLD[0]), HouseholdPersona)
    assert isinstance(make_persona(KITCHEN[0]), KitchenPersona)
    assert isinstance(make_persona(KITCHEN[0]), Player)
    with pytest.raises(ValueError, match="not household"):
        HouseholdPersona(KITCHEN[0])


@pytest.mark.parametrize("skip", [0, 7])
def test_household_personas_finish_with_the_expert_and_each_other(skip: int) -> None:
    sample = one_per_type(HOUSEHOLD, skip)
    with_expert = [play(p, seed=skip).summary["success"] for p in sample]
    paired = [
        play(p, make_persona(q), seed=skip).summary["success"]
        for p, q in zip(sample, sample[1:] + sample[:1], strict=True)
    ]
    assert sum(with_expert) >= len(sample) - 1
    assert sum(paired) >= len(sample) - 1


def test_kitchen_personas_score_with_the_expert_and_each_other() -> None:
    sample = one_per_type(KITCHEN, 3)
    with_expert = [play(p, seed=1).summary["score"] for p in sample]
    paired = [
        play(p, make_persona(q), seed=1).summary["score"]
        for p, q in zip(sample, sample[2:] + sample[:2], strict=True)
    ]
    assert sum(s > 0 for s in with_expert) >= len(sample) - 1
    assert sum(s > 0 for s in paired) >= len(sample) - 1


@pytest.mark.parametrize("profiles", [HOUSEHOLD, KITCHEN], ids=["household", "kitchen"])
def test_same_profile_seat_and_seed_same_episode(profiles: list[Profile]) -> None:
    profile = one_per_type(profiles, 2)[1]
    first, again, other = play(profile, seed=4), play(profile, seed=4), play(profile, seed=5)
    assert [t.response for t in first.turns] == [t.response for t in again.turns]
    assert [t.response for t in first.turns] != [t.response for t in other.turns]


@pytest.mark.parametrize("profiles", [HOUSEHOLD, KITCHEN], ids=["household", "kitchen"])
def test_only_deliberate_slips_are_invalid_and_messages_fit(profiles: list[Profile]) -> None:
    careless = [p for p in profiles if p.big_five.conscientiousness == "low"][:3]
    careful = [p for p in profiles if p.big_five.conscientiousness == "high"][:3]
    slips = 0
    for profile in careless + careful:
        game = (
            HouseholdGame(profile.task)
            if profile.game == "household"
            else KitchenGame(profile.task)
        )
        persona = make_persona(profile)
        seat = game.agents[0]
        record = play_episode(game, {seat: persona, game.agents[1]: expert_for(profile.game)}, 0)
        mine = [t for t in record.turns if t.seat == seat]
        assert sum(not t.valid for t in mine) == persona.stats["slips"]
        assert all(len(t.message) <= MAX_MESSAGE_CHARS for t in mine)
        assert all(t.think for t in mine if t.valid)
        if profile in careful:
            assert persona.stats["slips"] == 0
        slips += persona.stats["slips"]
    assert slips > 0  # careless profiles do fumble now and then


def test_long_messages_are_clipped_at_a_word() -> None:
    text = "word " * 200
    clipped = clip_message(text)
    assert len(clipped) <= MAX_MESSAGE_CHARS and clipped.endswith("word")


@pytest.mark.parametrize(
    ("line", "jobs"),
    [
        ("Could you grab a dish for the soup?", ["dish"]),
        ("Let's split it: you handle the onions, and I'll take care of the dishes.", ["onion"]),
        ("I'll do the dishes from now on.", ["onion"]),
        ("Please don't bring more onions.", []),
        ("Nice teamwork!", []),
    ],
)
def test_kitchen_chat_jobs_for_the_listener(line: str, jobs: list[str]) -> None:
    assert jobs_for_listener(line) == jobs
