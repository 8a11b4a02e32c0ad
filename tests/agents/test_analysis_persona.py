"""The analysis persona: reproducible, legal in any seat and team, personality changing both the
pace and the answer; its profile library; and `collabrl play` / eval with a persona partner."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import Counter

import pytest

from collabrl.agents.persona import AnalysisPersona
from collabrl.agents.player import Player
from collabrl.agents.protocol import parse_observed
from collabrl.config import EvalSpec
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import task_names
from collabrl.envs.base import MAX_MESSAGE_CHARS, Observation
from collabrl.episode import EpisodeRecord, play_episode
from collabrl.eval.protocol import run_evaluation
from collabrl.factory import make_persona
from collabrl.profiles import PLAYER_TYPES, load_profiles
from collabrl.profiles.build import heldout_profiles
from collabrl.profiles.schema import Profile

TEST = load_profiles(game="analysis", split="test")
TASKS = task_names("test")
SAMPLE = ("arch-test-01", "arch-test-05", "arch-test-23")  # a smoothed column; two traps; two


def profile_of(task: str, kind: str = "efficient_collaborator") -> Profile:
    return next(p for p in TEST if p.task == task and p.player_type == kind)


def variant(task: str, **levels: str) -> Profile:
    """The task's collaborator profile with these Big Five levels (the rest medium, calm)."""
    base = profile_of(task)
    five = {
        "openness": "medium",
        "conscientiousness": "high",
        "extraversion": "medium",
        "agreeableness": "medium",
        "neuroticism": "low",
        **levels,
    }
    tag = "-".join(f"{t[0]}{v[0]}" for t, v in sorted(levels.items()))
    big_five = base.big_five.model_copy(update=five)
    return base.model_copy(update={"big_five": big_five, "id": f"{base.id}-{tag}"})


def play(task: str, players: list[Player], structure: str = "default", seed: int = 0):
    section = AnalysisSection(task=task).with_team(len(players), structure)
    game = section.make_game()
    return play_episode(game, dict(zip(game.agents, players, strict=True)), seed)


def mine(record: EpisodeRecord, seat: str) -> list:
    return [t for t in record.turns if t.seat == seat]


def test_factory_builds_it_for_an_analysis_profile_only() -> None:
    persona = make_persona(TEST[0])
    assert isinstance(persona, AnalysisPersona) and isinstance(persona, Player)
    household = load_profiles(game="household", split="test")[0]
    with pytest.raises(ValueError, match="not analysis"):
        AnalysisPersona(household)


def test_same_profile_seat_and_seed_same_episode() -> None:
    profile = profile_of("arch-test-05", "hesitant_laggard")

    def responses(seed: int) -> list[str]:
        record = play("arch-test-05", [make_persona(profile), AnalysisExpert()], seed=seed)
        return [t.response for t in record.turns]

    assert responses(4) == responses(4) != responses(5)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_every_type_finishes_in_every_seat_and_stays_legal(size: int) -> None:
    """Teams of personas of every type, each type in every seat: the episode is submitted, only
    deliberate slips are invalid, messages fit, and a lone persona (holding every note) is
    right."""
    for task in SAMPLE:
        kinds = list(PLAYER_TYPES)
        for k, kind in enumerate(kinds):
            for seat in range(size):
                others = [kinds[(k + j) % len(kinds)] for j in range(1, size)]
                order = [*others[:seat], kind, *others[seat:]]
                players = [make_persona(profile_of(task, t)) for t in order]
                record = play(task, players, seed=k)
                assert record.summary["outcome"] == "submitted", (task, order)
                if size == 1:
                    assert record.summary["score"] == 1.0, (task, kind)
                for name, persona in zip(record.summary["decisions"], players, strict=True):
                    turns = mine(record, name)
                    assert sum(not t.valid for t in turns) == persona.stats["slips"]
                    assert all(len(t.message) <= MAX_MESSAGE_CHARS for t in turns)
                    assert all(t.think for t in turns if t.valid)


@pytest.mark.parametrize("structure", ["memory", "gates", "scaffolded"])
def test_it_plays_under_every_structure(structure: str) -> None:
    """Board, gates and chosen gates: personas of every type as lead or teammates finish the
    episode (a stubborn gate keeper may run the clock out) with only slips invalid."""
    outcomes = Counter()
    for k, kind in enumerate(PLAYER_TYPES):
        for seat in range(3):
            players: list[Player] = [AnalysisExpert(), make_persona(profile_of("arch-test-05"))]
            persona = make_persona(profile_of("arch-test-05", kind))
            players.insert(seat, persona)
            record = play("arch-test-05", players, structure, seed=k)
            outcomes[record.summary["outcome"]] += 1
            turns = mine(record, list(record.summary["decisions"])[seat])
            assert sum(not t.valid for t in turns) == persona.stats["slips"]
    assert set(outcomes) <= {"submitted", "time up"} and outcomes["submitted"] >= 10


