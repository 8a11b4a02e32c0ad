"""The optional ``final_observation(seat)``: what a seat sees once the episode is over.

The pages show it beside the outcome ("book 3/3" beside "Success"), instead of the last
observation a seat decided on. It is not part of the required game contract: a game without it
still passes ``check_game`` and is shown with its last observation.
"""

from __future__ import annotations

from collabrl.agents.protocol import parse_observed
from collabrl.envs import check_game
from collabrl.envs.base import Decision, Game
from collabrl.envs.household.board import BOARD
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.web.frames import final_view


def play_out(game: Game, experts: dict, seed: int) -> None:
    pending = game.reset(seed=seed)
    for seat, expert in experts.items():
        expert.reset(seat, seed)
    while not game.done:
        decisions = {}
        for seat, obs in pending.items():
            parsed = parse_observed(experts[seat].act(obs), obs)
            decisions[seat] = Decision(parsed.action, parsed.message, "", parsed.valid)
        pending = game.step(decisions).observations


def test_the_household_shows_every_goal_object_in_place_at_the_end() -> None:
    game = HouseholdGame("0_read_book")
    play_out(game, {s: HouseholdExpert() for s in game.agents}, seed=1)
    summary = game.summary()
    assert summary["success"]
    for seat in game.agents:
        final = game.final_observation(seat)
        assert final.actions == [] and final.tick == game.tick == summary["steps"]
        assert "book 3/3, glasses 1/1" in final.text
        assert [p["placed"] for p in final.state["progress"]] == [3, 1]
        assert "Goal objects in place: book 3/3" in final.text  # no "as far as you know"
        # the goal objects as they truly ended, not the seat's last beliefs ("held by Bob")
        places = {g["id"]: g["at"] for g in final.state["goal_objects"]}
        assert len(places) == 4 and len(set(places.values())) == 1
        assert "held by" not in final.text.split("Goal objects found:")[1].split("\n")[0]
        frame = BOARD.for_seat(BOARD.frame(game), seat)
        assert (
            sum(line.startswith(("book", "glasses")) for v in frame["found"].values() for line in v)
            == 4
        )
    assert game.summary() == summary  # looking at the end changes nothing


def test_the_kitchen_shows_the_final_score_and_no_actions() -> None:
    game = KitchenGame("cramped_room", horizon=40)
    play_out(game, {s: KitchenExpert() for s in game.agents}, seed=0)
    final = game.final_observation(game.agents[0])
    assert final.actions == [] and final.tick == 40
    assert final.text.startswith(f"Timestep 40 of 40. Score {game.summary()['score']}")


class WithoutFinal(HouseholdGame):
    """A household game as a game without the optional method would be."""

    def __getattribute__(self, name: str):
        if name == "final_observation":
            raise AttributeError(name)
        return super().__getattribute__(name)


def test_the_page_lays_out_the_final_view_and_leaves_out_games_without_one() -> None:
    game = HouseholdGame("0_read_book")
    play_out(game, {s: HouseholdExpert() for s in game.agents}, seed=1)
    view = final_view(game, "Alice")
    assert view is not None and view["tick"] == game.tick
    assert any(b["title"] == "Progress" for b in view["sections"])
    plain = WithoutFinal("0_read_book")
    play_out(plain, {s: HouseholdExpert() for s in plain.agents}, seed=1)
    assert plain.done and final_view(plain, "Alice") is None


def test_the_method_is_optional_in_the_contract() -> None:
    """A game without it is still a game, and passes the contract's checks."""
    assert not hasattr(WithoutFinal("0_read_book"), "final_observation")
    assert isinstance(WithoutFinal("0_read_book"), Game)
    check_game(lambda: WithoutFinal("0_read_book"), seeds=(0,))
