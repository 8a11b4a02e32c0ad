"""The analysis game's tasks: the shipped set (split, content, equality with the generator, every
workflow and trap run in the analysis language), the schema's checks, and the DiscoveryBench
folder-format loader on its fixture and on broken copies of it."""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import pandas as pd
import pytest
from pydantic import ValidationError

from collabrl.envs.analysis.claims import same_claim
from collabrl.envs.analysis.discoverybench import identifier, load_discoverybench, role_of
from collabrl.envs.analysis.language import Workspace
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import (
    AnalysisTask,
    Role,
    Table,
    TrapKind,
    frames,
    get_task,
    load_tasks,
    task_names,
)
from collabrl.errors import CollabrlError, UnknownNameError

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "make_analysis_tasks.py"
FIXTURE = ROOT / "tests" / "fixtures" / "discoverybench"
TASKS = load_tasks()


@functools.cache
def _script() -> ModuleType:
    """The generator script as a module (registered first: its dataclasses look it up), with
    ``scripts/`` on the import path as when it runs (its ``analysis_tasks`` package)."""
    if str(SCRIPT.parent) not in sys.path:
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("make_analysis_tasks", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(task: AnalysisTask, replaced: dict[int, str] | None = None) -> Any:
    """The workflow's last value, some steps replaced; every step must run."""
    workspace = Workspace(frames(task))
    outcome = None
    for index, step in enumerate(task.workflow):
        outcome = workspace.run((replaced or {}).get(index, step.step))
        assert outcome.error is None, f"{task.name} step {index}: {outcome.error}"
    assert outcome is not None and outcome.table is None, f"{task.name}: last step is no scalar"
    return outcome.value


# ---------------------------------------------------------------------------- the shipped set


def test_shipped_file_equals_the_generator_and_check_passes(capsys) -> None:
    module = _script()
    assert module.main(["--check"]) == 0
    assert "out of date" not in capsys.readouterr().out
    from analysis_tasks.checking import SHIPPED_DEFAULTS

    shipped = [t.model_dump(mode="json", exclude=SHIPPED_DEFAULTS) for t in TASKS]
    assert json.loads(module.build()["tasks.json"]) == shipped


def test_check_reports_a_stale_file(tmp_path: Path, capsys) -> None:
    (tmp_path / "tasks.json").write_text("[]\n")
    assert _script().main(["--check", "--out", str(tmp_path)]) == 1
    assert "out of date: tasks.json" in capsys.readouterr().out


def test_splits_names_and_lookup() -> None:
    test, train = task_names("test"), task_names("train")
    assert len(test) == 38 and len(train) >= 40
    assert test == tuple(f"arch-test-{i:02d}" for i in range(1, 39))
    assert train == tuple(f"arch-train-{i:02d}" for i in range(1, len(train) + 1))
    assert len(set(task_names())) == len(TASKS) == len(test) + len(train)
    assert get_task("arch-test-07").name == "arch-test-07"
    assert get_task("arch-train-01").split == "train"
    with pytest.raises(ValueError, match="unknown split"):
        task_names("dev")  # type: ignore[arg-type]


def test_unknown_task_is_one_line_with_examples() -> None:
    with pytest.raises(UnknownNameError) as caught:
        get_task("arch-test-99")
    message = str(caught.value)
    assert "'arch-test-99'" in message and "arch-test-01" in message and "\n" not in message
    assert isinstance(caught.value, KeyError)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_reference_workflow_words_the_gold_relation(task: AnalysisTask) -> None:
    value = run(task)
    assert task.relation_template.format(value=value) == task.gold.relation
    assert task.gold.relation in task.gold.sentence
    for index, step in enumerate(task.workflow):
        for alternative in step.alternatives:
            assert run(task, {index: alternative}) == value, alternative


@pytest.mark.parametrize("task", [t for t in TASKS if t.traps], ids=lambda t: t.name)
def test_every_trap_and_combination_of_traps_words_another_relation(task: AnalysisTask) -> None:
    gold = normalise(task.gold.relation)
    for size in range(1, len(task.traps) + 1):
        for chosen in itertools.combinations(task.traps, size):
            value = run(task, {t.at: t.naive_step for t in chosen})
            wrong = task.relation_template.format(value=value)
            assert normalise(wrong) != gold, chosen
            assert not same_claim(wrong, task.gold.relation), chosen


def test_notes_roles_and_trap_notes() -> None:
    roles = set(get_args(Role))
    for task in TASKS:
        ids = [n.id for n in task.notes]
        assert 2 <= len(task.notes) <= 4 and len(set(ids)) == len(ids), task.name
        assert {n.role for n in task.notes} <= roles
        assert len({n.role for n in task.notes}) >= 2, f"{task.name}: one seat holds everything"
        for trap in task.traps:
            assert trap.note in ids and 0 <= trap.at < len(task.workflow)
        trap_roles = [next(n.role for n in task.notes if n.id == t.note) for t in task.traps]
        assert len(set(trap_roles)) == len(trap_roles), f"{task.name}: two traps, one seat"


def test_every_trap_kind_and_trap_free_tasks_in_both_splits() -> None:
    for split in ("test", "train"):
        tasks = [t for t in TASKS if t.split == split]
        kinds = Counter(trap.kind for t in tasks for trap in t.traps)
        assert set(kinds) == set(get_args(TrapKind)), split
        assert all(n >= 5 for n in kinds.values()), kinds
        assert sum(not t.traps for t in tasks) >= 4
        assert sum(len(t.traps) == 2 for t in tasks) >= 4
        assert all(len(t.traps) <= 2 for t in tasks)


def test_tables_are_small_and_few() -> None:
    for task in TASKS:
        assert 1 <= len(task.tables) <= 2
        for table in task.tables:
            assert 8 <= len(table.rows) <= 60 and 2 <= len(table.columns) <= 6, task.name
            assert all(c.description for c in table.columns)


def test_frames_are_fresh_dataframes_with_missing_cells() -> None:
    task = next(t for t in TASKS if any(None in r for tb in t.tables for r in tb.rows))
    first = frames(task)
    table = next(tb for tb in task.tables if any(None in r for r in tb.rows))
    frame = first[table.name]
    assert list(frame.columns) == [c.name for c in table.columns] and len(frame) == len(table.rows)
    assert frame.isna().to_numpy().sum() == sum(r.count(None) for r in table.rows)
    frame.iloc[0, 0] = -1
    assert frames(task)[table.name].iloc[0, 0] != -1


# ---------------------------------------------------------------------------- the schema's checks


def _record() -> dict[str, Any]:
    return TASKS[0].model_dump(mode="json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["tables"][0]["rows"][0].append(1), "row 0 has"),
        (lambda r: r["tables"][0]["columns"][0].update(name="year bce"), "not an identifier"),
        (lambda r: r["tables"].append(r["tables"][0]), "table names must be distinct"),
        (lambda r: r["notes"].append(r["notes"][0]), "note ids must be distinct"),
        (lambda r: r["traps"][0].update(note="n9"), "not a note"),
        (lambda r: r["traps"][0].update(at=5), "not a step"),
        (lambda r: r.update(relation_template="{value} in {unit}"), "only {value}"),
        (lambda r: r.update(workflow=[], traps=[]), "at least one step"),
    ],
)
def test_schema_refuses_dangling_references(change, message: str) -> None:
    record = _record()
    change(record)
    with pytest.raises(ValidationError, match=re.escape(message)):
        AnalysisTask.model_validate(record)