@pytest.mark.parametrize("structure", ["default", "scaffolded"])
def test_it_takes_over_a_seat_mid_episode(structure: str) -> None:
    """A persona handed a seat at any tick of someone else's episode (the notebook already holds
    that seat's steps, the chat notes it never heard arrive) answers every observation from
    there on with a reply that parses."""
    seen: dict[str, list[Observation]] = {}

    class Watched:
        def __init__(self, player: Player) -> None:
            self.player, self.name = player, "watched"

        def reset(self, seat: str, seed: int) -> None:
            self.player.reset(seat, seed)

        def act(self, obs: Observation) -> str:
            seen.setdefault(obs.seat, []).append(obs)
            return self.player.act(obs)

    team = [Watched(AnalysisNovice()), Watched(AnalysisExpert()), Watched(AnalysisExpert())]
    play("arch-test-23", team, structure)
    for seat, observations in seen.items():
        for start in range(0, len(observations), 2):
            persona = make_persona(
                TEST[start % len(TEST)].model_copy(update={"task": "arch-test-23"})
            )
            persona.reset(seat, start)
            for obs in observations[start:]:
                parsed = parse_observed(persona.act(obs), obs)
                assert parsed.think and (parsed.valid or persona.stats["slips"])


def teammates_effect(**levels: str) -> tuple[int, float]:
    """Notes shared and the team's mean score over the test tasks: the persona holds the notes
    beside the reference lead who knows only what it hears (the knowledge-limited lead; the
    expert lead knows every note, so no teammate changes its answer)."""
    shared, scores = 0, []
    for task in TASKS:
        mate = AnalysisPersona(variant(task, **levels))
        scores.append(play(task, [AnalysisNovice(), mate]).summary["score"])
        shared += mate.stats["shared"]
    return shared, statistics.mean(scores)


def test_a_talkative_teammate_shares_more_notes_and_the_team_scores_higher() -> None:
    talkative = teammates_effect(extraversion="high", agreeableness="high")
    quiet = teammates_effect(extraversion="low", agreeableness="low")
    assert talkative[0] > quiet[0] and talkative[1] > quiet[1]
    # golden: every note told; below 1.0 because the talkative teammate also runs the analysis
    # itself, without the notes the lead never tells, and the novice lead leaves its rewrites
    assert talkative[0] == 76 and talkative[1] == pytest.approx(0.9474, abs=1e-4)
    assert quiet[0] == 13 and quiet[1] == pytest.approx(0.6316, abs=1e-4)  # golden
    for task in SAMPLE:  # the expert lead: right whoever holds the notes
        quiet_mate = AnalysisPersona(variant(task, extraversion="low", agreeableness="low"))
        assert play(task, [AnalysisExpert(), quiet_mate]).summary["score"] == 1.0


def leads(**levels: str) -> tuple[Counter, list[float], list[int]]:
    """The persona leading beside the expert teammate on every test task."""
    stats: Counter = Counter()
    scores, steps = [], []
    for task in TASKS:
        lead = AnalysisPersona(variant(task, **levels))
        summary = play(task, [lead, AnalysisExpert()]).summary
        stats += lead.stats
        scores.append(summary["score"])
        steps.append(summary["steps"])
    return stats, scores, steps


def test_a_careless_lead_slips_and_dawdles_more_and_takes_longer() -> None:
    careless, _, slow = leads(conscientiousness="low", agreeableness="high")
    careful, scores, quick = leads(conscientiousness="high", agreeableness="high")
    assert careless["slips"] > careful["slips"] == 0
    assert (
        careless["dawdles"] + careless["hesitations"] > careful["dawdles"] + careful["hesitations"]
    )
    assert statistics.mean(slow) > statistics.mean(quick)
    assert (careless["slips"], careless["dawdles"], careful["dawdles"]) == (59, 225, 0)  # golden
    assert statistics.mean(slow) == pytest.approx(19.82, abs=0.01)
    assert statistics.mean(quick) == pytest.approx(11.03, abs=0.01)
    assert statistics.mean(scores) == pytest.approx(0.9737, abs=1e-4)


