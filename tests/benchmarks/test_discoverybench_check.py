"""benchmarks/discoverybench_check.py on the hand-made DiscoveryBench folder: the published
layout (answer key in ``<repo>/eval/``) loads, the checks pass on a sound folder and fail on a
column read as text, and each perturbation of a gold scores below 0.9."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from collabrl.envs.analysis.counterclaims import counterclaims
from collabrl.envs.analysis.discoverybench import load_discoverybench
from collabrl.envs.analysis.schema import Hypothesis
from collabrl.envs.analysis.scoring import score_hypothesis
from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, load_tasks
from collabrl.errors import CollabrlError

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "discoverybench"
sys.path.insert(0, str(ROOT / "benchmarks"))

import discoverybench_check as check  # noqa: E402


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """The fixture in allenai/discoverybench's layout: tasks under discoverybench/real/test,
    the answer key in eval/answer_key_real.csv; returns the tasks' root."""
    tasks = tmp_path / "discoverybench" / "real" / "test"
    shutil.copytree(FIXTURE / "archaeology", tasks / "archaeology")
    (tmp_path / "eval").mkdir()
    shutil.copy(FIXTURE / "answer_key.csv", tmp_path / "eval" / "answer_key_real.csv")
    return tasks


def test_the_published_layout_finds_its_answer_key(published: Path, tmp_path: Path) -> None:
    tasks = load_discoverybench(published)
    assert [t.name for t in tasks] == ["archaeology-0-0", "archaeology-0-1", "archaeology-1-0"]
    assert tasks[2].gold.sentence == "Dagger deposition is highest around 2400 BCE."
    shutil.copy(
        tmp_path / "eval" / "answer_key_real.csv", tmp_path / "eval" / "answer_key_synth.csv"
    )
    assert len(load_discoverybench(published)) == 3  # synth is not this root's split
    (tmp_path / "eval" / "answer_key_real.csv").unlink()
    (tmp_path / "eval" / "answer_key_synth.csv").unlink()
    with pytest.raises(CollabrlError, match="no answer_key"):
        load_discoverybench(published)


def test_the_checks_pass_on_a_sound_folder() -> None:
    tasks = load_discoverybench(FIXTURE)
    folders = {t.name: FIXTURE / t.domain for t in tasks}
    cells = check.check_cells(tasks, folders)
    assert (cells.passed, cells.failures) == (11, [])  # 6 + 5 columns, each table once
    assert check.check_gold(tasks).failures == []
    perturbed, applied = check.check_perturbations(tasks)
    assert perturbed.failures == [] and perturbed.passed == 10
    assert applied == {"first/second": 1, "increase/decrease": 3, "wrong period": 3, "negated": 3}


def test_a_column_read_as_text_fails_the_cell_check() -> None:
    task = load_discoverybench(FIXTURE)[0]
    table = task.tables[0]
    rows = [[*row[:3], None if row[3] is None else str(row[3]), *row[4:]] for row in table.rows]
    broken = task.model_copy(update={"tables": [table.model_copy(update={"rows": rows})]})
    cells = check.check_cells([broken], {task.name: FIXTURE / "archaeology"})
    assert cells.passed == 5 and len(cells.failures) == 1
    assert cells.failures[0].startswith("pollen_core.csv:openness: 10 cells differ")


GOLD = Hypothesis(
    context="Around 3800 BCE",
    variables=["openness"],
    relation="landscape openness rises for the first time",
    sentence="Around 3800 BCE, landscape openness rises for the first time.",
)


def test_each_perturbation_states_another_claim() -> None:
    changed = counterclaims(GOLD)
    assert {k: h.sentence for k, h in changed.items()} == {
        "first/second": "Around 3800 BCE, landscape openness rises for the second time.",
        "increase/decrease": "Around 3800 BCE, landscape openness decreases for the first time.",
        "wrong period": "Around 4000 BCE, landscape openness rises for the first time.",
        "negated": "Around 3800 BCE, it is not the case that landscape openness rises for the "
        "first time.",
    }
    assert [score_hypothesis(h, GOLD).hms for h in changed.values()] == [0.0] * 4


def test_a_gold_without_a_leading_clause_changes_in_every_field() -> None:
    whole = "Dagger deposition is highest around 2400 BCE"
    gold = Hypothesis(context=whole, variables=[], relation=whole, sentence=whole + ".")
    changed = counterclaims(gold)
    assert sorted(changed) == ["increase/decrease", "negated", "wrong period"]
    period = changed["wrong period"]
    assert period.context == period.relation == "Dagger deposition is highest around 2600 BCE"
    assert all(score_hypothesis(h, gold).hms == 0.0 for h in changed.values())


def test_the_judge_reads_every_played_episode_free_text_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two derived workflows and one free text ("time series, peak detection"): all three read;
    the analyst runs no cell on the free-text task, so it covers none of it."""
    monkeypatch.setenv(DISCOVERYBENCH_ENV, str(FIXTURE))
    load_tasks.cache_clear()
    try:
        play, judge, _scores, judgements = check.check_play(
            [t for t in load_tasks() if t.name.startswith("archaeology-")]
        )
    finally:
        load_tasks.cache_clear()
    assert (play.failures, judge.failures, judge.passed) == ([], [], 3)
    assert [j["workflow_coverage"] for j in judgements] == [1.0, 0.0, 1.0]
