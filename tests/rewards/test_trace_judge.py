"""The LLM trace judge (``collabrl.rewards.judges.trace``, ``eval.trace_judge=llm``) through the
fake OpenAI server: labels aggregated as the rules aggregate theirs (checked on the 12
hand-labelled traces), failures recorded with no scores, one batched call, cached, free-text
(DiscoveryBench) workflows judged, lint, and a whole team-structures evaluation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from collabrl.config import load_recipe
from collabrl.engines import make_engine
from collabrl.envs.analysis import tasks as analysis_tasks
from collabrl.envs.analysis.discoverybench import load_discoverybench
from collabrl.envs.analysis.tasks import get_task
from collabrl.envs.analysis.workflow import judge_trace, trace_judgements
from collabrl.errors import CollabrlError
from collabrl.eval.cli import build_spec
from collabrl.eval.protocol import run_evaluation
from collabrl.rewards.judges import JudgeParseError, LLMJudge
from collabrl.rewards.judges.trace import (
    TraceCase,
    judge_episode_traces,
    judge_traces,
    parse_trace,
    trace_judgement_counts,
    trace_messages,
)
from collabrl.testing.fake_openai import FakeOpenAIServer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TRACES = sorted((FIXTURES / "analysis_traces").glob("*.json"))
GATES_DR = FIXTURES / "analysis_traces" / "09_gates_dr_aligned.json"
GARBLED = "The team did a careful job, I would say."


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def case_of(summary: dict) -> TraceCase:
    return TraceCase(get_task(summary["task"]), summary)


def reply(labels, parts=None, collaborators=()) -> str:
    """A judge reply: ``labels`` per node, ``parts`` relation/scope/evidence, (seat, score)."""
    return json.dumps(
        {
            "workflow": [
                {"node": k, "label": label, "cell": None, "reason": f"node {k} by hand"}
                for k, label in enumerate(labels)
            ],
            "support": {
                p: {"score": v, "reason": f"{p} by hand"} for p, v in (parts or {}).items()
            },
            "alignment": [
                {"seat": seat, "score": score, "reason": f"{seat} by hand"}
                for seat, score in collaborators
            ],
        }
    )


def generic_reply(messages) -> str:
    """Every node partial, relation and scope met, half the evidence, each collaborator 0.25,
    read off the prompt; a garbled reply for a trace without collaborators."""
    user = messages[-1]["content"]
    nodes = re.findall(r"^node (\d+):", user, re.MULTILINE)
    listed = re.search(r"^Collaborators to judge: (.*)$", user, re.MULTILINE)
    seats = re.findall(r"(\w+) \([DR]\)", listed.group(1) if listed else "")
    if not seats:
        return GARBLED
    parts = {"relation": 1, "scope": 1, "evidence": 0.5}
    return reply(["partial"] * len(nodes), parts, [(s, 0.25) for s in seats])


class Scripted:
    """The fake judge: exact user prompts -> replies, else :func:`generic_reply`; the window
    judges find nothing to deduct."""

    def __init__(self) -> None:
        self.replies: dict[str, str] = {}
        self.traces = 0

    def __call__(self, messages) -> str:
        if messages[0]["content"].startswith("You audit"):
            return '{"violations": [], "summary": "fine"}'
        self.traces += 1
        return self.replies.get(messages[-1]["content"]) or generic_reply(messages)

    def script(self, case: TraceCase, text: str) -> None:
        self.replies[trace_messages(case)[-1]["content"]] = text


@pytest.fixture
def scripted():
    return Scripted()


@pytest.fixture
def server(monkeypatch, scripted):
    with FakeOpenAIServer(responder=scripted) as fake:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", fake.base_url)
        yield fake


@pytest.fixture
def judge(server, tmp_path):
    engine = make_engine(
        {"backend": "openai", "model": "judge", "max_retries": 0, "cache_dir": str(tmp_path)}
    )
    yield LLMJudge(engine, name="judge")
    engine.close()


def test_the_prompt_holds_task_workflow_and_trace() -> None:
    summary = load(GATES_DR)["summary"]
    system, user = trace_messages(case_of(summary))
    assert system["content"].startswith("You read the record of one session")
    text = user["content"]
    assert "Query: When did the florescence" in text
    assert 'node 0: r1 = filter(samples, site != "Duneth")' in text
    assert "known mistake (peak_vs_plateau; note n2 avoids it)" in text
    assert "n1 (materials; D's note): The Duneth samples" in text
    assert "- relation: the florescence of cereal farming begins in period 9" in text  # gold
    assert "Seats: Ada (the analysis agent), Bea (data-analysis collaborator (D))" in text
    assert "Collaborators to judge: Bea (D), Cy (R)" in text
    assert "[cell 3] tick 8, Ada: plateau(r2, grain_per_l, period, 1.0) -> 9" in text
    assert '[cell 0] tick 3, Ada: r1 = filter(samples, site != "Duneth") -> a table (r1)' in text
    assert '- tick 0, Bea, message: "From the data side' in text
    assert "- tick 1, Cy, board entry [criteria]:" in text
    assert "- tick 11, Cy, denies request 6: edit_sentence(Cereal farming peaks" in text
    assert "asks approval (request 1, owner Bea): run(r1 = filter(" in text


def test_labels_give_the_scores_by_the_rules_aggregation(server, scripted, judge) -> None:
    summary = load(GATES_DR)["summary"]
    case = case_of(summary)
    text = json.loads(reply(["satisfied", "partial", "missing"]))
    text["workflow"][0]["cell"] = 0
    text["support"] = {"relation": {"score": 1}, "scope": False, "evidence": "0.5"}
    text["alignment"] = [{"seat": "Cy", "score": None}, {"seat": "Bea", "score": 0.5}]
    scripted.script(case, f"Here it is:\n```json\n{json.dumps(text)}\n```")
    (verdict,) = judge_traces(judge, [case])
    assert not verdict.failed and verdict.prompt_version.startswith("trace-v1@")
    assert verdict.judge == "llm:judge"
    assert verdict.scores() == {
        "workflow_coverage": 0.5,  # (1 + 0.5 + 0) / 3
        "hypothesis_support": 0.5,  # (1 + 0 + 0.5) / 3
        "profile_alignment": 0.5,  # Bea's; Cy has nothing to judge
    }
    judged = verdict.judgement
    assert [n.label for n in judged.coverage.nodes] == ["satisfied", "partial", "missing"]
    assert judged.coverage.nodes[0].cell == 0 and judged.coverage.nodes[1].cell is None
    assert (
        judged.coverage.nodes[2].step.startswith("plateau(")
        and "by hand" in judged.coverage.nodes[2].reason
    )
    assert [p.part for p in judged.support.parts] == ["relation", "scope", "evidence"]
    assert [c.seat for c in judged.alignment.collaborators] == ["Bea", "Cy"]  # seat order
    assert judged.alignment.collaborators[0].profile == "D"
    json.dumps(verdict.record())  # plain data


def test_nothing_submitted_is_no_support_whatever_the_reply(server, scripted, judge) -> None:
    summary = {**load(GATES_DR)["summary"], "hypothesis": None, "outcome": "time up"}
    case = case_of(summary)
    assert "nothing was submitted (time up)" in trace_messages(case)[-1]["content"]
    scripted.script(case, reply(["satisfied"] * 3, None, [("Bea", 1), ("Cy", 1)]))
    (verdict,) = judge_traces(judge, [case])
    assert verdict.scores()["hypothesis_support"] == 0.0
    assert not verdict.judgement.support.submitted


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda r: r["workflow"].pop(), r"node\(s\) \[2\] not labelled"),
        (lambda r: r["workflow"].append(dict(r["workflow"][0])), "node 0 is labelled twice"),
        (lambda r: r["workflow"][0].update(node=7), "node 7 is not one of 0..2"),
        (lambda r: r["workflow"][1].update(label="mostly"), "label 'mostly' is not"),
        (lambda r: r["workflow"][1].update(cell=4), "node 1 cell 4 is not one of 0..3"),
        (lambda r: r["support"].update(scope={"score": 0.5}), "scope 0.5 is not 0 or 1"),
        (lambda r: r["support"].update(evidence=2), "evidence 2 is outside 0..1"),
        (lambda r: r.pop("support"), "no 'support' object"),
        (lambda r: r["alignment"].pop(), "collaborator\\(s\\) Cy not judged"),
        (lambda r: r["alignment"][0].update(seat="Ada"), "'Ada', not a D or R"),
        (lambda r: r["alignment"][0].update(score=3), "alignment 3 is not in 0..1"),
    ],
)
def test_an_unusable_reply_is_a_parse_error(change, problem) -> None:
    summary = load(GATES_DR)["summary"]
    parts = {"relation": 1, "scope": 1, "evidence": 1}
    text = json.loads(reply(["satisfied"] * 3, parts, [("Bea", 1), ("Cy", 1)]))
    parse_trace(json.dumps(text), case_of(summary))  # as written, it parses
    change(text)
    with pytest.raises(JudgeParseError, match=problem):
        parse_trace(json.dumps(text), case_of(summary))


def test_a_garbled_reply_is_a_recorded_failure_then_cached(server, scripted, judge) -> None:
    summary = load(GATES_DR)["summary"]
    good, bad = case_of(summary), case_of({**summary, "structure": "memory"})
    scripted.script(bad, GARBLED)
    verdicts = judge_traces(judge, [good, bad])
    assert server.requests == 2
    assert not verdicts[0].failed and verdicts[0].scores()["workflow_coverage"] == 0.5
    failed = verdicts[1]
    assert failed.failed and failed.judgement is None and failed.raw == GARBLED
    assert failed.error == "parse: no JSON object in reply"
    assert failed.scores() == dict.fromkeys(
        ("workflow_coverage", "hypothesis_support", "profile_alignment")
    )  # no scores, never a 0
    again = judge_traces(judge, [good, bad])  # the same requests: the engine's cache answers
    assert server.requests == 2
    assert [v.scores() for v in again] == [v.scores() for v in verdicts]


def test_episodes_of_games_with_a_task_reader_are_judged_and_counted(server, scripted, judge):
    summary = load(GATES_DR)["summary"]
    broken = {**summary, "structure": "memory"}
    scripted.script(case_of(broken), GARBLED)
    household = {"task": "0_read_book", "steps": 30}
    verdicts = judge_episode_traces(
        judge, [("analysis", summary), ("household", household), ("analysis", broken)]
    )
    assert [v is not None for v in verdicts] == [True, False, True]
    assert household == {"task": "0_read_book", "steps": 30}  # untouched
    record = summary["trace_judgement"]
    assert record["error"] is None and record["scores"]["workflow_coverage"] == 0.5
    assert record["labels"]["workflow_coverage"]["nodes"][0]["label"] == "partial"
    assert broken["trace_judgement"]["scores"]["workflow_coverage"] is None
    counts = trace_judgement_counts([summary, household, broken])
    assert counts["judged"] == 2 and counts["failed"] == 1
    assert counts["failure_kinds"] == {"parse": 1} and counts["prompt"].startswith("trace-v1@")


def test_the_hand_labels_aggregate_to_the_rules_scores(server, scripted, judge) -> None:
    """The judge returning each fixture's hand labels scores each trace as the rules do: the
    aggregation is one (collabrl.envs.analysis.judgements)."""
    cases = []
    for path in TRACES:
        fixture = load(path)
        summary, expected = fixture["summary"], fixture["expected"]
        alignment = expected["profile_alignment"] or {"collaborators": {}}
        collaborators = [(s, c["score"]) for s, c in alignment["collaborators"].items()]
        labels = expected["workflow_coverage"]["labels"]
        scripted.script(
            case_of(summary), reply(labels, expected["hypothesis_support"]["parts"], collaborators)
        )
        cases.append(case_of(summary))
    verdicts = judge_traces(judge, cases)
    assert len(verdicts) == len(TRACES) == 12 and server.requests == 12
    for path, case, verdict in zip(TRACES, cases, verdicts, strict=True):
        assert not verdict.failed, (path.stem, verdict.error)
        rules = judge_trace(case.summary)
        assert verdict.scores() == pytest.approx(rules.as_dict(), abs=1e-6), path.stem
        assert [n.label for n in verdict.judgement.coverage.nodes] == [
            n.label for n in rules.coverage.nodes
        ]
        assert verdict.judgement.support.submitted == rules.support.submitted


@pytest.fixture
def discoverybench(monkeypatch):
    """The fixture DiscoveryBench folder joined to the tasks, and its task whose query names no
    analysis the loader can derive, so its workflow stays DiscoveryBench's free text."""
    monkeypatch.setenv(analysis_tasks.DISCOVERYBENCH_ENV, str(FIXTURES / "discoverybench"))
    analysis_tasks.load_tasks.cache_clear()
    tasks = load_discoverybench(FIXTURES / "discoverybench")
    yield next(t for t in tasks if t.name == "archaeology-0-1")
    monkeypatch.delenv(analysis_tasks.DISCOVERYBENCH_ENV)
    analysis_tasks.load_tasks.cache_clear()