def test_an_agreeable_lead_takes_up_notes_and_a_disagreeable_one_falls_into_traps() -> None:
    agreeable, kind, _ = leads(agreeableness="high")
    stubborn, blunt, _ = leads(agreeableness="low")
    assert stubborn["dismissed"] > agreeable["dismissed"]
    assert agreeable["honoured"] > stubborn["honoured"]
    assert statistics.mean(kind) > statistics.mean(blunt) + 0.3


def test_open_leads_look_first_and_anxious_ones_doubt_and_recheck() -> None:
    curious, _, _ = leads(openness="high")
    incurious, _, _ = leads(openness="low")
    assert curious["looks"] > incurious["looks"] == 0
    anxious, _, _ = leads(neuroticism="high", extraversion="high")
    calm, _, _ = leads(neuroticism="low", extraversion="high")
    assert anxious["doubts"] + anxious["rechecks"] > calm["doubts"] + calm["rechecks"] == 0


def test_a_leading_lead_plans_and_an_agreeable_teammate_honours_its_request() -> None:
    task = "arch-test-05"
    lead = AnalysisPersona(variant(task, extraversion="high"))
    mate = AnalysisPersona(variant(task, extraversion="low", agreeableness="high"))
    record = play(task, [lead, mate])
    first = mine(record, "Ada")[0]
    assert lead.stats["instructions"] == 1 and "share your notes" in first.message
    assert mate.stats["requests"] == mate.stats["honoured"] == 1
    assert mate.stats["withheld"] == 0 and record.summary["score"] == 1.0


@pytest.mark.slow
def test_player_types_over_the_test_tasks() -> None:
    """Golden per-type figures: the library's persona holding the notes beside the
    knowledge-limited reference lead, over the 38 test tasks."""
    scores: dict[str, list[float]] = {}
    for profile in TEST:
        record = play(profile.task, [AnalysisNovice(), make_persona(profile)])
        scores.setdefault(profile.player_type, []).append(record.summary["score"])
    means = {kind: round(statistics.mean(v), 3) for kind, v in scores.items()}
    assert means == {
        "efficient_collaborator": 0.921,
        "hesitant_laggard": 0.605,
        "anxious_doubter": 0.737,
        "proactive_leader": 0.868,
        "independent_loner": 0.632,
    }


def test_the_library_gives_every_test_task_each_type_once() -> None:
    for task in TASKS:
        types = Counter(p.player_type for p in TEST if p.task == task)
        assert types == dict.fromkeys(PLAYER_TYPES, 1), task
    for kind in PLAYER_TYPES:
        assert len({p.big_five for p in TEST if p.player_type == kind}) >= 10, kind
    train = load_profiles(game="analysis", split="train")
    by_task: dict[str, list[str]] = {}
    for p in train:
        by_task.setdefault(p.task, []).append(p.player_type)
    assert set(by_task) == set(task_names("train"))
    assert all(len(set(types)) == len(types) == 3 for types in by_task.values())
    held = heldout_profiles("analysis")
    assert len(held) == 15 and not {p.behavior for p in held} & {p.behavior for p in TEST}


def test_eval_with_a_persona_partner(tmp_path) -> None:
    spec = EvalSpec.model_validate(
        {
            "games": ["analysis"],
            "tasks": ["arch-test-01", "arch-test-05"],
            "max_profiles": 5,
            "policy": {"kind": "expert"},
            "partner": {"kind": "persona"},
            "output_dir": str(tmp_path),
        }
    )
    result = run_evaluation(spec, progress=False)
    assert len(result.outcomes) == 2 * 5 * 2
    for task in ("arch-test-01", "arch-test-05"):
        kinds = [o.job.profile.player_type for o in result.outcomes if o.job.task == task]
        assert sorted(kinds) == sorted(PLAYER_TYPES * 2)
    led = [o.efficiency for o in result.outcomes if o.job.seat == 1]
    assert led == [1.0] * 10  # the expert policy leads: right whatever its partner
    assert result.stamp["partner_set"]["kind"] == "persona"


@pytest.mark.slow
def test_collabrl_play_with_a_persona_lead(tmp_path) -> None:
    profile = profile_of("arch-test-05", "proactive_leader").id
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "collabrl",
            "play",
            "analysis_experts",
            "game.task=arch-test-05",
            f"players=[{{kind: persona, profile: {profile}}}, {{kind: expert}}]",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "Ada: says:" in out.stdout and "share your notes" in out.stdout
    record = json.loads((tmp_path / "runs/analysis_experts/episodes.jsonl").read_text())
    assert record["summary"]["outcome"] == "submitted"
