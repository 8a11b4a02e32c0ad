"""Shared documents: versions with their diffs, a stale save refused with the current text,
the agent's proposals (scripted and LLM, a failing one), a group editing together, document
rounds as conditions, a restart, the pretest and the export."""

from __future__ import annotations

import csv
import json

import pytest

from collabrl.study.live.document import StaleSave
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.load import load_study
from tests.study.room_helpers import LLM, failing, room_runtime, settle, with_llm, write_study

AGENT = {"name": "Ada", "lines": ["- a line from Ada"]}


def document(**fields) -> dict:
    return {"id": "doc", "kind": "document", "text": "Write a plan.", "initial": "Plan:", **fields}


async def at_doc(rt) -> str:
    await rt.recover()
    pid, _ = await rt.join()
    await rt.submit(pid, {"node": "consent", "agree": True})
    return pid


async def save(rt, pid, text, base) -> None:
    await rt.submit(pid, {"node": rt.node(pid), "action": "save", "text": text, "base": base})


def test_every_save_is_a_version_with_its_diff_and_a_stale_one_is_refused(tmp_path) -> None:
    path = write_study(tmp_path, [document()])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_doc(rt)
        await save(rt, pid, "Plan:\n- walk", 0)
        with pytest.raises(StaleSave) as stale:
            await save(rt, pid, "Plan:\n- my old draft", 0)
        with pytest.raises(FormError, match="unchanged"):
            await save(rt, pid, "Plan:\n- walk", 1)
        await save(rt, pid, "Plan:\n- walk\n- swim", 1)
        return rt, pid, stale.value

    rt, pid, stale = run_coroutine(scenario())
    assert stale.extra == {"current": {"version": 1, "text": "Plan:\n- walk"}}
    saves = [e["data"] for e in rt.db.events("document_save")]
    assert [(s["version"], s["base"], s["by"]) for s in saves] == [
        (1, 0, "participant"),
        (2, 1, "participant"),
    ]
    assert "+- swim" in saves[1]["diff"] and "-Plan:" in saves[0]["diff"]
    (conflict,) = rt.db.events("document_conflict")
    assert conflict["data"] == {"room": f"doc/{pid}", "base": 0, "current": 1}
    assert rt.view(pid)["document"]["text"] == "Plan:\n- walk\n- swim"


def test_two_people_edit_one_document_and_the_later_save_must_merge(tmp_path) -> None:
    match = {"id": "wait", "kind": "match", "size": 2}
    path = write_study(tmp_path, [match, document()], design={"participants": 16})

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        await rt.recover()
        pids = []
        for _ in range(2):
            pid, _ = await rt.join()
            await rt.submit(pid, {"node": "consent", "agree": True})
            pids.append(pid)
        a, b = pids
        await save(rt, a, "Plan: by a", 0)
        with pytest.raises(StaleSave):
            await save(rt, b, "Plan: by b", 0)
        await save(rt, b, "Plan: by a and b", 1)
        return rt, a, b

    rt, a, b = run_coroutine(scenario())
    assert rt.rooms.current(a) is rt.rooms.current(b)
    assert rt.view(a)["document"] == {
        "text": "Plan: by a and b",
        "version": 2,
        "by": "Participant 2",
        "proposal": None,
    }


def test_the_agent_proposes_and_an_accepted_proposal_is_its_version(tmp_path) -> None:
    path = write_study(tmp_path, [document(agent=AGENT)])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_doc(rt)
        await rt.submit(pid, {"node": "doc", "action": "propose"})
        await settle(rt)
        proposal = rt.view(pid)["document"]["proposal"]
        await rt.submit(pid, {"node": "doc", "action": "accept", "proposal": proposal["id"]})
        with pytest.raises(FormError, match="no more suggestions"):
            await rt.submit(pid, {"node": "doc", "action": "propose"})
        return rt, pid, proposal

    rt, pid, proposal = run_coroutine(scenario())
    assert proposal["text"] == "Plan:\n- a line from Ada" and proposal["agent"] == "Ada"
    view = rt.view(pid)["document"]
    assert (view["text"], view["version"], view["by"]) == ("Plan:\n- a line from Ada", 1, "Ada")
    assert rt.db.events("document_save")[0]["data"]["by"] == "agent"


def test_an_llm_agent_rewrites_the_document_and_a_failure_is_an_apology(tmp_path) -> None:
    agent = {"name": "Ada", "kind": "llm", "engine": LLM}
    path = write_study(tmp_path, [document(agent=agent)])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        engine = with_llm(rt, lambda conv: "Plan:\n- rewritten")
        pid = await at_doc(rt)
        await rt.submit(pid, {"node": "doc", "action": "propose"})
        await settle(rt)
        first = rt.view(pid)["document"]["proposal"]
        await rt.submit(pid, {"node": "doc", "action": "dismiss", "proposal": first["id"]})
        engine.reply = failing
        await rt.submit(pid, {"node": "doc", "action": "propose"})
        await settle(rt)
        return rt, pid, engine, first

    rt, pid, engine, first = run_coroutine(scenario())
    assert first["text"] == "Plan:\n- rewritten"
    assert (
        "Write a plan." in engine.calls[0][1]["content"]
        and "Plan:" in engine.calls[0][1]["content"]
    )
    failed = rt.view(pid)["document"]["proposal"]
    assert failed["text"] is None and failed["apology"] == "Sorry, I cannot answer right now."
    assert rt.db.events("agent_failure")[0]["data"]["agent"] == "Ada"
    assert rt.view(pid)["document"]["version"] == 0  # nothing was applied


