"""The defects a new user met on the real DiscoveryBench archaeology subset, each reproduced on a
small hand-made folder in its format: a decimal-comma cell with an exponent, a gold without
variables, a gold sentence without a leading clause (near the editor's limit), a free-text
workflow, CSVs named by many metadata files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from collabrl.envs.analysis import discoverybench
from collabrl.envs.analysis.discoverybench import load_discoverybench
from collabrl.envs.analysis.expert import AnalysisExpert, fit, sentence_of
from collabrl.envs.analysis.game import MAX_ARGUMENT
from collabrl.envs.analysis.language import Workspace
from collabrl.envs.analysis.scoring import score_hypothesis
from collabrl.envs.analysis.section import AnalysisSection
from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, frames, load_tasks
from collabrl.episode import play_episode

CAPITAL = """BCE,ZAmber,pc1
3400,"0,5","1,25"
3200,"0,75","-7,09880963797244E-05"
3000,"1,5","0,5"
2800,"0,25",
"""
LONG = (
    "Amber deposition and the first principal component of the pollen spectrum rise and fall "
    "together over the whole sequence of slices, which suggests that the exchange networks that "
    "brought amber to the region depended on the same agricultural surplus that opened the "
    "landscape, so that periods of clearance and periods of long-distance exchange coincide "
    "rather than follow one another in any consistent order across the record"
)
GOLDS = {
    0: "Around 3200 BCE, amber finds reach their lowest share.",
    1: LONG + ".",
}


def _metadata(qids: list[int], knowledge: str) -> dict:
    columns = [{"name": "BCE", "description": "Years BCE"},
               {"name": "ZAmber", "description": "Z values for amber"},
               {"name": "pc1", "description": "First principal component of the pollen"}]  # fmt: skip
    queries = [{"qid": q, "question": f"Question {q} about the slices?"} for q in qids]
    return {
        "datasets": [
            {"name": "capital.csv", "description": "Slices.", "columns": {"raw": columns}}
        ],
        "queries": [queries],
        "domain_knowledge": knowledge,
        "workflow_tags": "correlation, time series",
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "db" / "archaeology"
    folder.mkdir(parents=True)
    (folder / "capital.csv").write_text(CAPITAL)
    for n, qids in enumerate([[0], [1]]):
        meta = _metadata(qids, "1. Years are BCE. 2. pc1 tracks clearance.")
        (folder / f"metadata_{n}.json").write_text(json.dumps(meta))
    rows = ["dataset,metadataid,query_id,gold_hypo"]
    rows += [f'archaeology,{n},{n},"{GOLDS[n]}"' for n in GOLDS]
    (tmp_path / "db" / "answer_key.csv").write_text("\n".join(rows) + "\n")
    return tmp_path / "db"


@pytest.fixture
def registered(root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder's tasks playable by name, as through ``COLLABRL_DISCOVERYBENCH``."""
    monkeypatch.setenv(DISCOVERYBENCH_ENV, str(root))
    load_tasks.cache_clear()
    yield root
    load_tasks.cache_clear()


def test_a_decimal_comma_with_an_exponent_keeps_the_column_numeric(root: Path) -> None:
    task = load_discoverybench(root)[0]
    (table,) = task.tables
    assert [row[2] for row in table.rows] == [1.25, -7.09880963797244e-05, 0.5, None]
    assert [row[1] for row in table.rows] == [0.5, 0.75, 1.5, 0.25]
    workspace = Workspace(frames(task))
    assert workspace.run("r1 = filter(capital, pc1 > 0)").error is None
    assert workspace.run("extrema(capital, pc1, BCE, min)").value == 3200


def test_a_gold_without_variables_scores_one_against_itself(root: Path) -> None:
    bare = load_discoverybench(root)[1]
    assert bare.gold.variables == []  # neither the query nor the sentence names a column
    assert score_hypothesis(bare.gold, bare.gold).hms == 1.0
    named = load_discoverybench(root)[0]
    assert named.gold.variables == ["BCE"]  # the sentence names a column


def test_tables_are_read_once_and_shared(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[object] = []
    read_csv = pd.read_csv
    monkeypatch.setattr(discoverybench.pd, "read_csv", lambda *a, **k: reads.append(a) or read_csv(*a, **k))  # fmt: skip
    first, second = load_discoverybench(root)
    assert len(reads) == 1 and first.tables[0] is second.tables[0]


def test_the_sentence_is_not_doubled_and_fits_the_editor() -> None:
    assert sentence_of("Around 1100 BCE", "hoards wane") == "Around 1100 BCE, hoards wane."
    assert sentence_of("the Brack fens", "pollen peaks") == "In the Brack fens, pollen peaks."
    assert sentence_of(LONG, LONG) == LONG[0].upper() + LONG[1:] + "."
    long = "word " * 200
    assert len(fit(long)) <= MAX_ARGUMENT and fit(long).endswith("word")
    assert fit("short  text") == "short text"


@pytest.mark.parametrize("task", ["archaeology-0-0", "archaeology-1-1"])
def test_the_reference_analyst_submits_a_real_task_without_wasted_work(
    registered: Path, task: str
) -> None:
    game = AnalysisSection(task=task).make_game()
    record = play_episode(game, {"Ada": AnalysisExpert(), "Bea": AnalysisExpert()}, seed=0)
    summary = record.summary
    assert summary["outcome"] == "submitted" and summary["score"] == 1.0
    assert summary["notebook"] == [] and not any(e["wasted"] for e in summary["trace"])
    sentence = summary["hypothesis"]["sentence"]
    assert len(sentence) <= MAX_ARGUMENT and not sentence.startswith("In Around")
    assert summary["steps"] < 20
