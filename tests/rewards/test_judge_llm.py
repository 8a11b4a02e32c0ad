"""LLM judges: one batched call, prompts stamped, failures recorded (never 0), fake-server faults."""

import json

from collabrl.engines import make_engine
from collabrl.rewards.judges import DIMENSIONS, LLMJudge, StepView
from collabrl.rewards.terms import interactivity_reward
from collabrl.testing.fake_openai import FakeOpenAIServer, Fault
from collabrl.testing.scripted import ScriptedEngine


def view(obs: str = "obs", valid: bool = True, message: str = "Found the apple (3).") -> StepView:
    return StepView(
        game="household",
        seat="Alice",
        tick=1,
        observation=obs,
        think="plan",
        message=message,
        action="[send_message]" if valid else None,
        valid=valid,
        sent_message=valid,
        partner_profile="Anxious, asks many questions.",
        heard=(("Bob", "where is it?"),),
    )


def reply_for(conversation) -> str | None:
    user = conversation[-1]["content"]
    if "FAIL" in user:
        return None
    if "GARBAGE" in user:
        return "I would rate this highly."
    if "OUT" in user:
        return '{"thought": "ten-point scale", "interactivity": 8}'
    if "decision 1" in user:  # a window prompt
        return '```json\n{"violations": [{"rule": "late", "deduction": 2, "evidence": "x"}]}\n```'
    return "{'thought': 'answers the question', 'interactivity': '0.8'} trailing words"


def test_steps_batched_parsed_and_failures_recorded() -> None:
    engine = ScriptedEngine(reply_for)
    judge = LLMJudge(engine, name="scripted")
    steps = [view(), view("FAIL"), view("GARBAGE"), view("OUT"), view(valid=False)]
    out = judge.judge_steps(steps)
    assert len(engine.params) == 1 and len(engine.calls) == 4  # one call, invalid step not sent
    assert engine.params[0].temperature == 0 and engine.params[0].stop == ()
    system = engine.calls[0][0]["content"]
    assert "Anxious, asks many questions." in system and "household game" in system
    assert "Bob: where is it?" in engine.calls[0][1]["content"]
    assert [j.level for j in out] == [0.8, None, None, None, None]
    assert out[0].rationale == "answers the question" and not out[0].failed
    assert out[1].error.startswith("engine:") and out[2].error.startswith("parse: no JSON")
    assert "outside 0.1..1.0" in out[3].error
    assert out[4].skipped and not out[4].failed
    assert all(
        j.judge == "llm:scripted" and j.prompt_version.startswith("interactivity-v2@") for j in out
    )
    # a failed judgement stays missing in the reward; an invalid step is 0
    assert interactivity_reward(out[1].level, True) is None
    assert interactivity_reward(out[4].level, False) == 0.0
    assert interactivity_reward(out[0].level, True) == 0.25 * 0.8


def test_windows_one_call_per_batch_all_dimensions() -> None:
    engine = ScriptedEngine(reply_for)
    out = LLMJudge(engine).judge_windows([[view(), view(), view()], [view("FAIL")] * 3])
    assert len(engine.params) == 1 and len(engine.calls) == 2 * len(DIMENSIONS)
    first = out[0]
    assert set(first) == set(DIMENSIONS) and all(j.deduction == 2.0 for j in first.values())
    assert first["empathy"].prompt_version.count("@") == 2  # window template + criteria file
    assert (
        "Criteria for Empathy"
        in next(c for c in engine.calls if "Empathy" in c[0]["content"])[0]["content"]
    )
    assert all(j.failed and j.deduction is None for j in out[1].values())


def test_fake_openai_server_with_injected_faults(monkeypatch, tmp_path) -> None:
    def responder(messages):
        return json.dumps({"thought": "fine", "interactivity": 0.6})

    with FakeOpenAIServer(responder=responder) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        server.inject("obs-503", Fault.http(503), Fault.http(503))
        server.inject("obs-bad", Fault.malformed())
        engine = make_engine(
            {
                "backend": "openai",
                "model": "judge",
                "max_retries": 1,
                "backoff_base_s": 0.01,
                "cache_dir": str(tmp_path),
            }
        )
        judge = LLMJudge(engine, name="judge")
        steps = [view("obs-ok"), view("obs-503"), view("obs-bad"), view("obs-ok2")]
        out = judge.judge_steps(steps)
        assert [j.level for j in out] == [0.6, None, 0.6, 0.6]  # malformed once, then retried
        assert "503" in out[1].error
        before = server.requests
        again = judge.judge_steps([view("obs-ok")])  # cached: no new request
        assert again[0].level == 0.6 and server.requests == before
        engine.close()
