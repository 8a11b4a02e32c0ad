"""The pretest answers a required free-text question (issue 49, item 6): a simulated participant
that left it empty was refused three times and the pretest stopped with a false "live
participants would be stuck there too"."""

from __future__ import annotations

from collabrl.study.pretest.run import run_pretest
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database

SURVEY_ONLY = """name: free_text_study
pages:
  - id: intake
    kind: survey
    questions:
      - {id: feedback, text: "What did you think?", kind: text, max_chars: 5}
      - {id: age, text: "Your age", kind: number, min: 18, max: 99}
  - {id: done, kind: end}
output_dir: OUT
"""


def test_a_required_free_text_question_is_answered(tmp_path) -> None:
    path = tmp_path / "free_text_study.yaml"
    path.write_text(SURVEY_ONLY.replace("OUT", str(tmp_path / "runs")))
    study = compile_study(load_study(str(path)))
    run_pretest(study, tmp_path / "db.sqlite", 2, progress=False)
    db = open_database(study.loaded, tmp_path / "db.sqlite")
    answers = [e["data"]["answers"] for e in db.events("answers")]
    db.close()
    assert len(answers) == 2
    assert all(0 < len(a["feedback"]) <= 5 for a in answers)
