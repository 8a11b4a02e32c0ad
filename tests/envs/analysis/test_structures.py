"""The team-structures study's compositions and structures on the analysis game: collaborator
profiles D and R holding the notes of the traps they avoid, the build phase that freezes the
board, gates on the analysis actions (preassigned by kind and team-chosen), ungated actions
running freely, and the reference analyst playing by those rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from collabrl.envs import check_game
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.expertise import note_profiles
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import get_task, task_names
from collabrl.envs.base import Decision, format_response
from collabrl.episode import play_episode

TRAPPED = "arch-test-01"  # one smoothed-column trap (a D note)


def section(teammates: list[str], structure: str = "default", **options) -> AnalysisSection:
    return AnalysisSection(task=TRAPPED, **options).with_teammates(teammates, structure)


def waits(game, **decisions: Decision) -> dict[str, Decision]:
    return {seat: decisions.get(seat, Decision("wait")) for seat in game.agents}


def test_profiles_hold_the_notes_of_the_traps_they_avoid() -> None:
    for name in task_names("test"):
        task = get_task(name)
        owner = note_profiles(task)
        for trap in task.traps:
            data_side = trap.kind in ("smoothed_column", "required_filter", "unit_or_bin")
            assert owner[trap.note] == ("D" if data_side else "R")
    game = section(["D", "R"]).make_game()
    held = game.summary()["notes_held"]
    assert game.summary()["roles"] == {"Ada": "agent", "Bea": "D", "Cy": "R"}
    assert held["Bea"] == ["n1"] and held["Cy"] == [] and "n1" not in held["Ada"]
    alone = section([]).make_game().summary()["notes_held"]
    assert "n1" not in alone["Ada"]  # nobody at the table knows the smoothed column


@pytest.mark.parametrize(
    "options, message",
    [
        ({"teammates": ["D", "D"]}, "each profile at most once"),
        ({"teammates": ["X"]}, "teammates"),
        ({"teammates": ["D"], "roles": ["statistics", "chronology"]}, "not both"),
        ({"teammates": ["D"], "seats": ["Ada"]}, "need 2"),
        ({"structure": "gates", "gate_owners": {"edit": "Zed"}}, "not a seat"),
        ({"structure": "gates", "gated": ["look"]}, "gated"),
    ],
)
def test_lint_refuses_a_team_the_game_cannot_field(options: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AnalysisSection(task=TRAPPED, **options)


def test_seats_follow_the_profiles_named() -> None:
    assert AnalysisSection(task=TRAPPED, teammates=["D", "R"]).seats == ["Ada", "Bea", "Cy"]
    assert AnalysisSection(task=TRAPPED, teammates=[]).seats == ["Ada"]


@pytest.mark.parametrize("structure", ["memory", "gates", "scaffolded"])
def test_structured_games_pass_the_contract_checker(structure: str) -> None:
    sec = section(["D", "R"], structure)
    check_game(sec.make_game, seeds=(0,), max_steps=200, section=sec)


def test_the_build_phase_offers_the_board_then_freezes_it() -> None:
    game = section(["D"], "memory", build_ticks=2).make_game()
    obs = game.reset()
    assert "run(<step>)" not in obs["Ada"].actions and "submit" not in obs["Ada"].actions
    assert "[update_memory] plan" in obs["Ada"].actions
    # the task's actions wait for the build phase: an attempt is an invalid decision
    info = game.step(waits(game, Ada=Decision("run(show(slices))"))).infos["Ada"]
    assert info["invalid"] and game.summary()["notebook"] == []
    entry = Decision("[update_memory] expertise", message="I know the smoothed column.")
    game.step(waits(game, Bea=entry))
    obs = game._observations()
    assert "run(<step>)" in obs["Ada"].actions  # the task has begun
    assert not any(a.startswith("[update_memory]") for a in obs["Ada"].actions)
    assert obs["Ada"].state["structure"]["update"] == {}
    assert "fixed since the build phase" in obs["Ada"].text
    assert "I know the smoothed column." in obs["Ada"].text  # read, not written
    late = game.step(waits(game, Bea=Decision("[update_memory] plan", message="late")))
    assert late.infos["Bea"]["invalid"]
    assert [e["text"] for e in game.summary()["board"]] == ["I know the smoothed column."]


def test_without_a_build_phase_the_board_stays_writable() -> None:
    game = section(["D"], "memory", build_ticks=0).make_game()
    obs = game.reset()
    assert "run(<step>)" in obs["Ada"].actions
    for _ in range(3):
        game.step(waits(game, Bea=Decision("[update_memory] plan", message="still open")))
    assert len(game.summary()["board"]) == 3


def test_preassigned_gates_hold_edits_until_their_owner_approves() -> None:
    game = section(["D", "R"], "gates").make_game()
    assert game.gate_owners == {"edit": "Cy", "submit": "Bea"}  # R signs edits, D submitting
    game.reset()
    edit = Decision("edit_context(the Brack fens)")
    assert game.step(waits(game, Ada=edit)).infos["Ada"]["gate"] == "request"
    assert game.hypothesis["context"] == ""
    game.step(waits(game, Ada=edit))  # still open: a blocked wait
    obs = game._observations()
    assert "[approve] #1" in obs["Cy"].actions and "[approve] #1" not in obs["Bea"].actions
    game.step(waits(game, Cy=Decision("[approve] #1")))
    game.step(waits(game, Ada=edit))
    assert game.hypothesis["context"] == "the Brack fens"
    # runs are not gated here: they take effect at once
    game.step(waits(game, Ada=Decision("run(extrema(slices, nap_pct, year_bce, max))")))
    assert game.summary()["notebook"][0]["value"] == 1800
    kinds = [e["kind"] for e in game.summary()["trace"] if e["seat"] != "Bea"]
    assert kinds[:4] == ["request", "wait", "approve", "work"]


def test_a_denied_submission_does_not_end_the_episode() -> None:
    game = section(["D"], "gates", gated=["submit"]).make_game()
    game.reset()
    game.step(waits(game, Ada=Decision("submit")))
    game.step(waits(game, Bea=Decision("[deny] #1")))
    assert not game.done
    assert game.step(waits(game, Ada=Decision("submit"))).infos["Ada"]["gate"] == "request"


def test_scaffolded_teams_choose_gates_in_the_build_phase_only() -> None:
    game = section(["D", "R"], "scaffolded", build_ticks=2).make_game()
    obs = game.reset()
    assert "[assign_gate] submit: Bea" in obs["Ada"].actions
    game.step(waits(game, Ada=Decision("[assign_gate] submit: Bea")))
    game.step(waits(game))
    obs = game._observations()
    assert not any(a.startswith("[assign_gate]") for a in obs["Ada"].actions)
    assert game.team.owner("submit") == "Bea" and game.team.owner("edit") is None
    edit = Decision("edit_relation(peaks in 1800 BCE)")
    assert "gate" not in game.step(waits(game, Ada=edit)).infos["Ada"]  # left ungated
    assert game.hypothesis["relation"] == "peaks in 1800 BCE"
    assert game.step(waits(game, Ada=Decision("submit"))).infos["Ada"]["gate"] == "request"


def test_household_structures_are_unchanged_by_the_build_phase_option() -> None:
    from collabrl.envs.household.section import HouseholdSection

    game = HouseholdSection(structure="scaffolded", seats=["Alice", "Bob"]).make_game()
    obs = game.reset()
    assert game.team.build_ticks == 0 and "build_ticks" not in game.summary()
    assert any(a.startswith("[update_memory]") for a in obs["Alice"].actions)


def play(teammates: list[str], structure: str, lead, task: str = TRAPPED) -> dict:
    sec = AnalysisSection(task=task).with_teammates(teammates, structure)
    game = sec.make_game()
    mates = {s: AnalysisExpert() for s in game.agents[1:]}
    return play_episode(game, {game.agents[0]: lead, **mates}, seed=0).summary


@pytest.mark.parametrize("structure", ["default", "memory", "gates", "scaffolded"])
def test_the_reference_analyst_plays_every_structure(structure: str) -> None:
    expert = play(["D", "R"], structure, AnalysisExpert())
    assert expert["score"] == 1.0
    novice = play(["D"], structure, AnalysisNovice())  # D holds the smoothed-column note
    assert novice["score"] == 1.0
    assert play([], structure, AnalysisNovice())["score"] < 1.0  # nobody knows it


def test_memory_routes_notes_through_the_board() -> None:
    summary = play(["D"], "memory", AnalysisNovice())
    assert [e["section"] for e in summary["board"]] == ["plan", "expertise"]
    assert not any(e["kind"] == "message" for e in summary["trace"])


def test_a_gate_owner_denies_a_hypothesis_resting_on_its_trap_and_tells_why() -> None:
    """The lead never heard D's note (it ran the naive step first); D, owning the submission,
    denies it and tells the note; the lead runs the analysis again and gets it right."""

    class Reviewer(AnalysisExpert):
        """Keeps its notes unless a review calls for them."""

        def _share(self, state: dict) -> str:
            return format_response("", "", "wait")

    game = section(["D"], "gates", gated=["submit"]).make_game()
    summary = play_episode(game, {"Ada": AnalysisNovice(), "Bea": Reviewer()}, seed=0).summary
    statuses = [r["status"] for r in summary["gate_requests"]]
    assert statuses[0] == "denied" and statuses[-1] == "used"
    assert summary["score"] == 1.0
    steps = [c["step"] for c in summary["notebook"]]
    assert steps == [
        "extrema(slices, nap_pct_smooth, year_bce, max)",
        "extrema(slices, nap_pct, year_bce, max)",
    ]
