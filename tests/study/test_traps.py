"""Lint refuses the study files that would trap real participants (issue 33), each with one line
naming the page or question; the pretest stops with a clear error instead of hanging.

The files are a researcher's own kitchen study: within subjects, the expert against a quiet
persona, consent, an intake survey with a branch, two rounds, the questionnaire and a code.
"""

from __future__ import annotations

import pytest

from collabrl.cli import main
from collabrl.errors import CollabrlError
from collabrl.study.pretest.run import PretestStuck, run_pretest
from collabrl.study.spec import compile as compile_module
from tests.study.helpers import compiled

KITCHEN = """name: kitchen_study
title: Cooking with an AI teammate
game: {{name: kitchen, layout: cramped_room, horizon: 12}}
seats: {{humans: ["Player 0"], agents: ["Player 1"]}}
conditions:
  - {{id: expert, name: Agent A, agent: {{kind: expert}}}}
  - {{id: quiet, name: Agent B, agent: {{kind: persona, profile: cook-cramped_room-test-13}}}}
design: {{kind: within, participants: 2}}
pages:
  - {{id: consent, kind: consent, decline_to: declined}}
  - id: intake
    kind: survey
    questions:
{questions}
    branches:
{branches}
  - {{id: instructions, kind: text, text: "Cook onion soup with your partner."}}
  - {{id: rounds, kind: conditions}}
  - {{id: done, kind: end}}
  - {{id: declined, kind: end, outcome: declined, show_code: false}}
{extra}questionnaire: {{template: collabbench}}
completion: {{code: KITCHEN-1}}
"""

COOKS = '      - {id: cooks, text: "Do you cook?", kind: choice, options: ["yes", "no"]}'
AGE = "      - {id: age, text: Your age, kind: number, min: 18, max: 99}"
TO_TIPS = '      - {question: cooks, equals: "no", to: tips}'
TIPS = '  - {id: tips, kind: text, text: "A soup needs three onions.", next: instructions}\n'


def study_file(tmp_path, questions=(COOKS, AGE), branches=(TO_TIPS,), extra=TIPS) -> str:
    path = tmp_path / "kitchen_study.yaml"
    path.write_text(
        KITCHEN.format(
            questions="\n".join(questions),
            branches="\n".join(branches) or "      []",
            extra=extra,
        )
        + f"output_dir: {tmp_path / 'runs'}\n"
    )
    return str(path)


def lint_error(capsys, path: str, *overrides: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["study", "lint", path, *overrides])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_the_researchers_study_passes(tmp_path, capsys) -> None:
    main(["study", "lint", study_file(tmp_path), "--graph"])
    out = capsys.readouterr().out
    assert "intake: --cooks=no--> tips; --submit--> instructions" in out


# --- the three broken files of the issue -------------------------------------------------------


def test_duplicate_question_ids_are_refused(tmp_path, capsys) -> None:
    """Two questions with one id become one radio group: the page can never be sent."""
    twice = AGE.replace("id: age", "id: cooks")
    err = lint_error(capsys, study_file(tmp_path, questions=(COOKS, twice)))
    assert "page intake: question ids must be unique; repeated: ['cooks']" in err


def test_a_branch_value_that_is_not_an_option_is_refused(tmp_path, capsys) -> None:
    """``equals: "No"`` against the option ``no`` never fires."""
    wrong = TO_TIPS.replace('"no"', '"No"')
    err = lint_error(capsys, study_file(tmp_path, branches=(wrong,)))
    assert "page intake: branches.0 never fires: cooks equals 'No' is not one of its options" in err
    assert "did you mean 'no'?" in err


def test_a_loop_taken_for_one_answer_is_refused(tmp_path, capsys) -> None:
    """survey -> instructions -> survey for "no": that participant never leaves."""
    back = '  - {id: tips, kind: text, text: "Read again.", next: intake}\n'
    err = lint_error(capsys, study_file(tmp_path, extra=back))
    assert (
        "pages: a participant who answers cooks=no on intake loops forever: "
        "consent -> intake -> tips -> intake" in err
    )


# --- ids at every level -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "pages.1.questions.0.options=[often,never,never]",
            "question cooks: options repeat: ['never']",
        ),
        ("pages.3.id=intake", "pages: ids must be unique; repeated: ['intake']"),
        ("conditions.1.id=expert", "conditions: ids must be unique; repeated: ['expert']"),
        (
            "questionnaire.items=[{id: empathy, dimension: empathy, text: Kind}]",
            "questionnaire: item ids must be unique; repeated: ['empathy']",
        ),
        ("tasks=[cramped_room,cramped_room]", "tasks: ids must be unique"),
        ("privacy.url_fields=[PID,PID]", "privacy.url_fields: ids must be unique"),
    ],
)
def test_repeated_ids_are_refused_at_every_level(tmp_path, capsys, override, message) -> None:
    assert message in lint_error(capsys, study_file(tmp_path), override)


def test_a_branch_repeating_an_earlier_one_is_refused(tmp_path, capsys) -> None:
    again = TO_TIPS.replace("to: tips", "to: instructions")
    err = lint_error(capsys, study_file(tmp_path, branches=(TO_TIPS, again)))
    assert "page intake: two branches take cooks=no; only the first fires" in err


# --- branch values against every kind of question ----------------------------------------------


@pytest.mark.parametrize(
    ("question", "equals", "message"),
    [
        ("{id: q, text: Q, kind: likert}", "7", "7 is not a point of its scale (1 to 5)"),
        ("{id: q, text: Q, kind: likert}", '"3"', "'3' is text, the answer is a number"),
        ("{id: q, text: Q, kind: number, min: 0, max: 10}", "11", "outside its range (0.0 to"),
        ("{id: q, text: Q, kind: text}", "4", "4 is a number, the answer is text"),
    ],
)
def test_branch_values_fit_the_question_kind(tmp_path, capsys, question, equals, message) -> None:
    path = study_file(
        tmp_path,
        questions=(f"      - {question}",),
        branches=(f"      - {{question: q, equals: {equals}, to: tips}}",),
    )
    err = lint_error(capsys, path)
    assert "page intake: branches.0 never fires: q equals " in err and message in err


