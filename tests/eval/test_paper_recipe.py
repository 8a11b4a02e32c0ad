"""The paper's protocol with real models (``collabbench``: pinned model versions, a server named by
environment variables) and its offline proxy (``collabbench_proxy``, labelled in every table)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from collabrl.config import load_recipe, shipped_recipes
from collabrl.eval.cli import DEFAULT_RECIPE, build_spec, eval_command
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.servers import NoServerError
from collabrl.rewards.judges import DIMENSIONS
from collabrl.testing.fake_openai import FakeOpenAIServer

PAPER_MODEL = "deepseek-ai/DeepSeek-V3.1"  # the version the paper reports (section 5.1, D.1)
ALIAS = "deepseek-chat"  # DeepSeek's moving API alias: an option, never a default


def openai_models(name: str) -> list[str]:
    """Every OpenAI-compatible model a shipped recipe names (partner, judge, eval section)."""
    recipe = load_recipe(name)
    specs = [recipe.partner.engine, recipe.reward.judge.engine]
    evaluation = recipe.evaluation()
    specs += [evaluation.partner.engine, evaluation.judge.engine]
    return [s.model for s in specs if s is not None and s.backend == "openai"]


def test_shipped_recipes_pin_the_papers_model_version(monkeypatch) -> None:
    for var in ("COLLABRL_PARTNER_MODEL", "COLLABRL_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    named = {name: openai_models(name) for name in shipped_recipes()}
    assert named["cwah_gigpo"] == [PAPER_MODEL] * 4  # training partner, judge; eval's alike
    assert all(m == PAPER_MODEL for models in named.values() for m in models), named
    assert not any(ALIAS in m for models in named.values() for m in models)


@pytest.mark.parametrize("var", ["COLLABRL_PARTNER_MODEL", "COLLABRL_JUDGE_MODEL"])
def test_the_alias_stays_an_option(monkeypatch, var: str) -> None:
    monkeypatch.setenv(var, ALIAS)
    assert ALIAS in openai_models("cwah_gigpo")


# --------------------------------------------------------------------------- the two recipes

SERVER_VARIABLES = (
    "COLLABRL_OPENAI_BASE_URL",
    "OPENAI_BASE_URL",
    "COLLABRL_OPENAI_API_KEY",
    "OPENAI_API_KEY",
    "COLLABRL_PARTNER_MODEL",
    "COLLABRL_JUDGE_MODEL",
)
ONE_TASK = (
    "games=[household]",
    "tasks=[0_read_book]",
    "max_profiles=1",
    "seats=[1]",
    "game_options.household.max_decisions=9",
    "--quiet",
)


@pytest.fixture
def no_server(monkeypatch):
    for var in SERVER_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_the_paper_recipe_runs_the_papers_roles_and_the_default_is_the_labelled_proxy() -> None:
    paper, proxy = build_spec(("collabbench",), None, False), build_spec((), None, False)
    assert (paper.partner.kind, paper.judge.kind) == ("llm", "llm")
    assert paper.partner.use_profile and paper.games == ["household", "kitchen"]
    assert (proxy.partner.kind, proxy.judge.kind) == ("persona", "heuristic")
    assert DEFAULT_RECIPE == "collabbench_proxy" and proxy.games == paper.games
    assert (proxy.seats, proxy.window, proxy.policy_retries) == (paper.seats, 3, 0)


def test_the_paper_recipe_without_a_server_fails_in_one_line(no_server, tmp_path, capsys) -> None:
    from collabrl.cli import main

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "collabbench", *ONE_TASK, f"output_dir={out}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1
    for name in ("COLLABRL_OPENAI_BASE_URL", "OPENAI_BASE_URL", "COLLABRL_OPENAI_API_KEY"):
        assert name in err
    assert f"eval.partner ({PAPER_MODEL}) and eval.judge ({PAPER_MODEL})" in err
    assert "collabrl eval collabbench_proxy" in err
    assert not out.exists()  # nothing played, no folder claimed
    with pytest.raises(NoServerError):  # the library entry checks the same
        run_evaluation(build_spec(("collabbench", *ONE_TASK[:-1]), None, False), progress=False)


class ModelRecordingServer(FakeOpenAIServer):
    """The fake server, also keeping the model every request named."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.models: list[str] = []

    def reply(self, body):
        self.models.append(body.get("model"))
        return super().reply(body)


def play_and_judge(messages) -> str:
    """The simulated player talks (a one-tick action); each window judge deducts one point."""
    if "--- decision" in messages[-1]["content"]:
        return '{"violations": [{"rule": "Delegation", "deduction": 1, "evidence": "x"}]}'
    return "<think>Tell them.</think>\n<message>Found a book!</message>\n<action>[send_message]</action>"


def test_the_paper_recipe_runs_one_task_on_a_server(no_server, tmp_path) -> None:
    out = tmp_path / "out"
    with ModelRecordingServer(responder=play_and_judge) as server:
        no_server.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            eval_command, ["collabbench", *ONE_TASK, f"output_dir={out}"], catch_exceptions=False
        )
    assert result.exit_code == 0, result.output
    assert server.models and set(server.models) == {PAPER_MODEL}  # partner and judge requests
    results = json.loads((out / "results.json").read_text())
    stamp = results["stamp"]
    assert stamp["partner_set"]["kind"] == "llm" and stamp["partner_set"]["model"] == PAPER_MODEL
    assert PAPER_MODEL in stamp["judge"] and not stamp["judge_is_proxy"]
    assert results["note"] is None and results["judge_failures"]["failed"] == dict.fromkeys(
        DIMENSIONS, 0
    )
    tables = (out / "tables.md").read_text()
    assert "PROXY" not in tables.upper() and f"partner model={PAPER_MODEL}" in tables
    (row,) = [r for r in results["tables"] if r["task"] == "Overall"]
    assert row["helpfulness"] < 5  # the LLM judge's deductions reached the table
    assert "OFFLINE PROXY" not in result.output


def test_the_proxy_recipes_tables_say_offline_proxy(tmp_path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        eval_command, ["collabbench_proxy", *ONE_TASK, f"output_dir={out}"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    tables = (out / "tables.md").read_text()
    note = tables.splitlines()[0]
    assert note.startswith("> **OFFLINE PROXY: persona-scripted partners")
    assert "heuristic proxy judge" in note and "not comparable with CollabBench" in note
    titles = [line for line in tables.splitlines() if line.startswith("### ")]
    assert titles and all("offline proxy" in t for t in titles)
    assert json.loads((out / "results.json").read_text())["note"] == note[4:-2]
    assert "OFFLINE PROXY: persona-scripted partners" in result.output  # printed too
