"""Profile pipeline end to end, offline: scripted players, summariser and judge, hashing embedder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.agents.protocol import parse_response
from collabrl.envs.base import Game, Observation, format_response
from collabrl.envs.registry import get_game
from collabrl.pipeline import (
    HashingEmbedder,
    PipelineError,
    Resources,
    RunDir,
    load_config,
    run_pipeline,
    run_stage,
)
from collabrl.pipeline.cli import profiles as profiles_cli
from collabrl.pipeline.players import partner
from collabrl.profiles import read_profile_file
from collabrl.testing.fake_openai import FakeOpenAIServer
from collabrl.testing.scripted import ScriptedEngine

SMALL = [
    "games=[{name: household, task: 1_read_book, max_decisions: 12},"
    " {name: kitchen, layout: cramped_room, horizon: 60}]",
    "generate.random_combinations=2",
    "cluster.k=4",
    "cluster.embedder=hashing",
    "filter.games=2",
    "filter.top_k=2",
]


class StylePlayer:
    """A stand-in for an LLM player: the game's expert, coloured by a few persona keywords."""

    name = "style"

    def __init__(self, persona: str, game: Game) -> None:
        self.persona = persona.lower()
        self.inner = partner(get_game("household" if hasattr(game, "task") else "kitchen")())
        self.message_action = game.message_action

    def reset(self, seat: str, seed: int) -> None:
        self.inner.reset(seat, seed)
        self.turn = 0

    def act(self, obs: Observation) -> str:
        self.turn += 1
        parsed = parse_response(self.inner.act(obs), obs.actions)
        think = parsed.think
        if "worr" in self.persona:
            think = f"I worry this could go wrong, so I double-check first. {think}"
        if "talk" in self.persona and self.turn % 2 and self.message_action in obs.actions:
            return format_response(
                f"I love keeping my teammate posted. {think}",
                f"Quick update from me at tick {obs.tick}!",
                self.message_action,
            )
        if "silently" in self.persona:
            think = f"I keep to myself and just work. {think}"
        return format_response(think, parsed.message, parsed.action or obs.actions[0])


def summariser_reply(conversation: list[dict[str, str]]) -> str:
    """Plausible JSON from the cluster's content; every fourth cluster is declared incoherent."""
    prompt = conversation[-1]["content"]
    summariser_reply.calls += 1
    n = summariser_reply.calls
    if n % 4 == 0:
        return "Fail"
    sent = prompt.count("(sent)")
    kind = "proactive_leader" if sent > 3 else "independent_loner"
    worried = "worry" in prompt
    levels = {
        "openness": "medium",
        "conscientiousness": "high",
        "extraversion": "high" if sent > 3 else "low",
        "agreeableness": "medium",
        "neuroticism": "high" if worried else "unknown",
    }
    behavior = (
        f"Pattern {n}: sends about {sent} messages per handful of decisions and "
        f"{'double-checks anxiously' if worried else 'acts without fuss'}."
    )
    reply = {"big_five": levels, "behavior": behavior, "player_type": kind}
    return f"Here is the profile:\n```json\n{json.dumps(reply)}\n```"


summariser_reply.calls = 0


def judge_reply(conversation: list[dict[str, str]]) -> str | None:
    """Flaws from simple cues; every ninth request fails and every tenth is not JSON."""
    prompt = conversation[-1]["content"]
    judge_reply.calls += 1
    if judge_reply.calls % 9 == 0:
        return None
    if judge_reply.calls % 10 == 0:
        return "The player seems fine to me."
    flaws = []
    if "fits the personality" in prompt and "talkative" in prompt and "(sent)" not in prompt:
        flaws.append({"reason": "a talkative player who says nothing", "severity": 3})
    if "invalid reply" in prompt:
        flaws.append({"reason": "no usable action", "severity": 2})
    if "wait(" in prompt:
        flaws.append({"reason": "waits although it planned to act", "severity": 1})
    return json.dumps({"flaws": flaws})


judge_reply.calls = 0


def small_resources(tmp_path: Path, *overrides: str) -> tuple[RunDir, Resources]:
    run = RunDir(tmp_path / "run1")
    config = run.config(None, [*SMALL, *overrides])
    summariser_reply.calls = judge_reply.calls = 0
    res = Resources(
        config,
        player_factory=StylePlayer,
        summariser=ScriptedEngine(summariser_reply),
        judge=ScriptedEngine(judge_reply),
        embedder=HashingEmbedder(),
    )
    return run, res


