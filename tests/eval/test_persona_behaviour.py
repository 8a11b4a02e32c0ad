"""Traits shape play: knobs follow the Big Five levels, and player types differ as profiles say."""

from __future__ import annotations

import pytest

from collabrl.agents.persona.temperament import Temperament, stable_seed, trait_degree
from collabrl.eval.persona_behaviour import by_type, play_with
from collabrl.factory import make_persona
from collabrl.profiles import load_profiles
from collabrl.profiles.schema import Profile

HOUSEHOLD = load_profiles(game="household", split="test")
KITCHEN = load_profiles(game="kitchen", split="test")


def with_levels(profile: Profile, **levels: str) -> Profile:
    five = profile.big_five.model_copy(update=levels)
    return profile.model_copy(update={"big_five": five, "id": f"{profile.id}-{len(levels)}x"})


def test_stable_seed_does_not_depend_on_the_process() -> None:
    assert stable_seed("a", 1, "b") == 1174802413


def test_knobs_follow_levels_and_unknown_is_jittered_medium() -> None:
    base = HOUSEHOLD[0]
    low = Temperament.from_profile(
        with_levels(base, extraversion="low", conscientiousness="low", agreeableness="low")
    )
    high = Temperament.from_profile(
        with_levels(base, extraversion="high", conscientiousness="high", agreeableness="high")
    )
    assert high.talk > low.talk and high.chatter > low.chatter and high.comply > low.comply
    assert low.dawdle > high.dawdle and low.slip > 0 == high.slip
    assert high.leads and not low.leads
    unknown = [p for p in HOUSEHOLD if p.big_five.openness == "unknown"][:2]
    degrees = [trait_degree(p, "openness") for p in unknown]
    assert all(0.3 <= d <= 0.7 for d in degrees) and degrees[0] != degrees[1]
    assert trait_degree(unknown[0], "openness") == degrees[0]


@pytest.fixture(scope="module")
def household_table() -> dict[str, dict[str, float]]:
    return by_type([play_with(p, seed=0) for p in HOUSEHOLD])


@pytest.fixture(scope="module")
def kitchen_table() -> dict[str, dict[str, float]]:
    return by_type([play_with(p, seed=0) for p in KITCHEN])


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
@pytest.mark.parametrize("game", ["household", "kitchen"])
def test_leaders_talk_most_and_loners_least(game: str, request) -> None:
    table = request.getfixturevalue(f"{game}_table")
    rate = {kind: row["message_rate"] for kind, row in table.items()}
    assert max(rate, key=rate.get) == "proactive_leader"
    assert min(rate, key=rate.get) == "independent_loner"
    assert max(table, key=lambda k: table[k]["instructions"]) == "proactive_leader"


@pytest.mark.slow
@pytest.mark.parametrize("game", ["household", "kitchen"])
def test_anxious_doubters_ask_for_reassurance_most(game: str, request) -> None:
    table = request.getfixturevalue(f"{game}_table")
    assert max(table, key=lambda k: table[k]["doubts"]) == "anxious_doubter"


@pytest.mark.slow  # builds both module tables (3.6 s): with the tests above, in the full suite
def test_hesitant_laggards_are_slowest(household_table, kitchen_table) -> None:
    assert max(household_table, key=lambda k: household_table[k]["steps"]) == "hesitant_laggard"
    assert min(kitchen_table, key=lambda k: kitchen_table[k]["score"]) == "hesitant_laggard"
    assert household_table["hesitant_laggard"]["invalid_rate"] > 0
    assert household_table["efficient_collaborator"]["invalid_rate"] == 0


@pytest.mark.parametrize("profiles", [HOUSEHOLD, KITCHEN], ids=["household", "kitchen"])
def test_agreeable_personas_honour_requests_and_disagreeable_ones_ignore_some(
    profiles: list[Profile],
) -> None:
    leader = next(p for p in profiles if p.player_type == "proactive_leader")
    same_task = [p for p in profiles if p.task == leader.task and p is not leader][:4] or [leader]
    counts = {}
    for level in ("high", "low"):
        heard = honoured = 0
        for base in same_task:
            profile = with_levels(base, agreeableness=level, extraversion="medium")
            for seed in range(3):
                stats = play_with(profile, make_persona(leader), seed=seed).stats
                heard, honoured = heard + stats["requests"], honoured + stats["honoured"]
        counts[level] = (heard, honoured)
    (heard_hi, honoured_hi), (heard_lo, honoured_lo) = counts["high"], counts["low"]
    assert heard_hi > 0 and heard_lo > 0
    assert honoured_hi / heard_hi > honoured_lo / heard_lo
    assert honoured_hi > 0 and honoured_lo < heard_lo  # some requests ignored by the blunt one
