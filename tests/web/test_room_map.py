"""The household's room map: what it shows, clicking a room, and each page seeing only its seat.

The map (``collabrl.envs.household.board``) is drawn from frames holding every seat's knowledge;
the record keeps them whole, but a page is sent only its own seat's part, so a teammate's rooms,
finds and position (beyond where it was last seen) never reach another person's browser.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.sync_api import expect

from collabrl.agents.protocol import parse_observed
from collabrl.envs.household.board import BOARD, display_names
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.web.server import background
from collabrl.web.session import Session
from tests.web.helpers import only_session, open_new_episode, play_decision, serve_app


def test_entities_are_named_in_words_and_numbered_where_names_repeat() -> None:
    names = display_names("0_read_book")
    assert names[59] == "living room" and names[230] == "coffee table"
    cabinets = sorted(n for n in names.values() if n.startswith("kitchen cabinet"))
    assert cabinets == [f"kitchen cabinet {k}" for k in range(1, 5)]
    assert {names[379], names[430], names[445]} == {"book 1", "book 2", "book 3"}
    assert names[224] == "sofa"  # one of a kind: no number


def test_the_layout_holds_the_rooms_on_the_grid_the_goal_and_the_walk_actions() -> None:
    game = HouseholdGame("0_read_book")
    obs = game.reset(seed=0)
    layout = BOARD.layout(game)
    rooms = {r["name"]: r for r in layout["rooms"]}
    assert set(rooms) == {"living room", "kitchen", "bedroom", "bathroom"}
    assert rooms["kitchen"]["cell"] == [2, 0]
    offered = set(obs["Alice"].actions)
    assert rooms["kitchen"]["action"] in offered or game.rooms[0] == rooms["kitchen"]["id"]
    assert layout["goal"] == [{"place": "coffee table", "room": 59, "what": "3 books, 1 glasses"}]
    assert layout["help"] and layout["names"]["230"] == "coffee table"


def two_people(decisions: int) -> tuple[Session, list[dict], list[dict]]:
    """A household session with people in both seats, played by the expert's choices for
    ``decisions`` rounds; every state the session would push to Alice's and Bob's pages."""
    alice, bob = [], []

    async def play() -> Session:
        session = Session(
            sid="s",
            game=HouseholdGame("0_read_book"),
            players={},
            humans=["Alice", "Bob"],
            seed=3,
            kinds={"Alice": "human", "Bob": "human"},
            on_finish=lambda s: None,
        )
        await session.start()
        experts = {seat: HouseholdExpert() for seat in session.humans}
        for seat, expert in experts.items():
            expert.reset(seat, 3)
        for _ in range(decisions):
            alice.append(session.view("Alice", 0))
            bob.append(session.view("Bob", 0))
            for seat in session.waiting_for():
                obs = session.seats[seat].obs
                parsed = parse_observed(experts[seat].act(obs), obs)
                await session.decide(seat, parsed.action or "", parsed.message)
        return session

    return asyncio.run(play()), alice, bob


def test_a_page_gets_only_its_own_seats_part_of_each_frame() -> None:
    session, alice, bob = two_people(12)
    whole = session.frames
    assert len(whole) >= 10 and all(set(f["seats"]) == {"Alice", "Bob"} for f in whole)
    by_tick = {f["tick"]: f for f in whole}
    for seat, states in (("Alice", alice), ("Bob", bob)):
        for state in states:
            for frame in state["frames"]:
                assert "seats" not in frame and frame["seat"] == seat
                assert frame == BOARD.for_seat(by_tick[frame["tick"]], seat)
    # the two seats came to know different things, so a whole frame would have told more
    differs = [f for f in whole if f["seats"]["Alice"]["explored"] != f["seats"]["Bob"]["explored"]]
    assert differs
    keys = {"tick", "seat", "room", "steps", "explored", "holding", "found", "progress", "seen"}
    assert all(set(f) == keys for s in alice for f in s["frames"])


def test_frames_are_taken_only_where_a_person_decides() -> None:
    session, alice, _ = two_people(6)
    ticks = [f["tick"] for f in session.frames]
    assert ticks == sorted(set(ticks))  # one per decision point, never repeated
    assert len(ticks) <= 7  # the first, then one per decision round at most


@pytest.mark.slow
def test_the_map_shows_rooms_and_a_click_walks_there(tmp_path, page) -> None:
    app = serve_app(tmp_path, "household_human", "players.1.kind=expert", "players.1.profile=null")
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        session = only_session(app)
        game = session.game
        here = game.apartment.rooms[game.rooms[0]]
        layout = session.board["layout"]
        rooms = {r["id"]: r for r in layout["rooms"]}
        expect(page.get_by_test_id(f"room-{here.id}")).to_contain_text("you are here")
        expect(page.get_by_test_id(f"room-{here.id}")).to_have_class("room explored here")
        target = next(r for r in layout["rooms"] if r["id"] != here.id)
        steps = game.apartment.travel[here.id, target["id"]]
        room = page.get_by_test_id(f"room-{target['id']}")
        expect(room).to_contain_text(f"{steps} steps away")
        expect(room).to_contain_text("not explored yet")
        expect(room).to_have_class("room unexplored go")
        goal_room = page.get_by_test_id(f"room-{layout['goal'][0]['room']}")
        expect(goal_room).to_contain_text("goal place: coffee table")
        expect(page.get_by_test_id("help")).to_contain_text("What the actions do")
        expect(page.locator("#observation")).not_to_contain_text("(230)")  # no ids
        # the rules leave out the prompt's id notation, which the page does not use
        expect(page.locator("#intro")).to_contain_text("You can carry at most two objects")
        expect(page.locator("#intro")).not_to_contain_text("written as <name> (id)")
        assert "written as <name> (id)" in game.intro("Alice")  # the agent's prompt keeps it
        expect(page.get_by_test_id("piece-0").locator("text")).to_have_text("you")
        # a click on the room sends the action that walks there
        version = page.locator("body").get_attribute("data-version")
        room.click()
        expect(page.locator("body")).not_to_have_attribute("data-version", version)
        mine = [t for t in session.turns if t["seat"] == "Alice"]
        assert mine[0]["action"] == rooms[target["id"]]["action"]
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        # the room left behind is explored: going there again is "going back"
        back = page.locator(f'#actions button[data-action="{rooms[here.id]["action"]}"]')
        expect(back).to_contain_text(f"Go back to the {rooms[here.id]['name']}")
        me = HouseholdExpert()
        me.reset("Alice", session.seed)
        for _ in range(3):
            play_decision(page, session, "Alice", me)
        state = session.view("Alice", 0)
        assert all("seats" not in f for f in state["frames"])