def test_a_free_text_workflow_is_judged(server, scripted, judge, discoverybench) -> None:
    task = discoverybench
    summary = {
        "task": task.name,
        "roles": {"Ada": "agent", "Bea": "R"},
        "hypothesis": dict.fromkeys(("context", "variables", "relation"), "")
        | {"sentence": task.gold.sentence},
        "notebook": [
            {
                "tick": 1,
                "seat": "Ada",
                "step": "sort(pollen, age, desc)",
                "name": None,
                "value": None,
                "error": None,
            },
        ],
        "trace": [
            {
                "tick": 0,
                "seat": "Bea",
                "kind": "message",
                "target": None,
                "text": "Take the first local maximum, oldest first.",
            }
        ],
    }
    assert trace_judgements(summary) == {  # the rules read the kind of analysis its tags name
        "workflow_coverage": 0.5,  # a time-series operation, on no column the task names
        "hypothesis_support": 0.0,
        "profile_alignment": None,
    }
    prompt = trace_messages(TraceCase(task, summary))[-1]["content"]
    assert f"node 0: {task.workflow[0].step}" in prompt and "node 1:" not in prompt
    scripted.script(
        TraceCase(task, summary),
        reply(["partial"], {"relation": 0, "scope": 1, "evidence": 1}, [("Bea", 1.0)]),
    )
    (verdict,) = judge_episode_traces(judge, [("analysis", summary)])
    assert verdict.scores() == {
        "workflow_coverage": 0.5,
        "hypothesis_support": pytest.approx(2 / 3, abs=1e-6),
        "profile_alignment": 1.0,
    }


