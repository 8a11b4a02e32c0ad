"""Participants in headless Chromium: a three-condition within-subject study, two people
matched with an agent, a server restart mid-round, an idle participant timing out.

Rounds are a few ticks long (``game.max_ticks``); each participant plays by clicking the first
offered action in the framed game page. Every wait is on a condition of the page (Playwright's
expect / wait_for_function), none on a clock.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from collabrl.study.results.export import export_study, response_rows
from collabrl.study.spec.design import latin_square
from collabrl.web.server import background
from tests.study.helpers import ADMIN, study_app

pytestmark = pytest.mark.slow  # minutes of CPU: only the full suite (.ci/run) runs it

ITEMS = ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")
CONDITIONS = ("base", "no_affective", "full")
# the study page's state, read in the page: "left" (the node changed), "mine" (the framed game
# shows your turn), else "wait"
TURN = """([node, version]) => {
  if (document.body.dataset.node !== node) return "left";
  const frame = document.getElementById("game").contentDocument;
  const body = frame && frame.body;
  if (!body || body.dataset.version === version) return "";
  const turn = frame.getElementById("turn");
  return turn && turn.className === "mine" ? "mine" : "";
}"""


def turn(page, node: str, version: str | None = None, timeout: float = 10_000) -> str:
    """Wait until it is this page's turn in round ``node`` or the page left it."""
    return page.wait_for_function(TURN, arg=[node, version], timeout=timeout).json_value()


def decide(page, node: str) -> None:
    """Click the first offered action and wait until the game answered or the round ended."""
    frame = page.frame_locator("#game")
    version = frame.locator("body").get_attribute("data-version")
    frame.locator("#actions button").first.click()
    page.wait_for_function(
        """([node, version]) => document.body.dataset.node !== node ||
          document.getElementById("game").contentDocument.body.dataset.version !== version""",
        arg=[node, version],
    )


def play_round(page, node: str) -> int:
    """Play the participant's seat until round ``node`` is over; the decisions made."""
    made = 0
    while turn(page, node) == "mine":
        decide(page, node)
        made += 1
    return made