def test_pipeline_end_to_end_offline(tmp_path: Path) -> None:
    run, res = small_resources(tmp_path)
    summaries = run_pipeline(run, res, progress=False)
    for summary in summaries:
        print(summary.render())  # the fidelity report comes last (visible with pytest -s)

    trajectories = run.read_jsonl("trajectories.jsonl")
    assert len(trajectories) == 2 * 17  # 15 single-trait + 2 mixed descriptors, 2 tasks
    first = trajectories[0]
    assert first["source"] == "openness-low" and first["levels"]["openness"] == "low"
    assert {"think", "message", "action", "valid", "sent"} <= set(first["turns"][0])

    windows = run.read_jsonl("windows.jsonl")
    assert all(len(w["steps"]) == 3 for w in windows)
    assert run.read_matrix("embeddings.npy").shape == (len(windows), 512)
    clusters = run.read_jsonl("clusters.jsonl")
    assert {c["game"] for c in clusters} == {"household", "kitchen"}

    outcomes = run.read_jsonl("summaries.jsonl")
    assert len(outcomes) == len(clusters)
    assert any(o.get("reason") == "summariser answered Fail" for o in outcomes)
    assert all(o["prompt_version"] == "summarise-v1" for o in outcomes)

    candidates = read_profile_file(run.path("candidates.jsonl"))
    assert all(p.provenance == "pipeline:run1" and p.split == "train" for p in candidates)
    scores = run.read_jsonl("scores.jsonl")
    assert len(scores) == len(candidates)
    judgements = run.read_jsonl("judgements.jsonl")
    failed = [j for j in judgements if j["severities"] is None]
    assert failed and all(j["error"] for j in failed)
    for s in scores:
        assert s["s_all"] is None or 0 <= s["s_all"] <= 5
    kept = read_profile_file(run.path("profiles.jsonl"))
    per_task = {(p.game, p.task) for p in kept}
    assert len(kept) <= 2 * len(per_task)
    assert {p.id for p in kept} == {s["profile"] for s in scores if s["kept"]}

    fidelity = json.loads(run.path("fidelity.json").read_text())
    for game in fidelity["games"].values():
        assert game["after"]["profiles"] <= game["before"]["profiles"]
        assert 0 <= game["before"]["lc_k"] <= 1
    table = summaries[-1].extra
    assert "k-NN label consistency" in table and "household before" in table
    assert table in run.path("fidelity.md").read_text()


def test_stage_reruns_from_files(tmp_path: Path) -> None:
    run, res = small_resources(tmp_path)
    run_pipeline(run, res, ("generate", "cluster", "summarise"), progress=False)
    trajectories = run.path("trajectories.jsonl").read_text()

    def always_fail(conversation: list[dict[str, str]]) -> str:
        return "Fail"

    # a fresh process would only have the files: rebuild config and resources from the run dir
    rerun = Resources(
        run.config(),
        player_factory=StylePlayer,
        summariser=ScriptedEngine(always_fail),
        judge=ScriptedEngine(judge_reply),
        embedder=HashingEmbedder(),
    )
    summary = run_stage("summarise", run, rerun, progress=False)
    assert ("candidate profiles", 0) in summary.rows
    assert run.path("candidates.jsonl").read_text() == ""
    run_stage("filter", run, rerun, progress=False)  # no candidates: still writes its files
    assert run.read_jsonl("scores.jsonl") == [] and run.path("profiles.jsonl").exists()
    assert run.path("trajectories.jsonl").read_text() == trajectories  # untouched


def test_missing_input_names_the_stage_to_run(tmp_path: Path) -> None:
    run, res = small_resources(tmp_path)
    with pytest.raises(PipelineError, match="run `collabrl profiles generate` first"):
        run_stage("cluster", run, res, progress=False)


def test_config_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(PipelineError, match="games.0.task: unknown household task 'no_such_task'"):
        load_config(None, ["games=[{name: household, task: no_such_task}]"])
    with pytest.raises(PipelineError, match="run name"):
        load_config(None, ["name=has space"]).run_name(tmp_path)
    with pytest.raises(PipelineError, match="engines.summariser or engines.default"):
        load_config().engines.for_role("summariser")


def agent_or_json(messages: list[dict[str, str]]) -> str:
    """A fake LLM server for the CLI: players pick action A, others get summariser/judge JSON."""
    prompt = messages[-1]["content"]
    if "Reply with <think>" in prompt:
        return "<think>I take the first option.</think><message>On it.</message><action>A</action>"
    if '"flaws"' in prompt:
        return '{"flaws": [{"reason": "slightly off", "severity": 1}]}'
    sent = len(re.findall(r"\(sent\)", prompt))
    return json.dumps(
        {
            "big_five": dict.fromkeys(
                ["openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"],
                "medium",
            ),
            "behavior": f"Takes the first option every time and sent {sent} messages here.",
            "player_type": "hesitant_laggard",
        }
    )


def test_cli_run_with_openai_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        "engines:\n  default: {backend: openai, model: fake-model}\n"
        "games: [{name: household, task: 1_read_book, max_decisions: 20}]\n"
        "generate: {random_combinations: 0}\ncluster: {k: 2, embedder: hashing}\n"
        "filter: {games: 1}\n"
    )
    with FakeOpenAIServer(responder=agent_or_json) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            profiles_cli, ["run", str(tmp_path / "cli-run"), "--config", str(config), "--quiet"]
        )
    assert result.exit_code == 0, result.output
    assert "Intra-class distance" in result.output and "household after" in result.output
    kept = read_profile_file(tmp_path / "cli-run" / "profiles.jsonl")
    assert kept and all(p.provenance == "pipeline:cli-run" for p in kept)
    # a single stage reruns from the saved config
    again = CliRunner().invoke(profiles_cli, ["report", str(tmp_path / "cli-run"), "--quiet"])
    assert again.exit_code == 0, again.output
