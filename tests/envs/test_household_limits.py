"""Training episode limits of the household game: the paper's (150 ticks) and the released code's
(250 ticks, 50 decisions of the policy's seat) as named presets, and which seat the cap counts."""

from __future__ import annotations

import pytest

from collabrl.config import load_recipe
from collabrl.envs.base import MESSAGE_ACTION, format_response
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.section import TRAINING_LIMITS, HouseholdSection
from collabrl.episode import play_episode


class Chatterbox:
    """Sends a message at every decision (one tick each): the seat that reaches a cap first."""

    name = "chatterbox"

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat

    def act(self, obs) -> str:
        return format_response("Talk.", "Still here!", MESSAGE_ACTION)


def play(**options):
    section = HouseholdSection.model_validate(
        {"name": "household", "task": "1_read_book", **options}
    )
    game = section.make_game()
    return play_episode(game, {"Alice": HouseholdExpert(), "Bob": Chatterbox()}, seed=0).summary


def test_the_cap_counts_every_seat_by_default_and_the_policy_seat_as_the_released_code() -> None:
    every = play(max_decisions=6)
    assert every["stalled"] and every["decisions"]["Bob"] == 6 > every["decisions"]["Alice"]
    policy_only = play(max_decisions=6, capped_seat=0)
    assert policy_only["decisions"]["Alice"] == 6 < policy_only["decisions"]["Bob"]
    assert policy_only["ticks"] > every["ticks"]


def test_presets_name_their_source() -> None:
    paper = HouseholdSection.model_validate({"name": "household", "limits": "paper"})
    assert (paper.max_ticks, paper.max_decisions, paper.capped_seat) == (150, 150, None)
    code = HouseholdSection.model_validate({"name": "household", "limits": "code"})
    assert (code.max_ticks, code.max_decisions, code.capped_seat) == (250, 50, 0)
    assert set(TRAINING_LIMITS) == {"paper", "code"}
    assert code.for_task("2_read_book").capped_seat == 0  # copies keep the preset
    assert play(limits="paper")["steps"] <= 150
    with pytest.raises(ValueError, match="limits=paper sets max_ticks=150"):
        HouseholdSection.model_validate({"name": "household", "limits": "paper", "max_ticks": 9})
    with pytest.raises(ValueError, match="capped_seat 2 is not a seat index"):
        HouseholdSection.model_validate({"name": "household", "capped_seat": 2})


def test_the_paper_recipe_trains_under_the_papers_limits() -> None:
    game = load_recipe("cwah_gigpo").game
    assert (game.limits, game.max_ticks, game.max_decisions, game.capped_seat) == (
        "paper",
        150,
        150,
        None,
    )
    code = load_recipe("cwah_gigpo", ["game.limits=code"]).game
    assert (code.max_ticks, code.max_decisions, code.capped_seat) == (250, 50, 0)
    cpu = load_recipe("cwah_gigpo_cpu").game  # the CPU recipe: the released code's, every seat
    assert (cpu.limits, cpu.max_ticks, cpu.max_decisions, cpu.capped_seat) == (None, 250, 50, None)
    with pytest.raises(Exception, match="counts another seat's decisions than the policy's"):
        load_recipe("cwah_gigpo", ["game.limits=code", "rollout.target_seat=1"])
    # evaluation keeps its own limits whatever the training recipe says
    from collabrl.config import eval_section

    section = eval_section("household", "0_read_book")
    assert (section.max_ticks, section.max_decisions, section.limits) == (250, 250, None)
