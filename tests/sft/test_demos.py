"""Demonstrations: agent-format responses, the policy's exact prompts, determinism, filtering."""

from __future__ import annotations

import json

import datasets
import pytest

from collabrl.agents.prompts import build_messages
from collabrl.agents.protocol import parse_response
from collabrl.config import load_recipe
from collabrl.config.sft import DemoSpec
from collabrl.envs.base import letter
from collabrl.errors import CollabrlError
from collabrl.sft.demos import DemoStats, read_demos, record_demos, write_demos
from collabrl.testing.fake_openai import FakeOpenAIServer


def _recipe(*overrides: str):
    return load_recipe(
        "cwah_gigpo_cpu",
        [
            "players=[{kind: expert}, {kind: expert}]",
            "game.max_decisions=50",
            "train.wandb=disabled",
            *overrides,
        ],
    )


def test_household_demos_are_valid_expert_decisions_with_the_policy_prompt() -> None:
    recipe = _recipe()
    stats = DemoStats()
    rows = list(record_demos(recipe, DemoSpec(episodes=3), stats, progress=False))
    assert stats.episodes == 3 and stats.kept == len(rows) > 10 and stats.invalid == 0
    assert {r["seat"] for r in rows} == {"Alice"}
    for row in rows:
        response = row["completion"][0]["content"]
        parsed = parse_response(response, row["actions"])
        assert parsed.valid and parsed.think and parsed.message
        assert row["game"] == "household" and row["source"] == "expert" and row["success"]
        assert row["profile"].startswith("cwah-") and row["task"] in row["profile"]
    # the first decision of each episode is the policy's prompt on a fresh game (same seed)
    for row in (r for r in rows if r["decision"] == 0):
        game = recipe.game.for_task(row["task"]).make_game()
        obs = game.reset(seed=row["seed"])["Alice"]
        assert row["prompt"] == build_messages(game, obs)
        assert row["actions"] == obs.actions and row["tick"] == obs.tick


def test_demos_are_deterministic_and_round_trip(tmp_path) -> None:
    recipe = _recipe()
    first = list(record_demos(recipe, DemoSpec(episodes=2), progress=False))
    again = list(record_demos(recipe, DemoSpec(episodes=2), progress=False))
    assert json.dumps(first) == json.dumps(again)
    other = list(record_demos(_recipe("seed=1"), DemoSpec(episodes=2), progress=False))
    assert json.dumps(other) != json.dumps(first)
    path = tmp_path / "demos.jsonl"
    dataset = datasets.load_from_disk(str(write_demos(first, path)))
    assert read_demos(path) == first
    assert len(dataset) == len(first) and dataset[0]["completion"] == first[0]["completion"]
    assert dataset[-1]["prompt"] == first[-1]["prompt"]


def test_successful_only_drops_failed_episodes() -> None:
    recipe = _recipe("game.max_decisions=3")  # too few decisions to finish any task
    stats = DemoStats()
    kept = list(record_demos(recipe, DemoSpec(episodes=2), stats, progress=False))
    assert kept == [] and stats.successful == 0 and stats.decisions > 0
    everything = list(record_demos(recipe, DemoSpec(episodes=2, successful_only=False)))
    assert len(everything) == stats.decisions and not any(r["success"] for r in everything)


def test_kitchen_demos_cover_layouts_with_expert_responses() -> None:
    recipe = load_recipe(
        "kitchen_experts", ["game.horizon=40", "partner.kind=persona", "rollout.tasks=train"]
    )
    rows = list(record_demos(recipe, DemoSpec(episodes=2, successful_only=False), progress=False))
    assert rows and {r["game"] for r in rows} == {"kitchen"}
    assert all(parse_response(r["completion"][0]["content"], r["actions"]).valid for r in rows)
    assert len({r["task"] for r in rows}) == 2


def test_letter_style_names_the_same_action_by_its_letter() -> None:
    recipe = _recipe()
    text = list(record_demos(recipe, DemoSpec(episodes=1), progress=False))
    letters = list(record_demos(recipe, DemoSpec(episodes=1, action_style="letter")))
    assert len(text) == len(letters)
    for a, b in zip(text, letters, strict=True):
        answer = parse_response(b["completion"][0]["content"], b["actions"])
        assert answer.action == parse_response(a["completion"][0]["content"], a["actions"]).action
        assert b["completion"][0]["content"].endswith(
            f"<action>{letter(b['actions'].index(answer.action))}</action>"
        )


@pytest.mark.parametrize("valid", [True, False])
def test_llm_teacher_over_http_is_recorded_and_bad_replies_are_dropped(monkeypatch, valid) -> None:
    calls = []

    def teacher(messages):
        calls.append(messages)
        if valid:
            return "<think>Look around first.</think><message></message><action>A</action>"
        return "I would rather not say."  # no tags: never a demonstration

    with FakeOpenAIServer(responder=teacher) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        recipe = _recipe(
            "players.0.kind=llm",
            "players.0.engine.backend=openai",
            "players.0.engine.model=teacher-model",
            "game.max_decisions=40",
        )
        stats = DemoStats()
        spec = DemoSpec(episodes=1, successful_only=False)
        rows = list(record_demos(recipe, spec, stats, progress=False))
    assert stats.decisions >= 2
    if valid:
        assert len(rows) == stats.decisions == len(calls) and stats.invalid == 0
        assert {r["source"] for r in rows} == {"llm"}
        assert all(r["completion"][0]["content"].endswith("<action>A</action>") for r in rows)
        assert [r["prompt"] for r in rows] == calls  # exactly what the teacher was shown
    else:
        assert rows == [] and stats.invalid == stats.decisions
        assert len(calls) == stats.decisions  # a single pass, as every LLM seat by default


