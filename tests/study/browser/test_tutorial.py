"""A participant in headless Chromium plays the study's practice round (a conditions page's
``tutorial``), then the real rounds: the page says it is practice, no questionnaire follows it,
and the export counts only the real rounds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from collabrl.study.results.export import response_rows
from collabrl.web.server import background
from tests.study.browser.test_browser import play_round, rate, turn
from tests.study.helpers import study_app

pytestmark = pytest.mark.slow  # a browser session: only the full suite (.ci/run) runs it

TUTORIAL = (
    "pages.3.tutorial={task: 5_read_book, name: Coach, game_options: {max_ticks: 6}, "
    "text: '**Practice round.** Try the game with {partner}: this round does not count.'}"
)


def test_a_participant_practises_then_plays_the_real_rounds(tmp_path, new_page, shot) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", "game.max_ticks=5", TUTORIAL)
    rt = app.state.runtime
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("q-gaming-4").check()
        page.get_by_test_id("q-ai_familiarity-5").check()
        page.get_by_test_id("submit").click()
        page.get_by_test_id("continue").click()
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.practice")
        expect(page.get_by_test_id("progress")).to_have_text("Practice round")
        expect(page.get_by_test_id("body")).to_contain_text(
            "Practice round. Try the game with Coach: this round does not count."
        )
        expect(page.get_by_test_id("note")).to_have_text("Coach is an AI agent.")
        turn(page, "rounds.practice")
        game = page.frame_locator("#game")
        expect(game.get_by_test_id("team-1")).to_have_text("Coach")
        shot(page, "study_tutorial")
        assert play_round(page, "rounds.practice") > 0
        # no questionnaire after the practice: straight on to round 1
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.play1")
        for k in (1, 2, 3):
            expect(page.get_by_test_id("progress")).to_have_text(f"Round {k} of 3")
            expect(page.get_by_test_id("note")).not_to_contain_text("Coach")
            assert play_round(page, f"rounds.play{k}") > 0
            rate(page, f"rounds.rate{k}", point=3)
        expect(page.get_by_test_id("code")).to_be_visible()
    events = rt.db.events()
    kinds = [e["kind"] for e in events]
    assert kinds.count("practice_start") == kinds.count("practice_end") == 1
    assert kinds.index("practice_end") < kinds.index("episode_start")
    practice = [e for e in events if e["node"] == "rounds.practice" and e["kind"] == "decision"]
    assert practice and all(e["data"]["by"] == "participant" for e in practice)
    assert [e["data"]["position"] for e in rt.db.events("questionnaire")] == [0, 1, 2]
    rows = response_rows(rt.loaded, rt.db)
    assert [r["position"] for r in rows] == [1, 2, 3] and all(r["rated"] for r in rows)
    (record,) = [e["record"] for e in rt.db.episodes() if e["record"].get("practice")]
    assert record["stamp"]["practice"] is True and record["summary"]["steps"] <= 6
