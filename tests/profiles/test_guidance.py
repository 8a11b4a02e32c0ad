"""Private guidance (shipped, true, seen only by its seat), team seating, named requests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.team import brief, guidance_packs, guided, team_profiles
from collabrl.config import load_recipe
from collabrl.envs.base import MESSAGE_ACTION, Decision
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.hearsay import Hearsay, Said
from collabrl.envs.household.section import HouseholdSection
from collabrl.envs.household.tasks import TEST_TASK_NAMES, get_task
from collabrl.episode import play_episode
from collabrl.factory import make_persona
from collabrl.profiles import get_profile, load_profiles
from collabrl.profiles.guidance import load_guidance
from collabrl.training.groups import make_slots, partner_profiles, plan_groups

ROOT = Path(__file__).resolve().parents[2]
TASK = "0_read_book"
LEADER = "cwah-0_read_book-test-12"  # a proactive leader


def test_shipped_guidance_is_true_covers_the_goal_and_matches_its_script() -> None:
    for name in TEST_TASK_NAMES:
        task, packs = get_task(name), load_guidance("household", name)
        assert len(packs) >= 2, name
        start = {obj: at for obj, _, at in task.objects}
        goal = {p.object: p.target for p in task.goal}
        placed = {f.object for p in packs[:2] for f in p.facts if f.kind == "object_at"}
        for pack in packs:
            for fact in pack.facts:
                if fact.kind == "object_at":
                    assert start[fact.object] == fact.fixture, (name, fact)
                else:
                    assert not any(n in goal and at == fact.fixture for _, n, at in task.objects)
        out_of_place = {o for o, n, at in task.objects if n in goal and at != goal[n]}
        assert placed == out_of_place, name
    check = [sys.executable, str(ROOT / "scripts/make_guidance.py"), "--check"]
    assert subprocess.run(check, capture_output=True).returncode == 0


def test_private_guidance_reaches_only_its_seat() -> None:
    section = HouseholdSection(task=TASK, seats=["Alice", "Bob", "Charlie"], guidance=True)
    packs = guidance_packs(section, 2)
    pool = load_profiles(game="household", split="test", task=TASK)
    bob, charlie = (
        guided(p, k) for p, k in zip(team_profiles(pool[0], pool, 2), packs, strict=True)
    )
    game = section.make_game()
    obs = game.reset(0)
    prompts = {
        "Alice": LLMPlayer(None, game, role="agent").conversation(obs["Alice"]),
        "Bob": LLMPlayer(None, game, role="player", persona=bob.persona()).conversation(obs["Bob"]),
        "Charlie": LLMPlayer(None, game, role="player", persona=charlie.persona()).conversation(
            obs["Charlie"]
        ),
    }
    text = {seat: "\n".join(m["content"] for m in chat) for seat, chat in prompts.items()}
    first, second = packs[0].private_text(), packs[1].private_text()
    assert first in text["Bob"] and first not in text["Charlie"] and first not in text["Alice"]
    assert second in text["Charlie"] and second not in text["Bob"] and second not in text["Alice"]
    assert all(
        p.private_text() not in o.text for p in packs for o in obs.values()
    )  # not game state
    assert guidance_packs(HouseholdSection(task=TASK), 2) == (None, None)  # off by default


def test_an_expert_teammate_takes_guidance_by_brief_and_shares_it_first() -> None:
    pack = load_guidance("household", TASK)[0]
    expert = brief(HouseholdExpert(), pack, profiled=False)
    game = HouseholdGame(TASK, seats=2)
    obs = game.reset(0)
    expert.reset("Bob", 0)
    reply = expert.act(obs["Bob"])
    assert MESSAGE_ACTION in reply and pack.statement() in reply
    assert set(pack.found()) <= set(expert.hearsay.reported)
    untouched = brief(HouseholdExpert(), pack, profiled=True)  # a profiled seat has it already
    assert untouched.found == {}


def test_guided_personas_record_their_guidance_on_the_board_for_everyone() -> None:
    packs = load_guidance("household", TASK)
    pool = load_profiles(game="household", split="test", task=TASK)
    team = team_profiles(pool[3], pool, 2)  # quiet hesitant laggards first
    game = HouseholdGame(TASK, seats=3, structure="memory", max_decisions=250)
    alice = HouseholdExpert()
    players = {
        "Alice": alice,
        "Bob": make_persona(guided(team[0], packs[0])),
        "Charlie": make_persona(guided(team[1], packs[1])),
    }
    record = play_episode(game, players, seed=0)
    expertise = {
        e["author"]: e["text"] for e in record.summary["board"] if e["section"] == "expertise"
    }
    assert expertise == {"Bob": packs[0].statement(), "Charlie": packs[1].statement()}
    assert set(packs[0].found()) | set(packs[1].found()) <= alice.hearsay.told


def test_a_three_seat_team_draws_distinct_profiles_of_one_task() -> None:
    pool = load_profiles(game="household", split="test", task=TASK)
    team = team_profiles(pool[4], pool, 3)
    assert team[0] == pool[4] and len({p.id for p in team}) == 3
    assert {p.task for p in team} == {TASK}
    assert team_profiles(pool[0], pool[:1], 2) == (pool[0], pool[0])  # too few: repeats
    assert team_profiles(None, pool, 2) == (None, None)


def test_training_seats_two_guided_persona_teammates() -> None:
    recipe = load_recipe("cwah_team3_gigpo_cpu")
    plans = plan_groups(recipe, partner_profiles(recipe), iteration=0)
    slots = make_slots(recipe, plans)
    for slot in slots:
        bob, charlie = slot.players["Bob"].profile, slot.players["Charlie"].profile
        assert "Alice" not in slot.players and bob.id != charlie.id and bob.task == charlie.task
        packs = load_guidance("household", bob.task)
        assert (bob.guidance, charlie.guidance) == (packs[0], packs[1])


def test_named_requests_are_for_the_named_seat_and_leaders_split_among_all() -> None:
    game = HouseholdGame(TASK, seats=3)
    obs = game.reset(0)
    leader = make_persona(get_profile(LEADER))
    leader.reset("Alice", 0)
    split = leader.act(obs["Alice"])
    assert "Bob, could you explore" in split and "Charlie, could you explore" in split
    assert leader.tasks and all(verb == "explore" for verb, _ in leader.tasks)  # its own share
    message = split.split("<message>")[1].split("</message>")[0]
    result = game.step(
        {
            "Alice": Decision(MESSAGE_ACTION, message),
            "Bob": Decision(MESSAGE_ACTION, "hi"),
            "Charlie": Decision(MESSAGE_ACTION, "hi"),
        }
    )
    bob, charlie = Hearsay(), Hearsay()
    bob.listen(result.observations["Bob"].state)
    charlie.listen(result.observations["Charlie"].state)
    bob_share = bob.requests["Alice"].items
    assert bob_share and charlie.requests["Alice"].items != bob_share
    assert set(bob_share) <= set(charlie.claims["Bob"].items)  # Charlie leaves it to Bob
    assert charlie.claims["Bob"] == Said(0, bob_share)