def test_a_likert_or_text_branch_that_can_fire_passes(tmp_path) -> None:
    path = study_file(
        tmp_path,
        questions=(
            "      - {id: q, text: Q, kind: likert}",
            "      - {id: t, text: T, kind: text}",
        ),
        branches=(
            "      - {question: q, equals: 1, to: tips}",
            "      - {question: t, equals: help, to: tips}",
        ),
    )
    assert compiled(path).flow.after_survey(compiled(path).study.pages[1], {"q": 1}) == "tips"


# --- the YAML boolean trap ---------------------------------------------------------------------


def test_unquoted_yes_no_options_say_they_are_booleans(tmp_path, capsys) -> None:
    unquoted = COOKS.replace('["yes", "no"]', "[yes, no]")
    err = lint_error(capsys, study_file(tmp_path, questions=(unquoted, AGE)))
    assert "question cooks: options [true, false] hold booleans" in err
    assert (
        'unquoted yes/no/on/off/true/false are YAML booleans, not words: quote them ("yes")' in err
    )


def test_an_unquoted_yes_branch_value_says_it_is_a_boolean(tmp_path, capsys) -> None:
    unquoted = TO_TIPS.replace('"no"', "no")
    err = lint_error(capsys, study_file(tmp_path, branches=(unquoted,)))
    assert "branch on cooks: equals is the boolean false: unquoted yes/no" in err


# --- every path, for every answer ---------------------------------------------------------------


def test_a_page_that_every_answer_branches_past_is_unreachable(tmp_path, capsys) -> None:
    """Both options branch to tips, so the survey's own next page (instructions) is only
    reached through tips; a page reached by no answer at all is refused."""
    both = (TO_TIPS, TO_TIPS.replace('"no"', '"yes"').replace("to: tips", "to: rounds"))
    extra = TIPS.replace("next: instructions", "next: rounds")
    err = lint_error(capsys, study_file(tmp_path, branches=both, extra=extra))
    assert "pages: no participant reaches instructions, whatever they answer" in err


def test_a_loop_through_declining_consent_is_refused(tmp_path, capsys) -> None:
    """Declining leads to a second consent page; agreeing there leads back to the first: who
    declines the first and agrees to the second never leaves."""
    extra = TIPS + "  - {id: why, kind: consent, decline_to: declined, next: consent}\n"
    err = lint_error(capsys, study_file(tmp_path, extra=extra), "pages.0.decline_to=why")
    assert (
        "pages: a participant who declines on consent; agrees on why loops forever: "
        "consent -> why -> consent" in err
    )


def test_a_loop_needing_two_answers_names_both(tmp_path, capsys) -> None:
    extra = (
        "  - id: more\n    kind: survey\n"
        '    questions: [{id: hungry, text: "Hungry?", kind: choice, options: ["a", "b"]}]\n'
        '    branches: [{question: hungry, equals: "b", to: intake}]\n'
        "    next: instructions\n"
    )
    err = lint_error(
        capsys, study_file(tmp_path, branches=(TO_TIPS.replace("tips", "more"),), extra=extra)
    )
    assert (
        "a participant who answers cooks=no on intake; answers hungry=b on more loops forever: "
        "consent -> intake -> more -> intake" in err
    )


def test_the_shipped_studies_have_no_trap() -> None:
    for name in ("paper_user_study_cpu", "household_group_study"):
        compiled(name)


# --- the pretest never hangs silently ---------------------------------------------------------


def test_a_pretest_stops_on_a_page_that_refuses_every_answer(tmp_path) -> None:
    """Were a file with repeated question ids to get past lint, the pretest would stop with the
    page named instead of waiting for ever."""
    study = compiled(study_file(tmp_path, branches=(), extra=""))
    questions = study.study.pages[1].questions
    questions.append(questions[1].model_copy(update={"id": "cooks"}))  # behind lint's back
    with pytest.raises(PretestStuck, match="participant 0 is stuck at page intake: it refused 3"):
        run_pretest(study, tmp_path / "db.sqlite", 1, progress=False)


def test_a_pretest_stops_on_a_loop(tmp_path, monkeypatch) -> None:
    """Were a loop to get past lint, the pretest would stop after a bounded number of pages."""
    monkeypatch.setattr(compile_module, "_check_paths", lambda flow: None)
    both = (TO_TIPS, TO_TIPS.replace('"no"', '"yes"'))
    extra = '  - {id: tips, kind: text, text: "Read again.", next: intake}\n'
    study = compiled(study_file(tmp_path, questions=(COOKS,), branches=both, extra=extra))
    with pytest.raises(
        PretestStuck, match=r"pages without reaching an end page \(\.\.\. .*intake -> tips"
    ):
        run_pretest(study, tmp_path / "db.sqlite", 1, progress=False)


def test_the_pretest_cli_refuses_a_trap_before_running(tmp_path, capsys) -> None:
    back = '  - {id: tips, kind: text, text: "Read again.", next: intake}\n'
    with pytest.raises(SystemExit):
        main(["study", "pretest", study_file(tmp_path, extra=back)])
    assert "loops forever" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_errors_are_collabrl_errors(tmp_path) -> None:
    twice = AGE.replace("id: age", "id: cooks")
    with pytest.raises(CollabrlError, match="question ids must be unique"):
        compiled(study_file(tmp_path, questions=(COOKS, twice)))
