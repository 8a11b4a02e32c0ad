"""``collabrl eval`` end to end on small configurations: tables, files, stamps, judge faults."""

import csv
import json
import statistics

import pytest
from click.testing import CliRunner

from collabrl.config import EvalSpec
from collabrl.errors import CollabrlError
from collabrl.eval.affective import aggregate_dimension
from collabrl.eval.cli import build_spec, eval_command
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.runner import select_jobs
from collabrl.profiles import PLAYER_TYPES, load_profiles
from collabrl.rewards.judges import DIMENSIONS
from collabrl.testing.fake_openai import FakeOpenAIServer, Fault

SMALL = ["tasks=[0_read_book,5_read_book]", "games=[household]", "max_profiles=3", "--quiet"]


def read_csv(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(args: list[str]):
    result = CliRunner().invoke(eval_command, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_small_heuristic_run_writes_table_shaped_outputs(tmp_path) -> None:
    out = run([*SMALL, f"output_dir={tmp_path}"])
    assert "PROXY" in out.output and "household | Agent 1" in out.output
    table = (tmp_path / "tables.md").read_text()
    assert (
        table.startswith("> **OFFLINE PROXY")
        and "Table 1 shape" in table
        and "Table 6 shape" in table
    )
    header = next(line for line in table.splitlines() if line.startswith("| Task"))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[:4] == ["Task", "Method", "Step ↓ Agent 1", "Step ↓ Agent 2"]
    assert len(cells) == 2 + 2 * 7 + 2 * 2 and cells[-6:-4] == [
        "Affective ↑ Agent 1",
        "Affective ↑ Agent 2",
    ]
    assert cells[-4:] == [
        "Stalled Agent 1",
        "Stalled Agent 2",
        "Judge failed Agent 1",
        "Judge failed Agent 2",
    ]
    rows = read_csv(tmp_path / "tables.csv")
    assert [(r["task"], r["seat"]) for r in rows] == [
        (t, s) for t in ("0_read_book", "5_read_book", "Overall") for s in ("Agent 1", "Agent 2")
    ]
    episodes = read_csv(tmp_path / "episodes.csv")
    assert len(episodes) == 2 * 3 * 2 and len({e["profile"] for e in episodes}) == 6
    trajectories = read_jsonl(tmp_path / "trajectories.jsonl")
    assert len(trajectories) == 12
    first = trajectories[0]
    assert first["windows"] and set(first["windows"][0]["judgements"]) == set(DIMENSIONS)
    assert first["stamp"]["judge"] == "heuristic-proxy" and first["stamp"]["seeds"] == [0]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["stamp"]["partner_set"] == {
        "kind": "persona",
        "split": "test",
        "profiles": 6,
        "profile_ids": sorted({e["profile"] for e in episodes}),
    }
    assert results["judge_failures"]["failed"] == dict.fromkeys(DIMENSIONS, 0)
    # table cells are the means of the per-episode scores; std is across profiles
    for row in rows:
        mine = [
            e
            for e in episodes
            if row["task"] in (e["task"], "Overall") and e["seat"] == row["seat"]
        ]
        for d in (*DIMENSIONS, "efficiency"):
            assert float(row[d]) == pytest.approx(statistics.mean(float(e[d]) for e in mine), 1e-3)
        assert float(row["std"]) == pytest.approx(
            statistics.pstdev(float(e["efficiency"]) for e in mine)
        )


def test_max_profiles_samples_every_player_type_before_repeating() -> None:
    spec = EvalSpec(games=["household"], tasks=["20_prepare_food"], max_profiles=5, seats=[1])
    jobs = select_jobs(spec)
    assert sorted(j.profile.player_type for j in jobs) == sorted(PLAYER_TYPES)
    every = {p.id for p in load_profiles(game="household", split="test", task="20_prepare_food")}
    assert {j.profile.id for j in jobs} <= every and len({j.profile.id for j in jobs}) == 5
    two = select_jobs(spec.model_copy(update={"max_profiles": 2}))
    assert [j.profile.id for j in two] == [j.profile.id for j in jobs[:2]]


def test_episode_scores_follow_the_contract(tmp_path) -> None:
    spec = EvalSpec(
        games=["household"],
        tasks=["0_read_book"],
        max_profiles=2,
        seats=[1],
        output_dir=str(tmp_path),
    )
    result = run_evaluation(spec, progress=False)
    for o in result.outcomes:
        assert all(len(w) == 3 for w in o.windows) and len(o.windows) == o.decisions // 3
        for d in DIMENSIONS:
            expected = aggregate_dimension(
                [j[d].deduction for j in o.judgements], o.message_ratio, a=0.8, b=0.8
            )
            assert o.scores[d] == pytest.approx(expected)


def test_llm_judge_against_fake_server_with_faults(tmp_path, monkeypatch) -> None:
    def responder(messages):
        if "Empathy" in messages[0]["content"]:
            return "Sure! ```json\n{'violations': [{'rule': 'cold', 'deduction': 1}]}\n``` done"
        return '{"violations": [], "score": 5, "summary": "fine"}'

    with FakeOpenAIServer(responder=responder) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        server.inject(
            "--- decision 1 (tick 0) ---", Fault.http(500), Fault.malformed(), Fault.http(400)
        )
        run(
            [
                *SMALL,
                "max_profiles=1",
                "seats=[1]",
                f"output_dir={tmp_path}",
                "judge.kind=llm",
                "judge.engine.backend=openai",
                "judge.engine.model=fake-judge",
                "judge.engine.options={max_retries: 0, cache_dir: " + str(tmp_path / "cache") + "}",
            ]
        )
    results = json.loads((tmp_path / "results.json").read_text())
    failures = results["judge_failures"]
    assert sum(failures["failed"].values()) == 3 and failures["windows"] > 0
    # an LLM judge, but persona partners stand in for LLM-simulated players: still labelled
    assert results["note"].startswith("STAND-IN PARTNERS: persona-scripted partners")
    assert results["stamp"]["judge"] == "llm:fake-judge"
    assert results["stamp"]["judge_prompts"]["empathy"].startswith("window-v2@")
    assert "PROXY" not in (tmp_path / "tables.md").read_text()
    rows = {r["task"]: r for r in results["tables"]}
    assert rows["Overall"]["trustfulness"] == pytest.approx(5.0)  # failed windows excluded
    assert rows["Overall"]["empathy"] < 5.0
    trajectories = read_jsonl(tmp_path / "trajectories.jsonl")
    errors = [
        j["error"]
        for t in trajectories
        for w in t["windows"]
        for j in w["judgements"].values()
        if j["error"]
    ]
    assert len(errors) == 3 and all(e.startswith("engine:") for e in errors)


def test_oracle_llm_policy_sees_partner_profile(tmp_path) -> None:
    from collabrl.factory import EngineCache
    from collabrl.testing.scripted import ScriptedEngine

    seen = []

    def reply(conversation):
        seen.append(conversation[-1]["content"])
        return "<think>t</think><message>On my way, don't worry!</message><action>A</action>"

    engine = ScriptedEngine(reply)

    class Engines(EngineCache):
        def get(self, spec):
            return engine

    spec = EvalSpec.model_validate(
        {
            "games": ["household"],
            "tasks": ["0_read_book"],
            "max_profiles": 1,
            "seats": [2],
            "oracle": True,
            "output_dir": str(tmp_path),
            "game_options": {"household": {"max_decisions": 12}},
            "policy": {"kind": "llm", "engine": {"backend": "openai", "model": "scripted"}},
        }
    )
    result = run_evaluation(spec, engines=Engines(), progress=False)
    assert seen and all(s.startswith("[Oracle information about Alice]") for s in seen)
    assert "not decided anything yet" in seen[0]  # both seats decide at tick 0
    assert "Their previous decision at tick" in seen[1] and "Observed play style:" in seen[0]
    outcome = result.outcomes[0]
    assert outcome.tokens_per_step_k > 0 and result.stamp["oracle"]
    assert outcome.views[0].observation and "[Oracle" not in outcome.views[0].observation
    assert "Oracle llm:openai:scripted" in (tmp_path / "tables.md").read_text()


def test_bad_settings_are_one_line_errors(tmp_path) -> None:
    result = CliRunner().invoke(eval_command, ["seats=[3]", f"output_dir={tmp_path}"])
    assert result.exit_code != 0 and "seats" in str(result.exception)


def test_settings_file_then_overrides_use_the_recipe_syntax(tmp_path) -> None:
    settings = tmp_path / "eval.yaml"
    settings.write_text(
        "base: collabbench_proxy\neval: {games: [household], seats: [1], judge: {kind: heuristic}}\n"
    )
    spec = build_spec((str(settings), "seats=[2]", "policy.engine.model=m"), None, oracle=True)
    assert spec.games == ["household"] and spec.seats == [2] and spec.judge.kind == "heuristic"
    assert spec.policy.engine.model == "m" and spec.oracle
    checkpoint = build_spec((str(settings),), "runs/x/policy", oracle=False).policy
    assert checkpoint.kind == "llm" and checkpoint.engine.model == "runs/x/policy"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["seats"], "recipe 'seats' is neither a file nor a shipped recipe"),
        (["max_profile=3"], "unknown key; allowed: games, tasks"),
        (["=3"], "must look like key=value"),
        (["seats=[1]", "seats.5=2"], "cannot apply override"),
    ],
)
def test_bad_eval_settings_name_the_problem(args, message) -> None:
    result = CliRunner().invoke(eval_command, args)
    assert result.exit_code != 0 and message in str(result.exception)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["tasks=[nope]"],
            "tasks: unknown evaluation task 'nope'; test tasks are household: 0_read_book",
        ),
        (["tasks=[1_read_book]"], "tasks: unknown evaluation task '1_read_book'"),  # a train task
        (
            ["games=[kitchen]", "tasks=[0_read_book]"],
            "tasks: '0_read_book' is a household task but games=['kitchen']",
        ),
        (
            ["games=[household]", "tasks=[cramped_room]"],
            "'cramped_room' is a kitchen task but games=['household']",
        ),
        (["tasks=[]"], "tasks: List should have at least 1 item"),
        (["profiles=[nobody]"], "profiles: unknown profile id 'nobody'"),
        (
            ["profiles=[cwah-1_read_book-train-01]"],
            "'cwah-1_read_book-train-01' is a train profile",
        ),
        (
            ["games=[kitchen]", "profiles=[cwah-0_read_book-test-01]"],
            "is a household profile but games=['kitchen']",
        ),
        (
            ["tasks=[5_read_book]", "profiles=[cwah-0_read_book-test-01]"],
            "plays task '0_read_book', which is not in tasks=['5_read_book']",
        ),
        (["seeds=[-1]"], "seeds.0: Input should be greater than or equal to 0"),
        (["seeds=[4294967296]"], "seeds.0: Input should be less than or equal to 4294967295"),
        (
            ["game_options={kitchen: {horizon: 99999999999}}"],
            "game_options.kitchen.horizon: Input should be less than or equal to 100000",
        ),
        (
            ["game_options.household.max_ticks=100001"],
            "game_options.household.max_ticks: Input should be less than or equal to 100000",
        ),
        (["max_profiles=10001"], "max_profiles: Input should be less than or equal to 10000"),
        (
            ["judge.sampling.max_new_tokens=131073"],
            "judge.sampling.max_new_tokens: Input should be less than or equal to 131072",
        ),
        (["judge.kind=llm"], "judge: an llm judge needs engine.model"),
        (["partner.kind=llm"], "partner: an llm partner needs engine.model"),
        (
            ["policy.kind=llm", "policy.engine={backend: openai, model: m, options: {bogus: 1}}"],
            "policy.engine.options: unknown option(s) bogus",
        ),
    ],
)
def test_eval_selection_and_sizes_are_checked_before_playing(args, message) -> None:
    with pytest.raises(CollabrlError) as err:
        build_spec(tuple(args), None, oracle=False)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_eval_cli_errors_exit_2_before_any_episode(tmp_path, capsys) -> None:
    from collabrl.cli import main

    for args in (["tasks=[nope]"], ["games=[kitchen]", "tasks=[0_read_book]"], ["profiles=[x]"]):
        with pytest.raises(SystemExit) as exit_:
            main(["eval", "--quiet", *args, f"output_dir={tmp_path / 'out'}"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_an_empty_selection_is_an_error_not_an_empty_table(tmp_path, monkeypatch) -> None:
    import collabrl.eval.protocol as protocol

    monkeypatch.setattr(protocol, "select_jobs", lambda spec: [])
    spec = EvalSpec(games=["household"], tasks=["0_read_book"], output_dir=str(tmp_path / "out"))
    with pytest.raises(CollabrlError, match="no evaluation episodes for games=\\['household'\\]"):
        run_evaluation(spec, progress=False)
    assert not (tmp_path / "out").exists()