def rate(page, node: str, point: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-node", node)
    for item in ITEMS:
        page.get_by_test_id(f"rate-{item}-{point}").check()
    page.get_by_test_id("free-text").fill(f"<b>round</b> {node}")
    page.get_by_test_id("submit").click()
    expect(page.locator("body")).not_to_have_attribute("data-node", node)


def walk_in(page, base: str, key: str, shot=None) -> str:
    """Join, consent, answer the intake survey, read the instructions: the participant's token."""
    page.goto(f"{base}/join?key={key}")
    expect(page.get_by_test_id("agree")).to_be_visible()
    if shot:
        shot(page, "study_consent")
    page.get_by_test_id("agree").click()
    page.get_by_test_id("q-gaming-4").check()
    page.get_by_test_id("q-ai_familiarity-5").check()
    page.get_by_test_id("submit").click()
    page.get_by_test_id("continue").click()
    expect(page.locator("body")).to_have_attribute("data-node", "rounds.play1")
    return page.url.split("token=")[1]


def test_three_participants_complete_a_within_subject_study(tmp_path, new_page, shot) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", "game.max_ticks=5")
    rt = app.state.runtime
    with background(app) as base:
        admin = new_page()
        admin.goto(f"{base}/admin?token={ADMIN}")
        for n in range(3):
            page = new_page()
            walk_in(page, base, app.state.join_key, shot if n == 0 else None)
            for k in (1, 2, 3):
                expect(page.get_by_test_id("note")).to_contain_text("Agent")
                expect(page.get_by_test_id("note")).to_contain_text("is an AI agent.")
                expect(page.get_by_test_id("progress")).to_have_text(f"Round {k} of 3")
                if n == 0 and k == 1:
                    turn(page, "rounds.play1")
                    game = page.frame_locator("#game")  # the study's names, not the seats'
                    expect(game.get_by_test_id("team-0")).to_have_text("Alice (you)")
                    expect(game.get_by_test_id("team-1")).to_have_class("seat-1")
                    expect(game.get_by_test_id("team-1")).to_have_text(re.compile(r"^Agent [ABC]$"))
                    expect(game.locator("#observation")).not_to_contain_text("Bob")
                    expect(game.locator("#intro")).not_to_contain_text("Bob")
                    shot(page, "study_round")
                assert play_round(page, f"rounds.play{k}") > 0
                if n == 0 and k == 1:
                    expect(page.get_by_test_id("item-empathy")).to_be_visible()
                    shot(page, "study_questionnaire")
                rate(page, f"rounds.rate{k}", point=1 + (n + k) % 5)
            expect(page.get_by_test_id("code")).to_be_visible()
            expect(page.get_by_test_id("debrief")).to_contain_text("Debriefing")
            if n == 0:
                shot(page, "study_end")
        expect(admin.get_by_test_id("count-completed")).to_have_text("3")
        for pid, person in rt.people.items():  # each participant's own completion code
            assert person["code"]
            expect(admin.get_by_test_id(f"participant-{pid}")).to_contain_text(person["code"])
        shot(admin, "study_admin")
    rows = response_rows(app.state.runtime.loaded, rt.db)
    assert len(rows) == 9 and all(r["rated"] and r["kind"] == "human" for r in rows)
    square = [[CONDITIONS[i] for i in row] for row in latin_square(3)]
    by_person: dict[str, list[str]] = {}
    for r in sorted(rows, key=lambda r: (r["participant"], r["position"])):
        by_person.setdefault(r["participant"], []).append(r["condition"])
    assert sorted(by_person.values()) == sorted(square)  # the three Latin-square orders
    assert Counter(r["task"] for r in rows if r["position"] == 1) == {
        "0_read_book": 1,
        "20_prepare_food": 1,
        "40_setup_table": 1,
    }
    assert all(r["q_empathy"] == 1 + (int(r["unit"]) + r["position"]) % 5 for r in rows)
    assert {r["free_text"] for r in rows} >= {"<b>round</b> rounds.rate1"}
    info = export_study(rt.loaded, rt.db, tmp_path / "export")
    assert info["counts"]["completed"] == 3 and info["counts"]["rows"] == 9
    codes = {p["code"] for p in rt.people.values()}
    assert len(codes) == 3 and None not in codes  # unique completion codes


def test_two_people_are_matched_with_an_agent(tmp_path, new_page) -> None:
    app = study_app(tmp_path, "household_group_study", "game.max_ticks=4")
    rt = app.state.runtime
    with background(app) as base:
        pages = [new_page(), new_page()]
        for n, page in enumerate(pages):
            page.goto(f"{base}/join?key={app.state.join_key}")
            page.get_by_test_id("agree").click()
            if n == 0:
                expect(page.locator("body")).to_have_attribute("data-node", "waiting")
                expect(page.get_by_test_id("note")).to_have_text("1 waiting")
        for page in pages:
            expect(page.locator("body")).to_have_attribute("data-node", "rounds.play1")
        for k in (1, 2):
            node, active = f"rounds.play{k}", list(pages)
            while active:
                for page in list(active):
                    try:
                        state = turn(page, node, timeout=300)
                    except PlaywrightTimeout:
                        continue  # the other participant is owed the next decision
                    if state == "left":
                        active.remove(page)
                    else:
                        decide(page, node)
            for page in pages:
                rate(page, f"rounds.rate{k}", point=3)
        for page in pages:
            expect(page.get_by_test_id("code")).to_have_text("GROUP-2026")
    (group,) = rt.db.groups()
    pids = sorted(p for p in rt.people)
    assert sorted(group["members"].values()) == pids and group["phase"] == "done"
    (formed,) = rt.db.events("group_formed")
    assert formed["data"]["how"] == "matched"
    for record in (e["record"] for e in rt.db.episodes()):
        assert record["players"]["Carol"] in ("expert", "persona:cwah-0_read_book-test-10")
        assert {t["seat"] for t in record["turns"]} >= {"Alice", "Bob", "Carol"}


def test_a_server_restart_loses_no_event_and_the_participant_resumes(tmp_path, new_page) -> None:
    db = tmp_path / "study.sqlite"
    first = study_app(tmp_path, "paper_user_study_cpu", "game.max_ticks=40", db=db)
    page = new_page()
    with background(first) as base:
        token = walk_in(page, base, first.state.join_key)
        for _ in range(2):
            assert turn(page, "rounds.play1") == "mine"
            decide(page, "rounds.play1")
        assert turn(page, "rounds.play1") == "mine"
        clock = page.frame_locator("#game").get_by_test_id("clock").inner_text()
    before = first.state.runtime.db.events()  # the sockets' disconnects included
    assert [e["kind"] for e in before[-2:]] == ["disconnect", "disconnect"]
    first.state.runtime.db.close()
    second = study_app(tmp_path, "paper_user_study_cpu", "game.max_ticks=40", db=db)
    with background(second) as base:
        page.goto(f"{base}/s?token={token}")
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.play1")
        expect(page.frame_locator("#game").get_by_test_id("clock")).to_have_text(clock)
        play_round(page, "rounds.play1")
        rate(page, "rounds.rate1", point=2)
        expect(page.locator("body")).to_have_attribute("data-node", "rounds.play2")
        after = second.state.runtime.db.events()
    assert after[: len(before)] == before  # nothing lost, nothing rewritten
    kinds = [e["kind"] for e in after[len(before) :]]
    assert kinds[:2] == ["episode_replayed", "server_start"]
    assert kinds.count("episode_restarted") == 0
    decisions = [e["data"]["tick"] for e in after if e["kind"] == "decision"]
    assert decisions == sorted(decisions) and len(decisions) >= 3
    (episode,) = [e for e in after if e["kind"] == "episode_end"]
    assert episode["data"]["position"] == 0


def test_an_idle_participant_times_out_as_declared(tmp_path, new_page) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu", "timers.idle_s=0.5", "timers.on_idle=release")
    rt = app.state.runtime
    with background(app) as base:
        page = new_page()
        walk_in(page, base, app.state.join_key)
        expect(page.get_by_test_id("timer")).to_contain_text("Your move: without one in")
        expect(page.get_by_test_id("title")).to_have_text("The session has ended")
        expect(page.get_by_test_id("code")).to_have_count(0)
    (person,) = rt.people.values()
    assert person["status"] == "released" and person["page"] == "timed_out"
    kinds = [e["kind"] for e in rt.db.events() if e["pid"] == person["pid"]]
    assert kinds.index("idle_timeout") < kinds.index("released") < kinds.index("finished")
    assert [e["gid"] for e in rt.db.events("group_abandoned")] == ["g0000"]
    assert json.loads(json.dumps(rt.db.events("released")[0]["data"])) == {"reason": "idle"}


PROLIFIC_PAID = (
    "recruitment.platform=prolific",
    "completion.code=C0DE42",
    "completion.unique=false",
    "payment.base=2.5",
    "payment.bonus=0.2 * succeeded + 0.1 * rounds",
)


def test_a_prolific_participant_under_a_path_prefix_is_paid_and_sent_back(
    tmp_path, new_page, shot
) -> None:
    """Behind a proxy at lab.org/lab/study1/: every page, asset, socket and redirect stays under
    the prefix; the Prolific ids are captured, the bonus computed and the way back offered."""
    import csv

    prefix = "/lab/study1"
    app = study_app(
        tmp_path, "paper_user_study_cpu", "game.max_ticks=4", *PROLIFIC_PAID, base_path=prefix
    )
    rt = app.state.runtime
    ids = "PROLIFIC_PID=60aa0c0ffee0c0ffee0c0ffe&STUDY_ID=st1&SESSION_ID=se1"
    with background(app) as base:
        page = new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{base}{prefix}/join?key={app.state.join_key}&{ids}")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("q-gaming-4").check()
        page.get_by_test_id("q-ai_familiarity-5").check()
        page.get_by_test_id("submit").click()
        page.get_by_test_id("continue").click()
        for k in (1, 2, 3):
            expect(page.get_by_test_id("progress")).to_have_text(f"Round {k} of 3")
            play_round(page, f"rounds.play{k}")
            rate(page, f"rounds.rate{k}", point=4)
        expect(page.get_by_test_id("payment")).to_contain_text("bonus of")
        link = page.get_by_test_id("redirect")
        expect(link).to_have_attribute(
            "href", "https://app.prolific.com/submissions/complete?cc=C0DE42"
        )
        shot(page, "study_end_prolific")
        admin = new_page()
        admin.goto(f"{base}{prefix}/admin?token={ADMIN}")
        expect(admin.get_by_test_id("count-completed")).to_have_text("1")
    outside = [u for u in requested if u.startswith(base) and not u.startswith(base + prefix + "/")]
    assert requested and not outside, outside
    (pid,) = rt.people
    succeeded = sum(
        bool(rt.db.episode(rt.people[pid]["gid"], i)["summary"]["success"]) for i in range(3)
    )
    expected = round(0.2 * succeeded + 0.3, 2)
    export_study(rt.loaded, rt.db, tmp_path / "export")
    with open(tmp_path / "export" / "participants.csv", encoding="utf-8", newline="") as f:
        (person,) = list(csv.DictReader(f))
    assert (
        person["platform.participant"] != "60aa0c0ffee0c0ffee0c0ffe"
        and person["platform.study"] == "st1"
    )
    bonuses = (tmp_path / "export" / "bonuses.csv").read_text()
    assert bonuses == (f"60aa0c0ffee0c0ffee0c0ffe,{expected:.2f}\n" if expected > 0 else "")


def test_form_errors_stand_beside_their_questions_all_at_once(tmp_path, new_page, shot) -> None:
    app = study_app(tmp_path, "paper_user_study_cpu")
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("submit").click()  # nothing answered
        for qid in ("gaming", "ai_familiarity"):
            problem = page.get_by_test_id(f"q-{qid}").get_by_test_id(f"problem-{qid}")
            expect(problem).to_have_text("please answer this question")
        expect(page.get_by_test_id("error")).to_have_text("Please fix the 2 marked answers above.")
        assert "ai_familiarity" not in page.locator("main").inner_text()  # no internal ids
        shot(page, "study_form_errors")
        page.get_by_test_id("q-gaming-4").check()
        page.get_by_test_id("submit").click()  # one left: the fixed one is no longer marked
        expect(page.get_by_test_id("problem-gaming")).to_have_count(0)
        expect(page.get_by_test_id("problem-ai_familiarity")).to_be_visible()
        page.get_by_test_id("q-ai_familiarity-5").check()
        page.get_by_test_id("submit").click()
        expect(page.locator("body")).to_have_attribute("data-node", "instructions")


def test_no_countdown_where_nothing_is_about_to_time_out(tmp_path, new_page) -> None:
    """The consent page of a study with a 30-minute page limit shows no clock; a page about to
    close says so in words."""
    app = study_app(tmp_path, "paper_user_study_cpu")
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        expect(page.get_by_test_id("agree")).to_be_visible()
        page.wait_for_timeout(1100)  # one tick of the page's clock
        expect(page.get_by_test_id("timer")).to_have_text("")
    app = study_app(tmp_path / "short", "paper_user_study_cpu", "timers.page_s=20")
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        expect(page.get_by_test_id("timer")).to_contain_text("This page closes in")
