"""Recruiting through Prolific's API against a local fake of it (issue 49, item 5): the commands
create, publish, review and pay; dry runs send nothing; sending without a token is refused; the
token is never printed or logged; every call is in the event log."""

from __future__ import annotations

import json
import logging

import pytest

from collabrl.cli import main
from collabrl.study.live import prolific as prolific_module
from collabrl.study.live.prolific import ProlificClient, ProlificError
from collabrl.study.pretest.run import run_pretest
from collabrl.study.store.db import open_database
from tests.study.fake_prolific import TOKEN, FakeProlific
from tests.study.helpers import compiled

STUDY = "chat_rounds_study"
REASON = "The attention check on the intake page was failed twice, so the answers cannot be " * 2


@pytest.fixture
def fake(monkeypatch) -> FakeProlific:
    """The fake API, wired into every client the commands make; no pauses between retries."""
    api = FakeProlific()
    made = ProlificClient.from_environment.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        ProlificClient,
        "from_environment",
        classmethod(lambda cls, send, transport=None: made(cls, send, api.transport)),
    )
    monkeypatch.setattr(prolific_module, "BACKOFF_S", 0.0)
    return api


def run(capsys, db, *args: str) -> str:
    main(["study", "prolific", *args[:1], STUDY, f"output_dir={db.parent}", "--db", str(db),
          *args[1:]])  # fmt: skip
    return capsys.readouterr().out


def test_the_fake_prolific_study_is_created_published_reviewed_and_paid(
    tmp_path, capsys, fake, monkeypatch, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "study.sqlite"
    study = compiled(STUDY, f"output_dir={tmp_path}")
    run_pretest(study, db, 2, progress=False)  # two finished participants with bonuses
    create = ("create", "--public-url", "https://lab.org/s1", "--places", "2", "--minutes", "10",
              "--reward-cents", "150")  # fmt: skip
    out = run(capsys, db, *create)
    assert out.startswith("dry run: POST https://api.prolific.com/api/v1/studies/")
    assert fake.requests == []  # a dry run sends nothing
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    out = run(capsys, db, *create, "--send")
    assert "Prolific study id: study1" in out
    made = fake.studies["study1"]
    assert made["external_study_url"].startswith("https://lab.org/s1/join?key=")
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}" in made["external_study_url"]
    assert made["completion_codes"][0]["code"] == "CHAT2026" and made["reward"] == 150
    fake.unavailable = 2  # a busy server: two 503s, then the third try goes through
    assert "status: ACTIVE" in run(capsys, db, "publish", "--study-id", "study1", "--send")
    assert fake.studies["study1"]["status"] == "ACTIVE"
    good = fake.participant_submits("study1", "p-good")
    bad = fake.participant_submits("study1", "p-bad")
    listed = run(capsys, db, "review", "--study-id", "study1", "--send")
    assert f"{good} p-good AWAITING REVIEW" in listed
    run(capsys, db, "review", "--study-id", "study1", "--approve", good, "--reject", bad,
        "--message", REASON, "--send")  # fmt: skip
    assert [s["status"] for s in fake.submissions.values()] == ["APPROVED", "REJECTED"]
    out = run(capsys, db, "pay", "--study-id", "study1", "--send")
    assert "2 bonuses paid" in out
    (bulk,) = fake.bulk.values()
    assert bulk["paid"] and len(bulk["amounts"]) == 2 and all(bulk["amounts"].values())
    with pytest.raises(SystemExit):  # paying twice would pay twice: refused
        run(capsys, db, "pay", "--study-id", "study1", "--send")
    assert "were paid already" in capsys.readouterr().err
    database = open_database(study.loaded, db, writing=False)
    audit = [e["data"] for e in database.events("prolific")]
    database.close()
    assert [(a["action"], a["sent"], a["ok"]) for a in audit] == [
        ("create", False, True), ("create", True, True), ("publish", True, True),
        ("review", True, True), ("review", True, True), ("pay", True, True),
        ("pay", True, False),
    ]  # fmt: skip
    assert TOKEN not in json.dumps(audit) + caplog.text + out


def test_sending_without_a_token_is_refused_before_any_request(tmp_path, capsys, fake,
                                                              monkeypatch) -> None:  # fmt: skip
    monkeypatch.delenv("PROLIFIC_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exit_:
        run(capsys, tmp_path / "study.sqlite", "publish", "--study-id", "study1", "--send")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "PROLIFIC_TOKEN is not set" in err and err.count("\n") == 1
    assert fake.requests == []


def test_a_wrong_token_and_a_persistent_outage_are_one_line_errors(fake) -> None:
    client = ProlificClient("not-the-token", send=True, transport=fake.transport)
    with pytest.raises(ProlificError, match="answered 401: Invalid token"):
        client.publish("study1")
    fake.unavailable = 10
    client = ProlificClient(TOKEN, send=True, transport=fake.transport, sleep=lambda s: None)
    with pytest.raises(ProlificError, match="answered 503"):
        client.publish("study1")
    assert fake.unavailable == 7  # three tries, no more
    with pytest.raises(ProlificError, match="at least 100 characters"):
        client.reject("sub1", "bad", "FAILED_CHECK")


def test_every_page_of_submissions_is_read() -> None:
    """Prolific lists submissions 20 a page: a study of 45 participants has three pages."""
    fake = FakeProlific()
    made = [fake.participant_submits("study1", f"p{k}") for k in range(45)]
    fake.participant_submits("study2", "elsewhere")
    client = ProlificClient(TOKEN, send=True, transport=fake.transport)
    assert [s["id"] for s in client.submissions("study1")] == made
    assert [c.path for c in client.calls] == [
        f"submissions/?study=study1&page={n}" for n in (1, 2, 3, 4)
    ]
