"""A person's seat in the browser: whole episodes by clicking and typing, reloads, escaping."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from collabrl.envs.household.expert import HouseholdExpert
from collabrl.web.server import background
from tests.web.helpers import only_session, open_new_episode, play_decision, serve_app

XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def records(folder) -> list[dict]:
    lines = (folder / "trajectories.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.slow
def test_household_episode_beside_the_expert_to_success(tmp_path, page, shot) -> None:
    app = serve_app(tmp_path, "household_human", "players.1.kind=expert", "players.1.profile=null")
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        explore = page.locator('#actions button[data-action^="[goexplore]"]').first
        room = explore.get_attribute("data-action").split("(")[1].rstrip(")")  # the room's id
        name = only_session(app).board["layout"]["names"][room]  # in words: "living room"
        expect(explore).to_contain_text(f"Go to the {name} and look around")  # words, not codes
        expect(page.get_by_test_id("rules")).to_have_attribute("open", "")
        expect(page.locator("#observation")).not_to_contain_text("Dialogue")  # one chat
        expect(page.get_by_test_id("chat")).to_contain_text("tick 0 Alice:")
        expect(page.get_by_test_id("chat")).not_to_contain_text("[0]")
        shot(page, "household_start")
        session = only_session(app)
        # a message with markup: shown as text, never run
        version = page.locator("body").get_attribute("data-version")
        page.get_by_test_id("message").fill(XSS)
        page.get_by_test_id("send").click()
        expect(page.locator("body")).not_to_have_attribute("data-version", version)
        expect(page.get_by_test_id("chat")).to_contain_text(XSS)
        assert page.evaluate("window.__pwned") is None
        me = HouseholdExpert()
        me.reset("Alice", session.seed)
        while not session.done:
            play_decision(page, session, "Alice", me)
        expect(page.get_by_test_id("result")).to_contain_text("Success")
        # the final view: the finished state beside the outcome, not the last decision's
        observation = page.get_by_test_id("observation")
        expect(observation).to_contain_text("How the episode ended")
        expect(observation).to_contain_text("book 3/3, glasses 1/1")
        expect(observation).not_to_have_class("stale")
        expect(page.get_by_test_id("caption")).to_have_text("in place: book 3/3, glasses 1/1")
        shot(page, "household_end")
        assert page.evaluate("window.__pwned") is None
    (record,) = records(tmp_path)
    assert record["summary"]["success"] and record["seat_name"] == "Alice"
    mine = [t for t in record["turns"] if t["seat"] == "Alice"]
    assert mine[0]["message"] == XSS and mine[0]["action"] == "[send_message]"
    assert all(t["player"] == "human" and t["decision_s"] >= 0 for t in mine)
    assert all(t["decision_s"] is None for t in record["turns"] if t["seat"] == "Bob")
    assert record["summary"]["decisions"]["Alice"] == len(mine)
    assert (tmp_path / "trajectories_hf" / "dataset_info.json").exists()


@pytest.mark.slow
def test_kitchen_episode_for_a_set_number_of_ticks(tmp_path, page, shot) -> None:
    app = serve_app(tmp_path, "kitchen_human", "game.horizon=30")
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        expect(page.get_by_test_id("chef-0")).to_be_visible()
        expect(page.get_by_test_id("chef-1")).to_be_visible()
        # pieces named: "you" for the own chef, the teammate's initial ("Player 1": P)
        expect(page.get_by_test_id("chef-0").locator("text.chef-label")).to_have_text("you")
        expect(page.get_by_test_id("chef-1").locator("text.chef-label")).to_have_text("P")
        expect(page.get_by_test_id("team-1")).to_have_attribute("data-piece", "P")  # the key
        labels = page.evaluate(
            "[pieceLabels(['Alice', 'Bob'], {Bob: 'Agent A'}, 'Alice'),"
            " pieceLabels(['Chef 0', 'Chef 1', 'Cat'], {}, 'Chef 0'),"
            " pieceLabels(['Player 0', 'Player 1'], {}, undefined)]"
        )
        assert labels == [["you", "A"], ["you", "1", "2"], ["0", "1"]]
        onion = page.locator('#actions button[data-action="pickup(onion)"]')
        expect(onion).to_contain_text("Pick up an onion")
        expect(page.get_by_label("ticks to wait")).to_be_visible()
        session = only_session(app)
        decisions = 0
        while not session.done:
            version = page.locator("body").get_attribute("data-version")
            page.keyboard.type("A")  # the first legal skill each time (or wait)
            expect(page.locator("body")).not_to_have_attribute("data-version", version)
            decisions += 1
            # one state per message: the board is drawn at the tick the text shows
            shown = page.evaluate(
                "[document.body.dataset.boardTick, document.getElementById('clock').textContent]"
            )
            assert shown[1].startswith(f"tick {shown[0]} of"), shown
            if decisions == 3:
                shot(page, "kitchen_mid")
        expect(page.get_by_test_id("result")).to_contain_text("Final score")
        expect(page.get_by_test_id("clock")).to_contain_text("tick 30 of 30")
        # the final view: the kitchen as it ended, not the last decision's observation
        expect(page.get_by_test_id("observation")).to_contain_text("Timestep 30 of 30")
        expect(page.get_by_test_id("observation")).to_contain_text("How the episode ended")
        shot(page, "kitchen_end")
    (record,) = records(tmp_path)
    assert record["summary"]["ticks"] == 30
    assert [f["tick"] for f in record["frames"]] == list(range(31))
    assert sum(t["seat"] == "Player 0" for t in record["turns"]) == decisions


@pytest.mark.slow
def test_a_reload_resumes_the_same_episode(tmp_path, page) -> None:
    app = serve_app(tmp_path, "household_human")
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        session = only_session(app)
        me = HouseholdExpert()
        me.reset("Alice", session.seed)
        for _ in range(2):
            play_decision(page, session, "Alice", me)
        url, clock = page.url, page.get_by_test_id("clock").inner_text()
        page.reload()
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        expect(page.get_by_test_id("clock")).to_have_text(clock)
        assert page.url == url and len(app.state.sessions.by_id) == 1
        play_decision(page, session, "Alice", me)
        assert sum(t["seat"] == "Alice" for t in session.turns) == 3


@pytest.mark.slow
def test_analysis_episode_typed_into_the_text_boxes(tmp_path, page, shot) -> None:
    """The analysis game's text-argument actions (run(<step>), edit_*(<text>)) are typed into
    the boxes beside their buttons; the reference analyst's choices solve the task."""
    import re

    from collabrl.agents.protocol import parse_observed
    from collabrl.envs.analysis.expert import AnalysisExpert

    app = serve_app(tmp_path, "analysis_human")
    with background(app) as base:
        open_new_episode(page, base)
        expect(page.get_by_test_id("turn")).to_have_text("Your turn")
        session = only_session(app)
        me = AnalysisExpert()
        me.reset("Ada", session.seed)
        shown = False
        while not session.done:
            obs = session.seats["Ada"].obs
            action = parse_observed(me.act(obs), obs).action
            version = page.locator("body").get_attribute("data-version")
            call = re.fullmatch(r"(run|edit_\w+)\((.*)\)", action, re.S)
            if call:
                box = page.get_by_test_id(f"argument-{call.group(1)}")
                box.fill(call.group(2))
                box.press("Enter")
            else:
                page.locator(f'#actions button[data-action="{action}"]').click()
            expect(page.locator("body")).not_to_have_attribute("data-version", version)
            if session.game.cells and not shown:
                shot(page, "analysis_notebook")
                shown = True
        expect(page.get_by_test_id("result")).to_contain_text("Success")
    (record,) = records(tmp_path)
    assert record["summary"]["score"] == 1.0 and record["game"] == "analysis"