# ---------------------------------------------------------------------------- DiscoveryBench format


def test_discoverybench_fixture_maps_onto_tasks() -> None:
    tasks = load_discoverybench(FIXTURE)
    assert [t.name for t in tasks] == ["archaeology-0-0", "archaeology-0-1", "archaeology-1-0"]
    first = tasks[0]
    assert first.domain == "archaeology" and first.split == "test" and not first.traps
    assert first.query == "When did landscape openness first peak in the core?"
    pollen, capital = first.tables
    assert pollen.name == "pollen_core" and capital.name == "capital_phases"
    assert [c.name for c in pollen.columns][:3] == ["Unnamed_0", "calBP", "BCE"]
    assert pollen.columns[0].description.startswith("Row index written by the export")
    assert pollen.rows[0] == [0, 5950, 4000, 1.12, 1.12, 1.12]  # decimal commas read
    assert pollen.rows[1][3] is None  # an empty cell is missing
    assert "phase_name" in [c.name for c in capital.columns]
    assert "(CSV header 'phase name')" in capital.columns[1].description
    assert [(n.role, n.text[:12]) for n in first.notes] == [
        ("materials", "Daggers and "),
        ("materials", "The openness"),
        ("statistics", "The smoothed"),
        ("chronology", "Years are gi"),
        ("statistics", "The query's "),  # D's and R's guidance (test_real_workflows.py)
        ("chronology", "Years here a"),
    ]
    assert first.gold.model_dump() == {
        "context": "Around 3800 BCE",
        "variables": ["BCE", "openness"],
        "relation": "landscape openness reaches its first peak",
        "sentence": "Around 3800 BCE, landscape openness reaches its first peak.",
    }
    assert first.relation_template.format(value=None) == first.gold.relation
    # a workflow derived from the query ("first peak" read as the highest: not the gold's year)
    assert first.workflow[0].step == "extrema(pollen_core, openness, BCE, max)"
    assert tasks[1].workflow[0].step == "time series, peak detection"  # no workflow: the tags
    assert "does not run" in tasks[1].workflow[0].why
    last = tasks[2]
    assert last.gold.context == last.gold.relation == "Dagger deposition is highest around 2400 BCE"
    assert last.gold.variables == ["ZDagger", "BCE"]  # the query's relevant_cols
    assert last.workflow[0].step == "extrema(capital_phases, ZDagger, BCE, max)"
    assert [n.text for n in last.notes][1] == (
        "Pottery decoration diversity counts distinct motifs per slice."
    )
    assert Workspace(frames(first)).run("extrema(pollen_core, openness, BCE, max)").value == 3450


