"""Study exports are safe to open in a spreadsheet: what a participant typed (a link field, free
text) that starts like a formula is neutralised in the CSVs and kept raw in the JSONL."""

from __future__ import annotations

import csv
import json

from collabrl.study.live.signals import run_coroutine
from collabrl.study.results.export import export_study
from tests.study.helpers import SHORT, runtime

LINK = '=HYPERLINK("http://x","y")'
FREE_TEXT = "@SUM(A1)"
STEPS = (
    {"node": "consent", "agree": True},
    {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 3}},
    {"node": "instructions"},
)
ITEMS = ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")


def read_csv(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_formula_cells_are_neutralised_in_the_csvs_and_raw_in_the_jsonl(tmp_path) -> None:
    async def one_rated_round():
        rt = runtime(tmp_path, "paper_user_study_cpu", *SHORT, "privacy.url_fields=[PROLIFIC_PID]")
        await rt.recover()
        pid, _ = await rt.join(fields={"PROLIFIC_PID": LINK})
        for step in STEPS:
            await rt.submit(pid, step)
        session = rt.group_of(pid).session
        while not session.done:
            await rt.decide(pid, session.seats["Alice"].obs.actions[0], "")
        ratings = dict.fromkeys(ITEMS, 3)
        await rt.submit(pid, {"node": "rounds.rate1", "ratings": ratings, "free_text": FREE_TEXT})
        rt.shutdown()
        return rt

    rt = run_coroutine(one_rated_round())
    out = tmp_path / "export"
    export_study(rt.loaded, rt.db, out)
    (row, *_) = read_csv(out / "responses.csv")
    assert row["free_text"] == "'" + FREE_TEXT and row["field.PROLIFIC_PID"] == "'" + LINK
    assert row["q_help_plan"] == "3" and int(row["steps"]) > 0  # numbers stay numbers
    (person,) = read_csv(out / "participants.csv")
    assert person["field.PROLIFIC_PID"] == "'" + LINK
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    (rated,) = [e for e in events if e["kind"] == "questionnaire"]
    (joined,) = [e for e in events if e["kind"] == "join"]
    assert (
        rated["data"]["free_text"] == FREE_TEXT and joined["data"]["fields"]["PROLIFIC_PID"] == LINK
    )