def test_collabrl_demos_records_an_llm_teacher_through_an_openai_compatible_server(
    tmp_path, monkeypatch
) -> None:
    """The SFT recipes learn from the rule-based expert; ``collabrl demos`` takes an LLM teacher
    instead, through any engine: here the OpenAI-compatible one, on the fake server."""
    from click.testing import CliRunner

    from collabrl.cli import cli

    assert load_recipe("cwah_sft_cpu").players[0].kind == "expert"
    prompts = []

    def teacher(messages):
        prompts.append(messages)
        return "<think>Look around first.</think><message>Exploring.</message><action>A</action>"

    with FakeOpenAIServer(responder=teacher) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            cli,
            [
                "demos",
                "cwah_sft_cpu",
                f"output_dir={tmp_path}",
                "players.0.kind=llm",
                "players.0.engine={backend: openai, model: teacher-model}",
                "sft.demos.episodes=1",
                "sft.demos.successful_only=false",
                "game.max_decisions=4",
                "--quiet",
            ],
        )
    assert result.exit_code == 0, result.output
    rows = read_demos(tmp_path / "demos.jsonl")
    assert rows and len(rows) == len(prompts) and {r["source"] for r in rows} == {"llm"}
    assert [r["prompt"] for r in rows] == prompts  # exactly what the teacher was shown
    assert {r["seat"] for r in rows} == {"Alice"}


DEMO = {
    "prompt": [{"role": "system", "content": "rules"}, {"role": "user", "content": "obs"}],
    "completion": [{"role": "assistant", "content": "<action>A</action>"}],
    "task": "0_read_book",
}


@pytest.mark.parametrize(
    "line,expected",
    [
        (b"{not json", "bad JSON (Expecting property name"),
        (b'["prompt", "completion"]', "expected a JSON object, got array"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text (byte 0x89)"),
        (b'{"prompt": "caf\xe9"}', "not UTF-8 text (byte 0xe9)"),
        (json.dumps({"prompt": DEMO["prompt"]}).encode(), "missing field 'completion'"),
        (
            json.dumps({**DEMO, "completion": "<action>A</action>"}).encode(),
            "completion: Input should be a valid list",
        ),
        (
            json.dumps({**DEMO, "prompt": [{"role": "user", "content": 7}]}).encode(),
            "prompt.0.content: Input should be a valid string",
        ),
        (
            json.dumps({**DEMO, "completion": [{"role": "user", "content": "hi"}]}).encode(),
            "completion.0.role: Input should be 'assistant'",
        ),
        (json.dumps({**DEMO, "prompt": []}).encode(), "prompt: List should have at least 1 item"),
    ],
)
def test_a_malformed_demos_file_is_one_line_naming_file_and_line(
    tmp_path, line: bytes, expected: str
) -> None:
    path = tmp_path / "demos.jsonl"
    path.write_bytes(json.dumps(DEMO).encode() + b"\n" + line + b"\n")
    with pytest.raises(CollabrlError) as info:
        read_demos(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:2: {expected}")


def test_demos_keep_extra_keys_and_an_empty_file_is_an_error(tmp_path) -> None:
    path = tmp_path / "demos.jsonl"
    path.write_text(json.dumps(DEMO) + "\n\n")
    assert read_demos(path) == [DEMO]
    path.write_text("\n")
    with pytest.raises(CollabrlError, match=r"demos\.jsonl: no demonstrations in file$"):
        read_demos(path)


def test_sft_command_on_a_bad_demos_file_exits_2_with_one_line(tmp_path, capsys) -> None:
    from collabrl.cli import main

    bad = tmp_path / "demos.jsonl"
    bad.write_text(json.dumps({"prompt": "hello", "completion": "world"}) + "\n")
    args = ["sft", "cwah_sft_cpu", f"output_dir={tmp_path}", f"sft.demos.path={bad}"]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err == f"error: {bad}:1: prompt: Input should be a valid list (and 1 more problem)\n"
    assert not (tmp_path / "recipe.yaml").exists()  # failed before the run started


def test_demos_beside_a_self_play_partner_are_refused_before_any_file(tmp_path, capsys) -> None:
    from collabrl.cli import main

    out = tmp_path / "demos"
    with pytest.raises(SystemExit) as exit_info:
        main(["demos", "cwah_sft_cpu", f"output_dir={out}", "partner.kind=self"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: partner.kind=self: a self-play partner")
    assert not out.exists()


def test_the_teacher_recipe_records_demos_in_one_command(tmp_path, monkeypatch) -> None:
    """``collabrl demos cwah_sft_teacher``: the paper's teacher (DeepSeek-V3.1 by default) behind
    the OpenAI-compatible server the environment names; here the fake server."""
    from click.testing import CliRunner

    from collabrl.cli import cli

    teacher = load_recipe("cwah_sft_teacher").players[0]
    assert teacher.kind == "llm" and teacher.engine is not None
    assert (teacher.engine.backend, teacher.engine.model) == ("openai", "deepseek-ai/DeepSeek-V3.1")
    models = []

    def reply(messages):
        models.append(messages)
        return "<think>Look around first.</think><message>Exploring.</message><action>A</action>"

    with FakeOpenAIServer(responder=reply) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            cli,
            [
                "demos",
                "cwah_sft_teacher",
                f"output_dir={tmp_path}",
                "sft.demos.episodes=1",
                "sft.demos.successful_only=false",
                "game.max_decisions=4",
                "--quiet",
            ],
        )
    assert result.exit_code == 0, result.output
    rows = read_demos(tmp_path / "demos.jsonl")
    assert rows and len(rows) == len(models) and {r["source"] for r in rows} == {"llm"}