def test_discoverybench_options(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    key = root / "answer_key.csv"
    moved = tmp_path / "eval" / "answer_key_real.csv"
    moved.parent.mkdir()
    key.rename(moved)
    tasks = load_discoverybench(root, moved, domains=["archaeology"], split="train")
    assert len(tasks) == 3 and {t.split for t in tasks} == {"train"}
    with pytest.raises(CollabrlError, match="no <domain>/metadata"):
        load_discoverybench(root, moved, domains=["nls_ses"])


def test_identifiers_and_roles() -> None:
    assert identifier("introduction.period") == "introduction_period"
    assert identifier("1956 urban") == "_1956_urban" and identifier(" : ") == "column"
    assert role_of("Years are BCE and the Bronze Age starts at 2200 BCE.") == "chronology"
    assert role_of("The 100-year smoothed openness lags the interpolated score.") == "statistics"
    assert role_of("A hoard holds two bronze axes.") == "materials"
    assert role_of("Nothing to see here.") == "chronology"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "db"
    shutil.copytree(FIXTURE, root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


META = "archaeology/metadata_0.json"
BAD_INPUTS = {
    "no_root": (lambda r: shutil.rmtree(r), "db: no such folder"),
    "no_metadata": (lambda r: [p.unlink() for p in r.glob("*/metadata_*.json")], "no <domain>"),
    "no_answer_key": (lambda r: (r / "answer_key.csv").unlink(), "no answer_key*.csv"),
    "malformed_json": (
        lambda r: _edit(r / META, '"domain": "humanities",', '"domain": humanities,'),
        "metadata_0.json:",
    ),
    "wrong_shape": (
        lambda r: _edit(r / META, '"queries": [\n        [', '"queries": [\n        ["x", '),
        "metadata_0.json: queries.0.0",
    ),
    "missing_csv": (lambda r: (r / "archaeology/pollen_core.csv").unlink(), "pollen_core.csv: no"),
    "bad_csv": (
        lambda r: _edit(r / "archaeology/capital_phases.csv", "2000,", '2000,"x,y",3,4,5,6,'),
        "capital_phases.csv: not a readable CSV",
    ),
    "not_csv": (
        lambda r: _edit(r / META, '"name": "pollen_core.csv"', '"name": "pollen_core.dta"'),
        "is not a CSV file",
    ),
    "key_column": (
        lambda r: _edit(r / "answer_key.csv", "gold_hypo,", "hypothesis,"),
        "answer_key.csv: the answer key lacks the column(s) gold_hypo",
    ),
    "key_id": (
        lambda r: _edit(r / "answer_key.csv", "archaeology,1,0", "archaeology,one,0"),
        "answer_key.csv:4: metadataid 'one' is not a whole number",
    ),
    "key_row": (
        lambda r: _edit(r / "answer_key.csv", "archaeology,0,1", "archaeology,0,7"),
        "has no row for dataset 'archaeology', metadataid 0, query_id 1",
    ),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_discoverybench_bad_input_is_one_line_naming_the_file(tmp_path: Path, case: str) -> None:
    root = _copy(tmp_path)
    spoil, message = BAD_INPUTS[case]
    spoil(root)
    with pytest.raises(CollabrlError) as caught:
        load_discoverybench(root)
    text = str(caught.value)
    assert message in text and "\n" not in text and str(tmp_path) in text


def test_frames_of_a_loaded_task_build_dataframes() -> None:
    task = load_discoverybench(FIXTURE)[0]
    frame = frames(task)["pollen_core"]
    assert isinstance(frame, pd.DataFrame) and frame["openness"].dtype.kind == "f"
    assert isinstance(Table.model_validate(task.tables[0].model_dump()), Table)
