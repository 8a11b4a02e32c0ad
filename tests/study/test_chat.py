"""Chat rooms: studies without a game pass lint (and lint names what a page lacks), people
and agents in one room, scripted and LLM agents, turn, length and time limits, an agent that
fails, chat rounds as conditions, a restart, the pretest and the export."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import pytest

from collabrl.errors import RecipeError
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.load import load_study
from tests.study.room_helpers import (
    LLM,
    failing,
    room_runtime,
    say,
    settle,
    transcript,
    with_llm,
    write_study,
)

SURVEY = {
    "id": "intake",
    "kind": "survey",
    "questions": [{"id": "age", "text": "Age?", "kind": "number", "min": 18, "max": 99}],
}
AGENT = {"name": "Sam", "opening": "Hi, I am Sam.", "lines": ["First reply.", "Second reply."]}


def chat(**fields) -> dict:
    return {"id": "chat", "kind": "chat", "text": "Plan a trip.", "agents": [AGENT], **fields}


def lint(tmp_path, pages, **top) -> None:
    compile_study(load_study(str(write_study(tmp_path, pages, **top))))


def test_a_survey_only_study_needs_no_game_conditions_or_questionnaire(tmp_path) -> None:
    lint(tmp_path, [SURVEY])
    lint(tmp_path, [SURVEY, chat()])


@pytest.mark.parametrize(
    ("pages", "top", "says"),
    [
        (
            [{"id": "rounds", "kind": "conditions"}],
            {
                "conditions": [{"id": "a", "name": "A", "agent": {"kind": "expert"}}],
                "questionnaire": {"template": "collabbench"},
            },
            "page rounds: condition a plays a game round, but the study has no game",
        ),
        (
            [{"id": "rounds", "kind": "conditions"}],
            {},
            "page rounds: a conditions page needs conditions",
        ),
        (
            [{"id": "rounds", "kind": "conditions"}],
            {"conditions": [{"id": "a", "name": "A", "round": "chat", "chat_agent": AGENT}]},
            "page rounds: a conditions page needs questionnaire",
        ),
        (
            [{"id": "wait", "kind": "match"}, chat()],
            {},
            "page wait: a match page in a study without a game needs size",
        ),
        ([chat(agents=[])], {}, "page chat: a chat with one participant and no agents has nobody"),
        (
            [chat(agents=[]), {"id": "wait", "kind": "match", "size": 2}],
            {},
            "groups of 2, but participants can reach chat without a match page",
        ),
    ],
)
def test_lint_says_in_one_line_what_a_page_lacks(tmp_path, pages, top, says) -> None:
    with pytest.raises(RecipeError) as caught:
        lint(tmp_path, pages, **top)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_chat_round_without_its_agent_is_refused_at_load(tmp_path) -> None:
    condition = {"id": "a", "name": "A", "round": "chat"}
    with pytest.raises(RecipeError, match="condition a: a chat round needs chat_agent"):
        lint(tmp_path, [{"id": "rounds", "kind": "conditions"}], conditions=[condition])


async def at_chat(rt, limits=None) -> str:
    await rt.recover()
    pid, _ = await rt.join()
    await rt.submit(pid, {"node": "consent", "agree": True})
    assert rt.node(pid) == "chat"
    return pid


def test_a_scripted_agent_answers_within_the_limits_and_the_end_button_moves_on(tmp_path) -> None:
    path = write_study(tmp_path, [chat(limits={"max_turns": 2, "max_chars": 20}), SURVEY])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_chat(rt)
        assert transcript(rt, pid) == [("Sam", "Hi, I am Sam.")]
        await say(rt, pid, "  hello  ")
        with pytest.raises(FormError, match="at most 20"):
            await say(rt, pid, "x" * 21)
        with pytest.raises(FormError, match="empty"):
            await say(rt, pid, "   ")
        await say(rt, pid, "again")
        assert rt.view(pid)["turns_left"] == 0
        with pytest.raises(FormError, match="the 2 messages this chat allows"):
            await say(rt, pid, "third")
        seen = transcript(rt, pid)
        await rt.submit(pid, {"node": "chat", "action": "end"})
        return rt, pid, seen

    rt, pid, seen = run_coroutine(scenario())
    assert seen == [
        ("Sam", "Hi, I am Sam."),
        ("You", "hello"),
        ("Sam", "First reply."),
        ("You", "again"),
        ("Sam", "Second reply."),
    ]
    assert rt.node(pid) == "intake"
    assert [e["data"]["reason"] for e in rt.db.events("room_close")] == ["ended"]


def test_an_llm_agent_gets_the_transcript_and_a_failure_is_an_apology(tmp_path) -> None:
    agent = {"name": "Max", "kind": "llm", "engine": LLM, "prompt": "You help with trips."}
    path = write_study(tmp_path, [chat(agents=[agent])])

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        engine = with_llm(rt, lambda conv: f"You said: {conv[-1]['content']}")
        pid = await at_chat(rt)
        await say(rt, pid, "Rome?")
        engine.reply = failing
        await say(rt, pid, "Hello?")
        return rt, pid, engine

    rt, pid, engine = run_coroutine(scenario())
    assert transcript(rt, pid) == [
        ("You", "Rome?"),
        ("Max", "You said: Participant 1: Rome?"),
        ("You", "Hello?"),
        ("Max", "Sorry, I cannot answer right now."),
    ]
    system = engine.calls[0][0]
    assert system["role"] == "system" and "You help with trips." in system["content"]
    assert "Plan a trip." in system["content"]
    assert [m["role"] for m in engine.calls[1]] == ["system", "user", "assistant", "user"]
    (failure,) = rt.db.events("agent_failure")
    assert failure["data"]["agent"] == "Max" and "scripted failure" in failure["data"]["error"]


def test_an_agent_that_times_out_is_an_apology_too(tmp_path) -> None:
    import time

    agent = {"name": "Max", "kind": "llm", "engine": LLM, "timeout_s": 0.05}
    path = write_study(tmp_path, [chat(agents=[agent])])

    def slow(conversation):
        time.sleep(0.3)
        return "too late"

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        with_llm(rt, slow)
        pid = await at_chat(rt)
        await say(rt, pid, "hi")
        return rt, pid

    rt, pid = run_coroutine(scenario())
    assert transcript(rt, pid)[-1] == ("Max", "Sorry, I cannot answer right now.")
    assert "no reply within 0.05 s" in rt.db.events("agent_failure")[0]["data"]["error"]


def group_study(tmp_path, **limits):
    match = {"id": "wait", "kind": "match", "size": 2, "timeout_s": 60}
    pages = [match, chat(agents=[], limits=limits), SURVEY]
    return write_study(tmp_path, pages, design={"participants": 16})


async def two_in_a_room(rt) -> tuple[str, str]:
    await rt.recover()
    pids = []
    for _ in range(2):
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "consent", "agree": True})
        pids.append(pid)
    assert [rt.node(p) for p in pids] == ["chat", "chat"]
    return pids[0], pids[1]


def test_a_matched_group_shares_one_room(tmp_path) -> None:
    async def scenario():
        rt = room_runtime(group_study(tmp_path), tmp_path / "db.sqlite")
        a, b = await two_in_a_room(rt)
        await say(rt, a, "hi from a")
        await say(rt, b, "hi from b")
        seen = transcript(rt, a), transcript(rt, b)
        await rt.submit(a, {"node": "chat", "action": "end"})
        return rt, a, b, seen

    rt, a, b, (seen_a, seen_b) = run_coroutine(scenario())
    assert seen_a == [("You", "hi from a"), ("Participant 2", "hi from b")]
    assert seen_b == [("Participant 1", "hi from a"), ("You", "hi from b")]
    assert rt.rooms.current(a) is None and rt.rooms.current(b).closed is None  # a went on
    assert rt.node(a) == "intake" and rt.node(b) == "chat"


def test_the_time_limit_sends_everyone_in_the_room_on(tmp_path) -> None:
    async def scenario():
        rt = room_runtime(group_study(tmp_path, time_s=0.05), tmp_path / "db.sqlite")
        a, b = await two_in_a_room(rt)
        for _ in range(200):
            if rt.node(a) == rt.node(b) == "intake":
                break
            await asyncio.sleep(0.01)
        return rt, a, b

    rt, a, b = run_coroutine(scenario())
    assert rt.node(a) == rt.node(b) == "intake"
    assert [e["data"]["reason"] for e in rt.db.events("room_close")] == ["time"]


def test_a_restart_rebuilds_the_room_from_the_event_log(tmp_path) -> None:
    path, db = write_study(tmp_path, [chat(), SURVEY]), tmp_path / "db.sqlite"

    async def before():
        rt = room_runtime(path, db)
        pid = await at_chat(rt)
        await say(rt, pid, "before the restart")
        seen = transcript(rt, pid)
        rt.shutdown()
        rt.db.close()
        return pid, seen

    async def after(pid):
        rt = room_runtime(path, db)
        await rt.recover()
        seen = transcript(rt, pid)
        await say(rt, pid, "after it")
        return rt, seen

    pid, seen = run_coroutine(before())
    rt, again = run_coroutine(after(pid))
    assert again == seen and len(seen) == 3
    assert transcript(rt, pid)[-2:] == [("You", "after it"), ("Sam", "Second reply.")]


def test_chat_rounds_compare_agents_within_subjects(tmp_path) -> None:
    async def scenario():
        rt = room_runtime("chat_rounds_study", tmp_path / "db.sqlite")
        await rt.recover()
        pid, _ = await rt.join("human", {"PROLIFIC_PID": "abc", "STUDY_ID": "s", "SESSION_ID": "x"})
        await rt.submit(pid, {"node": "consent", "agree": True})
        await rt.submit(pid, {"node": "intake", "answers": {"cooks": "weekly"}})
        seen = []
        for k in (1, 2):
            assert rt.node(pid) == f"rounds.play{k}"
            await say(rt, pid, f"pasta {k}")
            seen.append(rt.view(pid))
            await rt.submit(pid, {"node": f"rounds.play{k}", "action": "end"})
            ratings = {"helpful": 4, "warm": 3, "trust": 2}
            await rt.submit(pid, {"node": f"rounds.rate{k}", "ratings": ratings, "free_text": ""})
        return rt, pid, seen

    rt, pid, seen = run_coroutine(scenario())
    assert [v["messages"][0]["who"] for v in seen] == ["Assistant A", "Assistant B"]
    assert seen[0]["disclosure"] == "Assistant A is an AI agent."
    assert rt.people[pid]["status"] == "completed"
    assert rt.payments[pid]["bonus"] == round(0.25 * 2 + 0.05 * 2, 2)


def test_the_pretest_chats_and_the_export_holds_the_transcripts(tmp_path) -> None:
    compiled = compile_study(load_study("chat_rounds_study"))
    run_pretest(compiled, tmp_path / "pretest.sqlite", 4, progress=False)
    rt = room_runtime("chat_rounds_study", tmp_path / "pretest.sqlite")
    info = export_study(rt.loaded, rt.db, tmp_path / "export")
    assert info["counts"]["completed"] == 4 and info["counts"]["rows"] == 8
    with open(tmp_path / "export" / "chat_transcripts.csv", encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    rooms = {line["room"] for line in lines}
    assert len(rooms) == 8 and {line["speaker"] for line in lines} == {"agent", "participant"}
    assert sum(line["speaker"] == "participant" for line in lines) == 16  # two each round
    with open(tmp_path / "export" / "responses.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["condition"] for r in rows} == {"warm", "terse"} and all(
        r["turns"] == "2" for r in rows
    )
    assert (tmp_path / "export" / "bonuses.csv").read_text().count(
        ",0.70\n"
    ) == 4  # 0.25 * 2 + 0.05 * 4


def test_a_reply_cut_off_by_a_restart_is_asked_again(tmp_path) -> None:
    import time

    agent = {"name": "Max", "kind": "llm", "engine": LLM}
    path, db = write_study(tmp_path, [chat(agents=[agent])]), tmp_path / "db.sqlite"

    def slow(conversation):
        time.sleep(0.2)
        return "never heard"

    async def before():
        rt = room_runtime(path, db)
        with_llm(rt, slow)
        pid = await at_chat(rt)
        await rt.submit(pid, {"node": "chat", "action": "say", "text": "anyone?"})
        await asyncio.sleep(0.05)  # the engine is answering
        rt.shutdown()  # the reply is in flight
        rt.db.close()
        return pid

    async def after(pid):
        rt = room_runtime(path, db)
        with_llm(rt, lambda conv: "here I am")
        await rt.recover()
        await settle(rt)
        return rt

    pid = run_coroutine(before())
    rt = run_coroutine(after(pid))
    assert transcript(rt, pid) == [("You", "anyone?"), ("Max", "here I am")]


def test_a_chat_round_survives_a_restart_and_the_admin_page_shows_the_study(tmp_path) -> None:
    from collabrl.study.server.admin import admin_state

    db = tmp_path / "db.sqlite"

    async def before():
        rt = room_runtime("chat_rounds_study", db)
        await rt.recover()
        pid, _ = await rt.join("human", {"PROLIFIC_PID": "abc"})
        await rt.submit(pid, {"node": "consent", "agree": True})
        await rt.submit(pid, {"node": "intake", "answers": {"cooks": "daily"}})
        await say(rt, pid, "before")
        seen = transcript(rt, pid)
        rt.shutdown()
        rt.db.close()
        return pid, seen

    async def after(pid):
        rt = room_runtime("chat_rounds_study", db)
        await rt.recover()
        seen = transcript(rt, pid)
        await rt.submit(pid, {"node": "rounds.play1", "action": "end"})
        return rt, seen

    pid, seen = run_coroutine(before())
    rt, again = run_coroutine(after(pid))
    assert again == seen and rt.node(pid) == "rounds.rate1"
    counts = admin_state(rt)["counts"]
    assert (counts["joined"], counts["active"]) == (1, 1)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("chat_document_study", "no conditions, so no report"),
        ("chat_rounds_study", "| terse       | 2   | 2.00"),
    ],
)
def test_the_shipped_examples_pass_lint_and_pretest(name, says, tmp_path, capsys) -> None:
    from collabrl.cli import main

    for args in (["lint", name], ["pretest", name, "--out", str(tmp_path), "--participants", "2"]):
        try:
            main(["study", *args])
        except SystemExit as exc:
            assert exc.code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert says in out and "2 simulated participants" in out
    assert (tmp_path / "export" / "chat_transcripts.csv").is_file()


def test_an_llm_agent_answers_through_a_real_engine_of_a_tiny_model(tmp_path) -> None:
    """No scripted stand-in: a transformers engine over a tiny random model, as a lab's own
    checkpoint would be loaded (its words are noise; a reply or an apology, never a crash)."""
    from collabrl.models.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "tiny")
    engine = {"backend": "transformers", "model": str(model), "options": {"device": "cpu"}}
    agent = {"name": "Tiny", "kind": "llm", "engine": engine, "sampling": {"max_new_tokens": 6}}
    path = write_study(tmp_path, [chat(agents=[agent])])
    with pytest.raises(RecipeError, match=r"pages.1.agents.0 \(Tiny\): checkpoint 'nowhere'"):
        compile_study(load_study(str(path), ["pages.1.agents.0.engine.model=nowhere"]))

    async def scenario():
        rt = room_runtime(path, tmp_path / "db.sqlite")
        pid = await at_chat(rt)
        await say(rt, pid, "hello")
        return rt, pid

    rt, pid = run_coroutine(scenario())
    said = transcript(rt, pid)
    assert said[0] == ("You", "hello") and said[1][0] == "Tiny" and len(said) == 2
    failures = rt.db.events("agent_failure")
    assert (said[1][1] == "Sorry, I cannot answer right now.") == bool(failures)


def test_a_chat_agents_prompt_is_checked_like_every_text_with_placeholders(capsys) -> None:
    from collabrl.cli import main

    with pytest.raises(SystemExit):
        main(
            ["study", "lint", "chat_rounds_study", "conditions.0.chat_agent.prompt=Hi {state.mood}"]
        )
    err = capsys.readouterr().err.strip()
    assert err == (
        "error: conditions.0.chat_agent.prompt: {state.mood}: unknown state variable 'mood' "
        "(known: none declared under state:)"
    )


def chat_rounds_with(tmp_path, **changes) -> str:
    """The shipped chat-rounds study with ``changes`` (top-level keys; ``set``: the conditions
    page's), written to a file."""
    import yaml

    shipped = Path(__file__).parents[2] / "collabrl" / "studies" / "chat_rounds_study.yaml"
    study = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    rounds = next(p for p in study["pages"] if p["kind"] == "conditions")
    rounds["set"] = changes.pop("set", {})
    study.update(changes, output_dir=str(tmp_path / "runs"))
    path = tmp_path / "chat_rounds.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    return str(path)


def test_chat_rounds_set_state_and_export_factor_levels_and_state_per_round(tmp_path) -> None:
    """A chat-rounds study whose agents are the levels of a within-subject factor and whose
    conditions page sets state from each round's result: the state changes when each room
    closes, and every chat row carries its factor level and the state after its round."""
    base = load_study("chat_rounds_study").study
    levels = [
        {
            "id": c.id,
            "name": c.name,
            "round": "chat",
            "chat_agent": c.chat_agent.model_dump(exclude_unset=True),
        }
        for c in base.conditions
        if c.chat_agent is not None
    ]
    path = chat_rounds_with(
        tmp_path,
        design={"participants": 4, "factors": [{"name": "tone", "within": True, "levels": levels}]},
        conditions=None,
        state={"said": {"type": "number"}, "heard": {"type": "number"}, "kinds": {"type": "text"}},
        set={
            "said": "state.said + result.turns",
            "heard": "state.heard + result.room_messages - result.messages",
            "kinds": "state.kinds + result.round + ('' if result.success is None else '!')",
        },
    )
    compiled = compile_study(load_study(path))
    run_pretest(compiled, tmp_path / "pretest.sqlite", 4, progress=False)
    rt = room_runtime(path, tmp_path / "pretest.sqlite")
    assert len(rt.db.events("state")) == 8  # 4 people x 2 rounds
    assert not rt.db.events("logic_error")
    export_study(rt.loaded, rt.db, tmp_path / "export")
    with open(tmp_path / "export" / "responses.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 and all(r["factor.tone"] == r["condition"] for r in rows)
    # each round: two messages said, the agent's opening and two replies heard
    assert sorted(
        {(r["position"], r["state.said"], r["state.heard"], r["state.kinds"]) for r in rows}
    ) == [
        ("1", "2", "3", "chat"),
        ("2", "4", "6", "chatchat"),
    ]
    people = list(csv.DictReader((tmp_path / "export" / "participants.csv").open()))
    assert {p["state.said"] for p in people} == {"4"}
    rt.db.close()


def test_lint_simulates_a_chat_rounds_result_and_knows_its_names(tmp_path, capsys) -> None:
    from collabrl.cli import main

    def lint_says(**changes) -> str:
        with pytest.raises(SystemExit):
            main(["study", "lint", chat_rounds_with(tmp_path, **changes)])
        return capsys.readouterr().err

    counted = {"state": {"n": {"type": "number"}}}
    assert "set.n fails after round 1" in lint_says(**counted, set={"n": "state.n + result.steps"})
    assert "result has no 'chars'" in lint_says(**counted, set={"n": "result.chars"})
    main(
        ["study", "lint", chat_rounds_with(tmp_path, **counted, set={"n": "result.room_versions"})]
    )