def test_lint_refuses_an_llm_trace_judge_without_an_llm_judge() -> None:
    with pytest.raises(CollabrlError) as err:
        build_spec(("games=[analysis]", "trace_judge=llm"), None, oracle=False)
    message = str(err.value)
    assert "trace_judge=llm needs judge.kind=llm" in message
    assert "not judge.kind=heuristic" in message and "\n" not in message
    spec = build_spec(
        (
            "games=[analysis]",
            "trace_judge=llm",
            "judge.kind=llm",
            "judge.engine={backend: openai, model: m}",
        ),
        None,
        oracle=False,
    )
    assert spec.trace_judge == "llm"


@pytest.mark.slow
def test_a_team_structures_evaluation_reports_the_llm_judgements(
    server, scripted, tmp_path
) -> None:
    """analysis_teams on one task: every episode's trace labelled by the judge (all nodes
    partial, full support but half the evidence, collaborators 0.25), the agent alone's reply
    garbled, so its judgements stay empty and are counted."""
    engine = (
        f"{{backend: openai, model: judge, options: {{max_retries: 0, cache_dir: {tmp_path}}}}}"
    )
    out = tmp_path / "out"
    spec = load_recipe(
        "analysis_teams",
        [
            "eval.tasks=[arch-test-01]",
            "eval.seeds=[0]",
            "eval.max_profiles=1",
            "eval.trace_judge=llm",
            "eval.judge.kind=llm",
            f"eval.judge.engine={engine}",
            f"eval.output_dir={out}",
        ],
    ).evaluation()
    result = run_evaluation(spec, progress=False)
    assert scripted.traces == len(result.outcomes) == 13
    counts = json.loads((out / "results.json").read_text())["trace_judge"]
    assert counts["judged"] == 13 and counts["failed"] == 1
    assert counts["failure_kinds"] == {"parse": 1}
    rows = {r["variant"]: r for r in json.loads((out / "results.json").read_text())["study"]}
    single, full = rows["Single-agent"], rows["Scaffolded-DR"]
    assert single["workflow_coverage"] is None and single["profile_alignment"] is None
    assert full["workflow_coverage"] == 0.5  # the rules give the reference analyst 1.0
    assert full["hypothesis_support"] == pytest.approx(0.833333, abs=1e-6)
    assert full["profile_alignment"] == 0.25
    study = (out / "study.md").read_text()
    cells = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[-4:-1]]
        for line in study.splitlines()
        if line.startswith("| ")
    }
    assert cells["Scaffolded-DR"] == ["0.50", "0.83", "0.25"]  # C wf, S hyp, A profile
    assert cells["Single-agent"] == ["—", "—", "—"]  # its judgement failed: left empty
    assert "Trace judgements (C wf, S hyp, A profile): LLM judge llm:judge" in study
    assert "13 episodes judged, 1 failed" in study
    trajectory = json.loads((out / "trajectories.jsonl").read_text().splitlines()[0])
    assert trajectory["summary"]["trace_judgement"]["prompt_version"].startswith("trace-v1@")
    assert trajectory["process"]["workflow_coverage"] in (None, 0.5)
