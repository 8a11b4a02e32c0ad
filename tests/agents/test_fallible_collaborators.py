"""Fallible, active collaborators: a declared reliability is the rate of right trap notes, a
wrong note misleads whoever acts on it, and a persona teammate runs analyses and edits the
shared hypothesis itself (human work and initiative above 0), over the lead's text."""

from __future__ import annotations

import pytest

from collabrl.agents.persona import AnalysisPersona
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.expertise import WRONG, fallible, misleading_note, notes_by_profile
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import get_task, task_names
from collabrl.episode import play_episode
from collabrl.eval.process import episode_process
from collabrl.profiles import load_profiles

TRAPPED = [t for t in task_names("test") if get_task(t).traps]


def wrong_share(reliability: float, seeds: range) -> float:
    """The share of the D and R collaborators' trap notes drawn wrong over ``seeds``."""
    wrong = total = 0
    for name in TRAPPED:
        task = get_task(name)
        kinds = ["agent", "D", "R"]
        held = notes_by_profile(task, kinds)
        for seed in seeds:
            drawn = fallible(task, kinds, held, {"D": reliability, "R": reliability}, seed)
            for notes in drawn[1:]:
                total += len(notes)
                wrong += sum(n.id.endswith(WRONG) for n in notes)
    return wrong / total


def test_a_collaborators_error_rate_is_its_declared_unreliability() -> None:
    assert wrong_share(1.0, range(5)) == 0.0 and wrong_share(0.0, range(5)) == 1.0
    rate = wrong_share(0.7, range(40))
    assert rate == pytest.approx(0.3, abs=0.02)
    assert rate == pytest.approx(0.3013, abs=1e-4)  # golden: the seeded draws


def test_the_agents_notes_are_never_drawn_wrong_and_the_draw_follows_the_seed() -> None:
    section = AnalysisSection(task=TRAPPED[0], teammates=["D", "R"], reliability={"D": 0.0, "R": 0.0})  # fmt: skip
    game = section.make_game()
    game.reset(0)
    agent, *mates = game.agents
    assert not any(n.id.endswith(WRONG) for n in game.notes[agent])
    assert all(n.id.endswith(WRONG) for m in mates for n in game.notes[m])
    task = get_task(TRAPPED[0])
    wrong = misleading_note(task, task.traps[0])
    assert task.traps[0].naive_step in wrong.text
    assert not any(n.text in wrong.text for n in task.notes)  # never read as the right note
    assert game.summary()["notes_held"][mates[0]] == [n.id for n in game.notes[mates[0]]]


def play(task: str, players: list, reliability: float, seed: int = 0) -> dict:
    teammates = ["D", "R"][: len(players) - 1]
    section = AnalysisSection(
        task=task, teammates=teammates, reliability=dict.fromkeys(teammates, reliability)
    )
    game = section.make_game()
    return play_episode(game, dict(zip(game.agents, players, strict=True)), seed).summary


def test_a_wrong_note_misleads_the_lead_that_hears_it() -> None:
    """The reference teammate tells its (wrong) note verbatim; the novice lead it misleads
    reaches another relation on every task whose single trap is D's."""
    tasks = [t for t in TRAPPED if [tr.note for tr in get_task(t).traps][:1] and
             all(tr.kind in ("smoothed_column", "required_filter", "unit_or_bin")
                 for tr in get_task(t).traps)]  # fmt: skip
    assert tasks
    for task in tasks:
        right = play(task, [AnalysisNovice(), AnalysisExpert()], 1.0)
        wrong = play(task, [AnalysisNovice(), AnalysisExpert()], 0.0)
        assert right["score"] == 1.0 and wrong["score"] < 1.0, task


def test_an_acting_collaborator_does_human_work_and_takes_initiative() -> None:
    task = "arch-test-05"
    profile = next(p for p in load_profiles(game="analysis", split="test") if p.task == task)
    keen = profile.model_copy(
        update={"big_five": profile.big_five.model_copy(
            update={"extraversion": "high", "conscientiousness": "high", "agreeableness": "low"})}
    )  # fmt: skip
    mate = AnalysisPersona(keen)
    summary = play(task, [AnalysisNovice(), mate], 1.0)
    assert mate.stats["acted"] > 0
    process = episode_process("analysis", summary, "Ada")
    assert process["work_teammates"] > 0
    assert process["initiative_entropy"] is not None and process["initiative_entropy"] > 0
    edits = [
        e
        for e in summary["trace"]
        if e["seat"] == "Bea" and (e["target"] or "").startswith("edit:")
    ]
    assert edits
