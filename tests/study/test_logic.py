"""State and logic in study files (issue 33, item 4): one expression evaluator for branches,
state updates and the bonus; state set by answers and rounds; when-branches simulated on every
path by lint; {state.x} and {answers.page.question} in texts and agent prompts; multi-factor
designs with balanced assignment; factor levels, state and process metrics in the export."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.expressions import ExpressionError, evaluate, references
from collabrl.study.spec.load import load_study
from collabrl.study.spec.payment import evaluate_bonus
from collabrl.study.store.db import open_database

EXAMPLE = Path(__file__).parents[2] / "examples" / "study_components" / "study.yaml"

STUDY = """name: logic_study
game: {{name: kitchen, layout: cramped_room, horizon: 8}}
seats: {{humans: ["Player 0"], agents: ["Player 1"]}}
{design}
state:
  level: {{type: choice, values: [low, high]}}
  wins: {{type: number}}
{state}pages:
  - id: intake
    kind: survey
    text: "Welcome"
    questions:
      - {{id: skill, text: "Your skill", kind: likert, points: 5}}
      - {{id: name, text: "Your nickname", kind: text, required: false}}
    set:
{sets}
    branches:
{branches}
    next: rounds
  - {{id: help, kind: text, text: "Some help for {{answers.intake.name}}.", next: rounds}}
  - id: rounds
    kind: conditions
    set: {{wins: "state.wins + (1 if result.success else 0)"}}
  - {{id: done, kind: end}}
questionnaire: {{template: collabbench}}
completion: {{code: LOGIC}}
"""
CONDITIONS = """conditions:
  - {id: expert, name: Agent A, agent: {kind: expert}}
  - {id: quiet, name: Agent B, agent: {kind: persona, profile: cook-cramped_room-test-13}}
