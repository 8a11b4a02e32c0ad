"""``collabrl eval`` against a misbehaving OpenAI-compatible server: odd replies are recorded
failures (never a crash), judge failures show in every table, and a key the server quotes back
reaches no output."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.eval.cli import eval_command
from collabrl.testing.fake_openai import DROP, FakeOpenAIServer, Fault

SECRET = "sk-live-0123456789abcdefDO-NOT-LEAK"
POLICY_PROMPT = "Available actions:"  # in every first-try policy prompt (and window prompts)
WINDOW_PROMPT = "--- decision"  # in every judge window prompt: inject its faults first


def responder(messages: list[dict[str, str]]) -> str:
    """The judge finds one small violation; the policy talks (a one-tick action)."""
    if WINDOW_PROMPT in messages[-1]["content"]:
        return '{"violations": [{"rule": "terse", "deduction": 1, "evidence": "x"}]}'
    return "<think>go</think>\n<message>On my way.</message>\n<action>[send_message]</action>"


def eval_args(out: Path, retries: int = 0) -> list[str]:
    """One short household episode, LLM policy and LLM judge on the fake server."""
    options = f"{{max_retries: {retries}, backoff_base_s: 0.01}}"
    engine = f"{{backend: openai, model: fake, options: {options}}}"
    return [
        "games=[household]",
        "tasks=[0_read_book]",
        "max_profiles=1",
        "seats=[1]",
        "game_options.household.max_decisions=9",
        "policy.kind=llm",
        f"policy.engine={engine}",
        "judge.kind=llm",
        f"judge.engine={engine}",
        f"output_dir={out}",
        "--quiet",
    ]


def judge_errors(out: Path) -> list[str]:
    trajectories = [
        json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()
    ]
    return [
        j["error"]
        for t in trajectories
        for w in t["windows"]
        for j in w["judgements"].values()
        if j["error"]
    ]


def test_odd_server_replies_are_recorded_failures_not_a_crash(tmp_path, monkeypatch) -> None:
    odd = [
        Fault.wrong_types(),
        Fault.content(123),
        Fault.content(None),
        Fault.content(["a list"]),
        Fault.patch(choices=DROP),
        Fault.html(),
    ]
    with FakeOpenAIServer(responder=responder) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        server.inject(WINDOW_PROMPT, *odd)
        server.inject(POLICY_PROMPT, *odd, Fault.line_breaks())
        result = CliRunner().invoke(eval_command, eval_args(tmp_path), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    errors = judge_errors(tmp_path)
    assert len(errors) == len(odd) and all(
        e.startswith("engine: malformed response: ") for e in errors
    )
    assert any("usage.prompt_tokens: Input should be a valid integer" in e for e in errors)
    assert any("content: Input should be a valid string" in e for e in errors)
    results = json.loads((tmp_path / "results.json").read_text())
    assert sum(results["judge_failures"]["failed"].values()) == len(odd)
    (trajectory,) = [json.loads(line) for line in (tmp_path / "trajectories.jsonl").open()]
    responses = [t["response"] for t in trajectory["turns"] if t["seat"] == trajectory["seat_name"]]
    assert len(responses) == 9 and "\u2028" in "".join(responses)  # line breaks kept as text


def test_judge_failures_show_in_every_table_and_the_summary(tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer(responder=responder) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        server.inject(WINDOW_PROMPT, *[Fault.http(503)] * 5)
        result = CliRunner().invoke(eval_command, eval_args(tmp_path), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(judge_errors(tmp_path)) == 5  # of 3 windows x 3 dimensions
    head = next(line for line in result.output.splitlines() if "| game " in line)
    row = next(line for line in result.output.splitlines() if line.startswith("| household"))
    assert head.split("|")[-4].strip() == "judge failed" and row.split("|")[-4].strip() == "5/9"
    tables = (tmp_path / "tables.md").read_text()
    headers = [
        line
        for line in tables.splitlines()
        if line.startswith(("| Method", "| Task")) and "pass^" not in line
    ]
    assert len(headers) == 2 and all("Judge failed Agent 1" in h for h in headers)
    main_tables = tables.split("reliability and robustness")[0]
    rows = [line for line in main_tables.splitlines() if "| llm:" in line]
    assert len(rows) == 3 and all(row.split("|")[-3].strip() == "5/9" for row in rows)
    assert "Judge failed on 5 of 9 window judgements (56%)" in tables


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_a_key_the_server_quotes_back_reaches_no_output(tmp_path) -> None:
    out = tmp_path / "out"
    with FakeOpenAIServer(responder=responder) as server:
        server.inject(WINDOW_PROMPT, Fault.echo_headers(200), Fault.echo_headers(500))
        server.inject(POLICY_PROMPT, Fault.echo_headers(200), Fault.echo_headers(401))
        env = {"COLLABRL_OPENAI_BASE_URL": server.base_url, "COLLABRL_OPENAI_API_KEY": SECRET}
        done = subprocess.run(
            [sys.executable, "-m", "collabrl", "eval", *eval_args(out, retries=1)],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, **env},
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.auth_headers[0] == f"Bearer {SECRET}"  # the key went out and was quoted back
    assert "HTTP 500" in done.stderr and "Bearer [redacted]" in done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {"trajectories.jsonl", "results.json", "tables.md"} <= {p.name for p in files}
    assert any(p.parent.name == "trajectories_hf" for p in files)
    written = b"".join(p.read_bytes() for p in files)
    assert b"Bearer [redacted]" in written  # the quoted headers were kept, the key was not
    for leak in (SECRET, SECRET[:20], SECRET[-20:]):
        assert leak.encode() not in written
        assert leak not in done.stdout + done.stderr
