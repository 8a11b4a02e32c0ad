"""Recruitment and payment: a platform's ids captured from the link and kept as the privacy
section says, returning participants resumed or refused, the completion link, a bonus computed
from what the participant did, and the platform's bulk-bonus file; lint refuses what would strand
or underpay participants, in one line each."""

from __future__ import annotations

import csv
import io
import json

import pytest

from collabrl.errors import RecipeError
from collabrl.study.live.runtime import JoinRefused, StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.results.export import export_study
from collabrl.study.spec.payment import bonus_file, bonus_names, evaluate_bonus
from collabrl.study.spec.recruitment import PLATFORMS, SALT_VARIABLE, id_hash, study_link
from tests.study.helpers import SHORT, compiled, runtime

PROLIFIC = ("recruitment.platform=prolific", "completion.code=C0DE42", "completion.unique=false")
BONUS = '0.25 * succeeded + (0.5 if answers["intake.gaming"] == "weekly" else 0) + 0.1 * rounds'
PAID = (*PROLIFIC, "payment.base=2.5", f"payment.bonus={BONUS}")
LINK = {"PROLIFIC_PID": "5f1e0c0ffee0c0ffee0c0ffe", "STUDY_ID": "s-1", "SESSION_ID": "sess-9"}
STEPS = (
    {"node": "consent", "agree": True},
    {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 3}},
    {"node": "instructions"},
)
ITEMS = ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")


async def complete(rt: StudyRuntime, fields: dict[str, str]) -> str:
    """A participant through consent, intake, every round (played to its end, then rated)."""
    pid, _ = await rt.join(fields=fields)
    for step in STEPS:
        await rt.submit(pid, step)
    for position in range(1, rt.flow.rounds + 1):
        session = rt.group_of(pid).session
        while not session.done:
            await rt.decide(pid, session.seats["Alice"].obs.actions[0], "")
        ratings = dict.fromkeys(ITEMS, 4)
        await rt.submit(pid, {"node": f"rounds.rate{position}", "ratings": ratings})
    return pid