def test_a_restart_rebuilds_the_document_and_its_open_proposal(tmp_path) -> None:
    path, db = write_study(tmp_path, [document(agent=AGENT)]), tmp_path / "db.sqlite"

    async def before():
        rt = room_runtime(path, db)
        pid = await at_doc(rt)
        await save(rt, pid, "Plan: saved", 0)
        await rt.submit(pid, {"node": "doc", "action": "propose"})
        await settle(rt)
        view = rt.view(pid)
        rt.shutdown()
        rt.db.close()
        return pid, view

    async def after(pid):
        rt = room_runtime(path, db)
        await rt.recover()
        view = rt.view(pid)
        await rt.submit(pid, {"node": "doc", "action": "accept", "proposal": 1})
        return rt, view

    pid, seen = run_coroutine(before())
    rt, again = run_coroutine(after(pid))
    assert again["document"] == seen["document"] and seen["document"]["version"] == 1
    assert rt.view(pid)["document"]["text"] == "Plan: saved\n- a line from Ada"


def test_a_chat_round_then_a_document_round_and_the_export(tmp_path) -> None:
    overrides = (
        "conditions.1.round=document",
        "state={saved: {type: number}}",
        "pages.2.set={saved: 'state.saved + result.room_versions'}",
    )

    async def scenario():
        rt = room_runtime("chat_rounds_study", tmp_path / "db.sqlite", *overrides)
        await rt.recover()
        pid, _ = await rt.join("human", {"PROLIFIC_PID": "abc", "STUDY_ID": "s", "SESSION_ID": "x"})
        await rt.submit(pid, {"node": "consent", "agree": True})
        await rt.submit(pid, {"node": "intake", "answers": {"cooks": "daily"}})
        kinds = []
        for k in (1, 2):
            view = rt.view(pid)
            kinds.append(view["kind_of_room"])
            if view["kind_of_room"] == "chat":
                await rt.submit(pid, {"node": view["node"], "action": "say", "text": "soup"})
                await settle(rt)
            else:
                await save(rt, pid, "Our cooking plan:\n- soup", 0)
            await rt.submit(pid, {"node": view["node"], "action": "end"})
            ratings = {"helpful": 5, "warm": 4, "trust": 3}
            await rt.submit(pid, {"node": f"rounds.rate{k}", "ratings": ratings})
        return rt, pid, kinds

    rt, pid, kinds = run_coroutine(scenario())
    assert kinds == ["chat", "document"] and rt.people[pid]["status"] == "completed"
    export_study(rt.loaded, rt.db, tmp_path / "export")
    with open(tmp_path / "export" / "documents.csv", encoding="utf-8") as f:
        (doc,) = list(csv.DictReader(f))
    assert doc["text"] == "Our cooking plan:\n- soup" and doc["condition"] == "terse"
    assert (doc["versions"], doc["position"], doc["closed"]) == ("1", "2", "ended")
    lines = (tmp_path / "export" / "document_history.jsonl").read_text().splitlines()
    history = [json.loads(line) for line in lines]
    assert [h["participant"] for h in history] == [pid] and "+- soup" in history[0]["diff"]
    with open(tmp_path / "export" / "responses.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # the document round's set: counted its saved version when its room closed
    assert [(r["round"], r["q_helpful"], r["turns"], r["state.saved"]) for r in rows] == [
        ("chat", "5", "1", "0"),
        ("document", "5", "1", "1"),
    ]
    manifest = json.loads((tmp_path / "export" / "manifest.json").read_text())
    assert [c["round"] for c in manifest["conditions"]] == ["chat", "document"]


def test_the_pretest_writes_and_the_export_holds_the_documents(tmp_path) -> None:
    compiled = compile_study(load_study("chat_document_study"))
    run_pretest(compiled, tmp_path / "pretest.sqlite", 3, progress=False)
    rt = room_runtime("chat_document_study", tmp_path / "pretest.sqlite")
    info = export_study(rt.loaded, rt.db, tmp_path / "export")
    assert info["counts"]["completed"] == 3
    with open(tmp_path / "export" / "documents.csv", encoding="utf-8") as f:
        docs = list(csv.DictReader(f))
    assert len(docs) == 3
    for doc in docs:  # the participant's line, then the agent's accepted proposal
        assert (doc["participant_saves"], doc["agent_saves"]) == ("1", "1")
        assert doc["text"].endswith("- Saturday evening: dinner somewhere with a view.")
    history = (tmp_path / "export" / "document_history.jsonl").read_text().splitlines()
    assert len(history) == 6
    assert set(info["files"]) >= {"chat_transcripts.csv", "documents.csv", "document_history.jsonl"}