design: {kind: within, participants: 2}"""
LEVEL = '      level: \'"high" if answers.intake.skill >= 4 else "low"\''
TO_HELP = "      - {when: 'state.level == \"low\"', to: help}"


def study_file(
    tmp_path: Path,
    *,
    design: str = CONDITIONS,
    sets: tuple[str, ...] = (LEVEL,),
    branches: tuple[str, ...] = (TO_HELP,),
    state: str = "",
) -> str:
    path = tmp_path / "logic_study.yaml"
    text = STUDY.format(
        design=design,
        state=state,
        sets="\n".join(sets) or "      {}",
        branches="\n".join(branches) or "      []",
    )
    path.write_text(text + f"output_dir: {tmp_path / 'runs'}\n")
    return str(path)


def lint_error(capsys, path: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["study", "lint", path])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


# --- the one evaluator -------------------------------------------------------------------------


def test_one_evaluator_reads_state_and_answers_and_names_what_is_missing() -> None:
    from collabrl.study.spec.expressions import StateValues, answer_values

    answers = answer_values({"intake.cooks": "yes"}, ["intake.cooks", "intake.age"])
    names = {"state": StateValues(score=2), "answers": answers}
    assert evaluate("state.score >= 2 and answers.intake.cooks == 'yes'", names) is True
    assert evaluate('answers["intake.cooks"]', names) == "yes"
    assert evaluate("answers.intake.age is None", names) is True
    with pytest.raises(ExpressionError, match=r"no state variable 'scor' \(known: score\)"):
        evaluate("state.scor", names)
    with pytest.raises(ExpressionError, match="no question of page intake 'cok'"):
        evaluate("answers.intake.cok", names)
    with pytest.raises(ExpressionError, match="unknown function '__import__'"):
        evaluate("__import__('os')", names)
    with pytest.raises(ExpressionError):
        evaluate("state.__class__", names)
    assert references("state.x + group.y > len(answers.p.q) and [r for r in round if r]") == {
        ("state", "x"),
        ("group", "y"),
        ("answers", "p.q"),
        ("round", None),
    }


def test_the_bonus_uses_the_same_evaluator() -> None:
    with pytest.raises(ExpressionError, match="does not parse"):
        evaluate_bonus("1 +", {}, 1.0)


# --- lint: one line per mistake ----------------------------------------------------------------


def test_the_logic_study_passes_lint(tmp_path, capsys) -> None:
    main(["study", "lint", study_file(tmp_path), "--graph"])
    out = capsys.readouterr().out
    assert 'intake: --when state.level == "low"--> help; --submit--> rounds.play1' in out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"branches": ("      - {when: 'state.levl == \"low\"', to: help}",)},
            "unknown state variable 'levl' (known: level, wins)",
        ),
        ({"branches": ("      - {when: 'state.level ==', to: help}",)}, "does not parse"),
        ({"sets": ("      score: '1'",)}, "page intake.set: unknown state variable 'score'"),
        (
            {"branches": ("      - {when: 'answers.intake.skil > 2', to: help}",)},
            "no survey question 'intake.skil'",
        ),
        (
            {"branches": ("      - {when: 'result.success', to: help}",)},
            "unknown name 'result' (known: state, group, answers, attention)",
        ),
        (
            {"sets": ("      level: '\"medium\"'",)},
            "set.level fails for a participant who answers",
        ),
        (
            {"sets": ("      wins: 'len(answers.intake.name)'",)},
            "answers name unanswered: object of type 'NoneType' has no len()",
        ),
        (
            {"branches": ("      - {when: 'answers.intake.skill > 5', to: help}",)},
            "no participant reaches help, whatever they answer",
        ),
        (
            {"design": CONDITIONS.replace("participants: 2", "participants: 3")},
            "design.participants=3 is unbalanced",
        ),
        (
            {"state": "  mood: {type: number, scope: group}\n", "sets": ("      mood: '1'",)},
            "mood is a group variable: groups set theirs after rounds",
        ),
    ],
)
def test_lint_refuses_logic_mistakes_in_one_line(tmp_path, capsys, change, message) -> None:
    err = lint_error(capsys, study_file(tmp_path, **change))
    assert message in err, err


def test_a_game_rounds_set_cannot_read_a_chat_rounds_result(tmp_path, capsys) -> None:
    path = Path(study_file(tmp_path))
    path.write_text(path.read_text().replace("(1 if result.success else 0)", "result.turns"))
    err = lint_error(capsys, str(path))
    assert "result.turns is a chat or document round's (known: success, steps," in err


def test_a_placeholder_naming_nothing_is_refused(tmp_path, capsys) -> None:
    path = Path(study_file(tmp_path))
    path.write_text(path.read_text().replace("Some help for", "Hello {state.nickname},"))
    err = lint_error(capsys, str(path))
    assert "page help: {state.nickname}: unknown state variable 'nickname'" in err


def test_a_when_branch_that_loops_for_some_answers_is_refused(tmp_path, capsys) -> None:
    """The low-skill route goes back to the intake: those participants loop forever."""
    path = Path(study_file(tmp_path))
    path.write_text(path.read_text().replace("next: rounds}", "next: intake}"))
    err = lint_error(capsys, str(path))
    assert "loops forever: intake -> help -> intake" in err
    assert "a participant who answers skill=1 on intake loops forever" in err


def test_a_branch_on_round_results_is_simulated_for_every_result(tmp_path, capsys) -> None:
    """After the rounds a when on state.wins: with two rounds, every count 0..2 is simulated, so
    a branch needing three wins can never fire and its page is unreachable."""
    path = Path(study_file(tmp_path))
    after = (
        '  - id: verdict\n    kind: survey\n    questions: [{id: fun, text: "Fun?", kind: likert}]\n'
        "    branches: [{when: 'state.wins >= WINS', to: champion}]\n    next: done\n"
        "  - {id: champion, kind: text, text: Champion!, next: done}\n"
    )
    text = path.read_text().replace(
        "  - {id: done, kind: end}\n", after + "  - {id: done, kind: end}\n"
    )
    path.write_text(text.replace("WINS", "2"))
    main(["study", "lint", str(path)])
    path.write_text(text.replace("WINS", "3"))
    assert "no participant reaches champion" in lint_error(capsys, str(path))


# --- factors -----------------------------------------------------------------------------------

FACTORS = """design:
  participants: {participants}
  factors:
    - name: structure
      levels:
        - {{id: plain, game_options: {{structure: default}}}}
        - {{id: gated, game_options: {{structure: gates}}}}
    - name: agent
      within: true
      levels:
        - {{id: expert, name: Agent A, agent: {{kind: expert}}}}
        - {{id: quiet, name: Agent B, agent: {{kind: persona, profile: cook-cramped_room-test-13}}}}"""


def test_factors_generate_conditions_and_balanced_orders(tmp_path) -> None:
    compiled = compile_study(
        load_study(study_file(tmp_path, design=FACTORS.format(participants=4)))
    )
    study = compiled.study
    assert [c.id for c in study.conditions] == [
        "plain-expert",
        "plain-quiet",
        "gated-expert",
        "gated-quiet",
    ]
    gated = study.condition("gated-quiet")
    assert gated.name == "Agent B" and gated.game_options == {"structure": "gates"}
    assert gated.levels == {"structure": "gated", "agent": "quiet"}
    assert study.design.kind == "within" and compiled.flow.rounds == 2
    orders = [compiled.assigner(u).order for u in range(4)]
    assert orders == [
        ["plain-expert", "plain-quiet"],
        ["plain-quiet", "plain-expert"],
        ["gated-expert", "gated-quiet"],
        ["gated-quiet", "gated-expert"],
    ]


def test_an_unbalanced_multi_factor_design_is_refused(tmp_path, capsys) -> None:
    err = lint_error(capsys, study_file(tmp_path, design=FACTORS.format(participants=6)))
    assert "design.participants=6 is an unbalanced multi-factor design: 2 between-subject" in err
    assert "use a multiple of 4 (e.g. 4 or 8)" in err


def test_factors_and_conditions_together_are_refused(tmp_path, capsys) -> None:
    design = CONDITIONS.split("design:")[0] + FACTORS.format(participants=4)
    assert "design.factors generates the conditions" in lint_error(
        capsys, study_file(tmp_path, design=design)
    )


# --- at run time -------------------------------------------------------------------------------


def _runtime(path: str, tmp_path: Path) -> StudyRuntime:
    compiled = compile_study(load_study(path))
    return StudyRuntime(compiled, open_database(compiled.loaded, tmp_path / "study.sqlite"))


def test_answers_set_state_pick_the_branch_and_fill_texts_escaped(tmp_path) -> None:
    rt = _runtime(study_file(tmp_path), tmp_path)

    async def run() -> tuple[str, str]:
        await rt.recover()
        low, _ = await rt.join()
        await rt.submit(low, {"node": "intake", "answers": {"skill": 2, "name": "*Ann* [x](y)"}})
        high, _ = await rt.join()
        await rt.submit(high, {"node": "intake", "answers": {"skill": 5}})
        return low, high

    low, high = run_coroutine(run())
    assert rt.node(low) == "help" and rt.logic.values(low)["state"]["level"] == "low"
    assert rt.node(high) == "rounds.play1" and rt.logic.values(high)["state"]["level"] == "high"
    html = rt.view(low)["html"]
    assert "<em>" not in html and "<a" not in html and "*Ann* [x](y)" in html
    # only changes are stored: "low" is the initial value
    assert [(e["pid"], e["data"]["values"]["level"]) for e in rt.db.events("state")] == [
        (high, "high")
    ]
    rt.shutdown()


def test_profile_from_and_prompt_shape_the_agent(tmp_path) -> None:
    """An intake answer picks the agent's profile through a state variable; the choice is an
    event of the round."""
    path = Path(study_file(tmp_path))
    profiles = "[cook-cramped_room-test-13, cook-cramped_room-test-01]"
    text = path.read_text().replace(
        "  wins: {type: number}\n",
        f"  wins: {{type: number}}\n  partner: {{type: choice, values: {profiles}}}\n",
    )
    text = text.replace(
        LEVEL,
        LEVEL + '\n      partner: \'"cook-cramped_room-test-01" if answers.intake.skill > 3 '
        'else "cook-cramped_room-test-13"\'',
    )
    text = text.replace(
        "agent: {kind: persona, profile: cook-cramped_room-test-13}}",
        "agent: {kind: persona, profile: cook-cramped_room-test-13}, profile_from: partner}",
    )
    path.write_text(text.replace("participants: 2", "participants: 2, kind: between"))
    rt = _runtime(str(path), tmp_path)

    async def run() -> None:
        await rt.recover()
        for _ in range(2):
            pid, _ = await rt.join()
            await rt.submit(pid, {"node": "intake", "answers": {"skill": 5}})

    run_coroutine(run())
    setups = rt.db.events("agent_setup")
    assert [e["data"]["profile"] for e in setups] == ["cook-cramped_room-test-01"]
    rt.shutdown()


def test_a_profile_from_that_is_no_profile_choice_is_refused(tmp_path, capsys) -> None:
    path = Path(study_file(tmp_path))
    path.write_text(
        path.read_text().replace(
            "agent: {kind: persona, profile: cook-cramped_room-test-13}}",
            "agent: {kind: persona, profile: cook-cramped_room-test-13}, profile_from: wins}",
        )
    )
    assert "give a choice variable whose values are profile ids" in lint_error(capsys, str(path))


def test_a_pretest_of_state_when_and_factors_exports_levels_state_and_process(tmp_path) -> None:
    """The shipped example (factors structure x agent, state set by answers and rounds, when
    branches, a custom component, an image) runs with simulated participants; every cell gets
    its share and the export carries factor levels, state and process metrics per round."""
    compiled = compile_study(load_study(str(EXAMPLE), [f"output_dir={tmp_path}"]))
    run_pretest(compiled, tmp_path / "pretest.sqlite", 8, progress=False)
    from collabrl.study.results.export import export_study

    db = open_database(compiled.loaded, tmp_path / "pretest.sqlite")
    export_study(compiled.loaded, db, tmp_path / "export")
    rows = list(csv.DictReader((tmp_path / "export" / "responses.csv").open()))
    assert len(rows) == 16  # 8 participants x 2 within-subject rounds
    columns = list(rows[0])  # a game round's columns, in the order they always had
    assert columns[: columns.index("process.work_agent")] == [
        *("study", "participant", "kind", "profile", "status", "group", "unit", "seat"),
        *("design", "order", "position", "condition", "condition_name", "agent", "task"),
        *("seed", "score", "success", "decisions", "messages", "stand_in_decisions", "rated"),
        *("structure", "factor.structure", "factor.agent", "state.experience", "state.wins"),
    ]
    after_process = columns[columns.index("process.gate_latency") + 1 :]
    assert after_process[:2] == ["q_help_plan", "q_help_talk"] and after_process[-1] == (
        "feedback.again"
    )
    cells = Counter(r["factor.structure"] for r in rows)
    assert cells == {"plain": 8, "gated": 8}
    assert {r["structure"] for r in rows if r["factor.structure"] == "gated"} == {"gates"}
    assert all(r["state.experience"] in ("novice", "cook") for r in rows)
    assert all(r["state.wins"] != "" and "process.work_total" in r for r in rows)
    assert all(r["intake.guess.confidence"] == "50.0" for r in rows)
    people = list(csv.DictReader((tmp_path / "export" / "participants.csv").open()))
    assert {p["status"] for p in people} == {"completed"} and "state.wins" in people[0]
    # each participant's route followed their state: novices saw the tips, cooks did not
    nodes: dict[str, list[str]] = {}
    for event in db.events("page_enter"):
        nodes.setdefault(event["pid"], []).append(event["node"])
    experience = {r["participant"]: r["state.experience"] for r in rows}
    for pid, seen in nodes.items():
        assert ("tips" in seen) == (experience[pid] == "novice")
    db.close()


def test_the_example_passes_lint(capsys) -> None:
    main(["study", "lint", str(EXAMPLE)])
    assert "structure (between, 2) x agent (within, 2)" in capsys.readouterr().out


class PromptRecorder:
    """An engine that records the conversations it is given and answers with a wait."""

    def __init__(self) -> None:
        self.conversations: list = []

    def get(self, spec):
        return self

    def generate(self, conversations, params):
        from collabrl.engines.types import Completion, GenerationResult

        self.conversations.extend(conversations)
        return [
            GenerationResult([Completion("<action>wait</action>", "stop")]) for _ in conversations
        ]


def test_an_intake_answer_shapes_the_llm_agents_persona(tmp_path) -> None:
    path = Path(study_file(tmp_path))
    llm = (
        "  - id: coach\n    name: Agent C\n    agent: {kind: llm, engine: {backend: openai, "
        "model: m}}\n    prompt: 'Your teammate is *{answers.intake.name}*, skill "
        "{answers.intake.skill} of 5 ({state.level}).'\n"
    )
    path.write_text(path.read_text().replace("conditions:\n", "conditions:\n" + llm))
    path.write_text(path.read_text().replace("participants: 2", "participants: 3"))
    rt = _runtime(str(path), tmp_path)
    recorder = PromptRecorder()
    rt.engines = recorder  # type: ignore[assignment]

    async def run() -> None:
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "intake", "answers": {"skill": 5, "name": "Ann"}})

    run_coroutine(run())
    (setup,) = rt.db.events("agent_setup")
    assert setup["data"]["prompt"] == "Your teammate is *Ann*, skill 5 of 5 (high)."
    assert recorder.conversations  # the agent decided at the round's start, in character
    system = recorder.conversations[0][0]["content"]
    assert "Your teammate is *Ann*, skill 5 of 5 (high)." in system
    rt.shutdown()


def test_group_state_is_set_once_per_round_and_exported(tmp_path) -> None:
    path = Path(study_file(tmp_path, state="  rounds_done: {type: number, scope: group}\n"))
    edit = path.read_text().replace(
        'set: {wins: "state.wins + (1 if result.success else 0)"}',
        'set: {wins: "state.wins + (1 if result.success else 0)", '
        'rounds_done: "group.rounds_done + 1"}',
    )
    path.write_text(edit)
    compiled = compile_study(load_study(str(path)))
    run_pretest(compiled, tmp_path / "pretest.sqlite", 2, progress=False)
    from collabrl.study.results.export import response_rows

    db = open_database(compiled.loaded, tmp_path / "pretest.sqlite")
    rows = response_rows(compiled.loaded, db)
    assert sorted((r["position"], r["group.rounds_done"]) for r in rows) == [
        (1, 1),
        (1, 1),
        (2, 2),
        (2, 2),
    ]
    group_events = [e for e in db.events("state") if e["data"]["scope"] == "group"]
    assert len(group_events) == 4  # two groups (one participant each) x two rounds
    db.close()


def test_a_set_that_fails_at_run_time_is_recorded_and_changes_nothing(tmp_path) -> None:
    """Lint refuses what it can enumerate; should an expression still fail for one participant,
    their state keeps its value, the failure is an event, and they go on."""
    rt = _runtime(study_file(tmp_path), tmp_path)
    intake = rt.study.page("intake")
    intake.set["level"] = "1 / 0"  # type: ignore[union-attr]

    async def run() -> str:
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "intake", "answers": {"skill": 5}})
        return pid

    pid = run_coroutine(run())
    (error,) = rt.db.events("logic_error")
    assert error["data"]["what"] == "set level" and "division by zero" in error["data"]["error"]
    assert rt.logic.values(pid)["state"]["level"] == "low" and rt.node(pid) == "help"
    rt.shutdown()


def test_state_and_answers_survive_a_restart(tmp_path) -> None:
    rt = _runtime(study_file(tmp_path), tmp_path)

    async def before() -> str:
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "intake", "answers": {"skill": 1, "name": "Bo"}})
        rt.shutdown()
        rt.db.close()
        return pid

    pid = run_coroutine(before())
    again = _runtime(study_file(tmp_path), tmp_path)
    run_coroutine(again.recover())
    assert again.node(pid) == "help" and "Some help for Bo." in again.view(pid)["html"]
    assert again.logic.values(pid)["answers"]["intake.skill"] == 1
    again.shutdown()


def test_the_bonus_reads_state_through_the_same_checks(tmp_path, capsys) -> None:
    path = Path(study_file(tmp_path))
    text = path.read_text()
    path.write_text(text + 'payment: {bonus: "0.5 * state.wins"}\n')
    main(["study", "lint", str(path)])
    path.write_text(text + 'payment: {bonus: "0.5 * state.win"}\n')
    err = lint_error(capsys, str(path))
    assert "payment.bonus '0.5 * state.win': unknown state variable 'win'" in err


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("design.factors.1.levels.1.agent={kind: persona}", "design.factors.1.levels.1.agent: a"),
        ("design.factors.0.levels=[{id: a}]", "design.factors.0.levels: List should have at least"),
        ("design.factors.0.levels.0.agent={kind: expert}", "agent comes from structure and agent"),
        ("design.factors.1.levels.0.agent=null", "one factor's levels must each give an agent"),
        ("design.kind=between", "design.kind: with factors the kind follows from them (within)"),
        ("design.factors.1.levels.1.round=chat", "condition plain-quiet: a chat round needs"),
        (
            "design.factors.1.levels.1.chat_agent={kind: scripted}",
            "design.factors.1.levels.1.chat_agent: chat agent Assistant: a scripted agent needs",
        ),
    ],
)
def test_factor_mistakes_name_their_place(capsys, override, message) -> None:
    with pytest.raises(SystemExit):
        main(["study", "lint", str(EXAMPLE), override])
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
