"""Study files: the shipped ones compile; every mistake is one line from `collabrl study lint`."""

from __future__ import annotations

import sys

import pytest

from collabrl.cli import main
from collabrl.errors import CollabrlError
from collabrl.study.spec.load import load_study, shipped_studies
from tests.study.helpers import compiled


def lint(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(["study", "lint", *args])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_shipped_studies(capsys) -> None:
    assert {"paper_user_study", "paper_user_study_cpu", "household_group_study"} <= set(
        shipped_studies()
    )
    code, out, err = lint(capsys, "paper_user_study_cpu", "--graph")
    assert code == 0
    assert "rounds.rate3: --page timeout--> timed_out; --submit--> done" in out
    assert "3 order(s) x 3 task(s), balanced every 3 session(s)" in err
    code, out, _ = lint(capsys, "household_group_study")
    assert code == 0 and "kind: match" in out
    study = compiled("paper_user_study_cpu").study
    dims = [item.dimension for item in study.questionnaire.items]
    assert dims == ["helpfulness", "helpfulness", "trustfulness", "trustfulness", "empathy"]
    assert study.tasks == ["0_read_book", "20_prepare_food", "40_setup_table"]  # from the base


def test_the_paper_study_names_checkpoints_that_can_be_overridden(tmp_path, capsys) -> None:
    code, _, err = lint(capsys, "paper_user_study")
    assert code == 2 and err.count("\n") == 1
    assert "conditions.1 (no_affective): checkpoint 'checkpoints/cwah_gigpo_no_affective'" in err
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    code, out, _ = lint(
        capsys,
        "paper_user_study",
        f"conditions.1.agent.engine.model={tmp_path / 'a'}",
        f"conditions.2.agent.engine.model={tmp_path / 'b'}",
    )
    assert code == 0 and str(tmp_path / "a") in out


BAD = {
    "design.participants=16": "design.participants=16 is unbalanced",
    "conditions.0.agent.profile=nope": "unknown profile id 'nope'",
    "conditions.0.agent.kind=human": "an agent cannot be kind human",
    "conditions.1.id=base": "conditions: ids must be unique",
    "pages.2.next=nowhere": "continue leads to unknown page 'nowhere'",
    "pages.0.decline_to=done;pages.5.next=consent": "unreachable from consent: declined",
    "pages.2.next=consent": "unreachable",
    "timers.release_to=instructions": "'instructions' must be an end page",
    "tasks=[0_read_book,99_nothing]": "tasks:",
    "seats.humans=[Bob]": "seats: humans + agents must name each game seat once",
    "questionnaire.template=null;questionnaire.items=[]": "questionnaire: no items",
    "pages.3.kind=text": "conditions: listed, but no page of kind conditions plays them",
    "design.kind=between;conditions=[{id: a, name: A, agent: {kind: expert}}]": "at least two",
    "pages.1.questions.0.kind=choice;pages.1.questions.0.options=[]": "at least two options",
    "pages.4.bogus=1": "pages.4 (end page): unknown key 'bogus'",
}


@pytest.mark.parametrize("overrides", list(BAD))
def test_bad_studies_are_one_line_errors(overrides: str, capsys) -> None:
    code, _, err = lint(capsys, "paper_user_study_cpu", *overrides.split(";"))
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert BAD[overrides] in err


def test_a_group_study_needs_a_waiting_room(tmp_path) -> None:
    text = tmp_path / "s.yaml"
    text.write_text(
        "base: household_group_study\npages:\n  - {id: c, kind: consent, decline_to: e}\n"
        "  - {id: r, kind: conditions}\n  - {id: e, kind: end}\n"
    )
    with pytest.raises(CollabrlError, match="2 human seats, .* reach r without a match page"):
        compiled(str(text))


LIMBO = """base: paper_user_study_cpu
timers: {page_s: null, release_to: null}
pages:
  - {id: consent, kind: consent, decline_to: declined}
  - id: intake
    kind: survey
    questions: [{id: q, text: Which one, kind: choice, options: [a, b]}]
    branches: [{question: q, equals: b, to: limbo}]
  - {id: rounds, kind: conditions}
  - {id: done, kind: end}
  - {id: declined, kind: end}
  - {id: limbo, kind: text, next: limbo}
"""


def test_a_loop_without_an_exit_and_a_cyclic_base(tmp_path) -> None:
    (tmp_path / "limbo.yaml").write_text(LIMBO)
    with pytest.raises(CollabrlError, match="no end page can be reached from limbo"):
        compiled(str(tmp_path / "limbo.yaml"))
    (tmp_path / "a.yaml").write_text("base: b.yaml\nname: a\n")
    (tmp_path / "b.yaml").write_text("base: a.yaml\nname: b\n")
    with pytest.raises(CollabrlError, match="cycle"):
        load_study(str(tmp_path / "a.yaml"))


@pytest.mark.parametrize("command", ["report", "pretest"])
def test_a_missing_study_extra_is_one_line_naming_it(capsys, monkeypatch, command) -> None:
    package = "markdown_it"  # SciPy, which the report also uses, is a core dependency
    monkeypatch.setitem(sys.modules, package, None)  # as if not installed
    with pytest.raises(SystemExit) as exit_:
        main(["study", command, "paper_user_study_cpu"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err == (
        f"error: collabrl study {command} needs the '{package}' package: "
        "pip install 'collabrl[study]'\n"
    )