def read_csv(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_a_prolific_participant_is_paid_by_expression_and_sent_back(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(SALT_VARIABLE, "lab-secret")

    async def run():
        rt = runtime(tmp_path, "paper_user_study_cpu", *SHORT, *PAID)
        await rt.recover()
        return rt, await complete(rt, LINK)

    rt, pid = run_coroutine(run())
    view = rt.view(pid)
    succeeded = sum(
        bool(rt.db.episode(rt.group_of(pid).gid, i)["summary"]["success"]) for i in range(3)
    )
    bonus = round(0.25 * succeeded + 0.5 + 0.1 * 3, 2)
    assert view["kind"] == "end" and view["code"] == "C0DE42"
    assert view["redirect"] == "https://app.prolific.com/submissions/complete?cc=C0DE42"
    assert view["payment"] == {"base": 2.5, "bonus": bonus, "currency": "GBP"}
    out = tmp_path / "export"
    export_study(rt.loaded, rt.db, out)
    (person,) = read_csv(out / "participants.csv")
    hashed = id_hash(LINK["PROLIFIC_PID"], b"lab-secret")
    assert person["platform.participant"] == hashed and person["platform.study"] == "s-1"
    assert person["platform.session"] == id_hash("sess-9", b"lab-secret")
    assert float(person["payment.bonus"]) == bonus and float(person["payment.base"]) == 2.5
    # the raw id is in the bonus file (Prolific's bulk format) and nowhere else in the export
    assert (out / "bonuses.csv").read_text() == f"{LINK['PROLIFIC_PID']},{bonus:.2f}\n"
    for name in ("participants.csv", "responses.csv", "events.jsonl", "trajectories.jsonl"):
        assert LINK["PROLIFIC_PID"] not in (out / name).read_text(), name
        assert "sess-9" not in (out / name).read_text(), name


def test_keep_exports_raw_ids_and_drop_stores_only_the_hash(tmp_path) -> None:
    async def join(folder, kept):
        rt = runtime(folder, "paper_user_study_cpu", *PROLIFIC, f"privacy.platform_ids={kept}")
        await rt.recover()
        pid, _ = await rt.join(fields=LINK)
        return rt, pid

    folder = tmp_path / "keep"
    rt, pid = run_coroutine(join(folder, "keep"))
    (joined,) = rt.db.events("join")
    assert joined["data"]["platform"]["platform.participant"] == LINK["PROLIFIC_PID"]
    folder = tmp_path / "drop"
    rt, pid = run_coroutine(join(folder, "drop"))
    (joined,) = rt.db.events("join")
    assert joined["data"]["platform"] == {} and rt.db.identities() == {pid: {}}
    assert LINK["PROLIFIC_PID"].encode() not in (folder / "study.sqlite").read_bytes()


@pytest.mark.parametrize(
    ("policy", "expect"), [("resume", "same"), ("refuse", 409), ("new", "another")]
)
def test_a_returning_platform_id_is_resumed_refused_or_new(tmp_path, policy, expect) -> None:
    async def twice():
        rt = runtime(tmp_path, "paper_user_study_cpu", *PROLIFIC, f"recruitment.returning={policy}")
        await rt.recover()
        first, old = await rt.join(fields=LINK)
        await rt.submit(first, STEPS[0])
        try:
            second, new = await rt.join(fields=LINK)
        except JoinRefused as exc:
            return rt, first, old, exc
        return rt, first, old, (second, new)

    rt, first, old, outcome = run_coroutine(twice())
    (returned,) = rt.db.events("return") or [None]
    if expect == 409:
        assert isinstance(outcome, JoinRefused) and outcome.status == 409
        assert "already taken part" in str(outcome) and returned["data"]["policy"] == "refuse"
        return
    second, new = outcome
    if expect == "same":  # the same session, at the page they left, under a new link
        assert second == first and rt.node(second) == "intake"
        assert rt.participant(new) == first and rt.participant(old) is None
    else:
        assert second != first and rt.node(second) == "consent" and returned is None
        joins = rt.db.events("join")
        assert joins[-1]["data"]["returning_of"] == first


def test_a_link_without_the_platform_id_is_refused_in_words(tmp_path) -> None:
    async def join():
        rt = runtime(tmp_path, "paper_user_study_cpu", *PROLIFIC)
        await rt.recover()
        with pytest.raises(JoinRefused, match="lacks your Prolific id .PROLIFIC_PID."):
            await rt.join(fields={"STUDY_ID": "s-1"})
        return rt

    rt = run_coroutine(join())
    assert rt.db.participants() == []
    unchecked = runtime(
        tmp_path / "b", "paper_user_study_cpu", *PROLIFIC, "recruitment.require_ids=false"
    )
    pid, _ = run_coroutine(_recover_and_join(unchecked))
    assert unchecked.db.identities() == {}


async def _recover_and_join(rt: StudyRuntime):
    await rt.recover()
    return await rt.join(fields={})


def test_the_app_refuses_with_a_page_and_redirects_a_good_link(tmp_path) -> None:
    from starlette.testclient import TestClient

    from tests.study.helpers import study_app

    app = study_app(tmp_path, "paper_user_study_cpu", *PROLIFIC)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        key = app.state.join_key
        refused = client.get(f"/join?key={key}", follow_redirects=False)
        assert refused.status_code == 400 and "open the study from Prolific" in refused.text
        query = "&".join(f"{k}={v}" for k, v in LINK.items())
        joined = client.get(f"/join?key={key}&{query}", follow_redirects=False)
        assert joined.status_code == 303 and joined.headers["location"].startswith("/s?token=")


def test_the_printed_prolific_link_carries_its_placeholders() -> None:
    link = study_link(PLATFORMS["prolific"], "https://lab.org/join?key=K")
    assert link == (
        "https://lab.org/join?key=K&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}"
        "&SESSION_ID={{%SESSION_ID%}}"
    )


def test_bonus_expressions_clip_round_and_fail_in_words() -> None:
    rounds = [{"success": True, "steps": 40}, {"success": False, "steps": 250}]
    names = bonus_names(rounds, {"intake.age": 30}, ["intake.age", "intake.other"])
    assert evaluate_bonus("0.333 * succeeded", names, 5.0) == 0.33
    assert evaluate_bonus("10 * rounds", names, 2.0) == 2.0  # the cap
    assert evaluate_bonus("-1", names, 2.0) == 0.0
    assert evaluate_bonus("sum([0.1 for r in round if r['steps'] < 100])", names, 2.0) == 0.1
    with pytest.raises(ValueError, match="unknown name 'sucess'"):
        evaluate_bonus("sucess", names, 1.0)
    with pytest.raises(ValueError, match="not a number"):
        evaluate_bonus("'a lot'", names, 1.0)
    with pytest.raises(ValueError):  # an answer not given on this participant's path
        evaluate_bonus('answers["intake.other"] * 2', names, 1.0)


def test_bonus_files_in_each_platform_format() -> None:
    rows = [
        {"participant": "A1", "session": "S1", "bonus": 0.5, "currency": "USD"},
        {"participant": "A2", "session": "S2", "bonus": 0.0, "currency": "USD"},
    ]
    assert bonus_file("prolific", rows, "r") == "A1,0.50\n"
    mturk = list(csv.reader(io.StringIO(bonus_file("mturk", rows, "for teamwork"))))
    assert mturk == [
        ["WorkerId", "AssignmentId", "BonusAmount", "Reason"],
        ["A1", "S1", "0.50", "for teamwork"],
    ]
    assert bonus_file("plain", rows, "r") == "participant,amount,currency\nA1,0.50,USD\n"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (("recruitment.platform=prolific",), "Prolific takes one completion code per study"),
        (("recruitment.platform=sona",), "SONA grants credit through the study's own link"),
        (("recruitment.platform=prolifc",), "unknown platform 'prolifc' (known: prolific"),
        ((*PROLIFIC, "privacy.url_fields=[PROLIFIC_PID]"), "PROLIFIC_PID is Prolific's id"),
        ((*PROLIFIC, "payment.bonus=0.2 *"), "does not parse"),
        ((*PROLIFIC, "payment.bonus=2 * sucess"), "unknown name 'sucess' (known: rounds"),
        ((*PROLIFIC, 'payment.bonus=answers["intake.gamng"]'), "no survey question 'intake.gamng'"),
        ((*PROLIFIC, "privacy.platform_ids=drop", "payment.bonus=1"), "platform_ids is drop"),
        ((*PROLIFIC, "pages.5.outcome=screened_out"), "need recruitment.screen_out_code"),
        (("recruitment.completion_url=https://x.org/?p={participant}",), "carries none"),
        (("recruitment.completion_url=javascript:alert(1)",), "is not an http(s) link"),
    ],
)
def test_lint_refuses_what_would_strand_or_underpay_participants(overrides, message) -> None:
    with pytest.raises(RecipeError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        compiled("paper_user_study_cpu", *overrides)
    assert "\n" not in str(info.value)


def test_a_sona_completion_link_carries_the_survey_code(tmp_path) -> None:
    credit = "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=7&credit_token=t&survey_code={participant}"
    overrides = ("recruitment.platform=sona", f"recruitment.completion_url={credit}")

    async def run():
        rt = runtime(tmp_path, "paper_user_study_cpu", *SHORT, *overrides)
        await rt.recover()
        return rt, await complete(rt, {"id": "98765"})

    rt, pid = run_coroutine(run())
    assert rt.view(pid)["redirect"].endswith("credit_token=t&survey_code=98765")
    assert json.dumps(rt.db.events("join")).count("98765") == 0  # hashed in the research files
