"""Persona players never send the same chat line twice in an episode (``vary_wording``), while
their random stream and every action stay those of the old wording (``vary_wording=False``)."""

from __future__ import annotations

from collections import Counter

import pytest

from collabrl.agents.persona.wording import SaidLog
from collabrl.config.roles import PartnerSpec, PlayerSpec
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.base import sends_message
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.episode import EpisodeRecord, play_episode
from collabrl.factory import make_partner, make_persona, make_player
from collabrl.profiles import load_profiles
from collabrl.profiles.schema import Profile

EPISODES = 50


def game_for(profile: Profile):
    if profile.game == "household":
        return HouseholdGame(profile.task)
    if profile.game == "kitchen":
        return KitchenGame(profile.task)
    return AnalysisSection(task=profile.task).with_team(2, "default").make_game()


def pairs(game: str) -> list[tuple[Profile, Profile, int]]:
    """``EPISODES`` (profile, teammate profile of the same task, seed) jobs spread over the
    game's test profiles."""
    profiles = load_profiles(game=game, split="test")
    jobs = []
    for i in range(EPISODES):
        first = profiles[(i * 7) % len(profiles)]
        mates = [p for p in profiles if p.task == first.task and p.id != first.id] or [first]
        jobs.append((first, mates[i % len(mates)], i))
    return jobs


def play(first: Profile, second: Profile, seed: int, vary: bool) -> EpisodeRecord:
    game = game_for(first)
    players = (make_persona(first, vary), make_persona(second, vary))
    return play_episode(game, dict(zip(game.agents, players, strict=True)), seed)


def repeats(record: EpisodeRecord) -> int:
    """Chat lines a seat sent that it had sent before in the episode."""
    sent = Counter(
        (t.seat, t.message)
        for t in record.turns
        if sends_message(t.action, t.message, record.message_action)
    )
    return sum(n - 1 for n in sent.values())


def moves(record: EpisodeRecord) -> list[tuple[str, int, str | None]]:
    return [(t.seat, t.tick, t.action) for t in record.turns]


@pytest.mark.parametrize(
    "game",
    [
        pytest.param("household", marks=pytest.mark.slow),
        pytest.param("kitchen", marks=pytest.mark.slow),
        "analysis",
    ],
)
def test_no_repeated_line_and_the_same_actions(game: str) -> None:
    repeated_before = 0
    for first, second, seed in pairs(game):
        old = play(first, second, seed, vary=False)
        new = play(first, second, seed, vary=True)
        assert repeats(new) == 0, (first.id, second.id, seed)
        assert moves(new) == moves(old), (first.id, second.id, seed)
        repeated_before += repeats(old)
    assert repeated_before > 0  # the old wording did repeat itself


def test_a_said_phrase_gives_way_to_the_next_then_a_pair_then_a_mark() -> None:
    bank = ("Great pace, team!", "Nice, this is going well.")
    log = SaidLog()
    assert log.fresh(bank[1], bank) == bank[1]
    log.sent(bank[1])
    assert log.fresh(bank[1], bank) == bank[0]
    log.sent(bank[0])
    joined = f"{bank[1]} {bank[0]}"
    assert log.fresh(bank[1], bank) == joined
    log.sent(joined)
    assert log.fresh(bank[1], bank) == bank[1]  # nothing fresh left: the message is marked
    assert log.sent(bank[1]) == f"Again: {bank[1]}"
    assert log.sent(bank[1]) == f"Once more: {bank[1]}"


def test_a_template_counts_as_said_whatever_filled_it() -> None:
    log = SaidLog()
    log.sent("Bob, could you grab a dish for the soup?")
    assert log.used("{name}, could you grab a dish for the soup?")
    assert not log.used("{name}, please get a dish ready, the soup is close.")


def test_specs_carry_the_option_to_the_persona() -> None:
    profile = load_profiles(game="kitchen", split="test")[0]
    section = KitchenSection()
    game = game_for(profile)
    assert PlayerSpec(kind="persona", profile=profile.id).vary_wording
    off = PlayerSpec(kind="persona", profile=profile.id, vary_wording=False)
    assert not make_player(off, section, game).vary_wording  # type: ignore[attr-defined]
    partner = make_partner(PartnerSpec(vary_wording=False), section, game, profile, 0)
    assert not partner.vary_wording  # type: ignore[attr-defined]
    assert make_persona(profile).vary_wording  # type: ignore[attr-defined]
