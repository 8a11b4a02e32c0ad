"""A killed eval, demos run or pipeline stage leaves its previous outputs whole, or a mix that the
next step refuses with one line; single-file writes never leave half a file."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import datasets
import numpy as np
import pytest

from collabrl import records
from collabrl.config import EvalSpec
from collabrl.errors import CollabrlError
from collabrl.eval.protocol import OUTPUT_SET, EvalResult, run_evaluation, write_outputs
from collabrl.pipeline import HashingEmbedder
from collabrl.pipeline.config import PipelineError, load_config
from collabrl.pipeline.run import Resources, run_stage
from collabrl.pipeline.rundir import (
    CLUSTERS,
    EMBEDDINGS,
    FIDELITY_JSON,
    FIDELITY_MD,
    WINDOWS,
    RunDir,
)
from collabrl.pipeline.stage import StageSummary
from collabrl.sft.demos import read_demos, write_demos
from collabrl.testing.scripted import ScriptedEngine


class Killed(BaseException):
    """Stands in for SIGKILL: no ``except Exception`` catches it."""


def kill_at_rename(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Stop a run before the ``n``-th rename that moves its outputs into place (later renames,
    such as those of a rerun, go through)."""
    real, calls = records._swap, itertools.count(1)

    def swap(new: Path, target: Path, aside: Path) -> None:
        if next(calls) == n:
            raise Killed
        real(new, target, aside)

    monkeypatch.setattr(records, "_swap", swap)


def half_hf_writer(folder: Path, rows: list, json_fields: tuple = ()) -> None:
    """An HF dataset writer killed after its first bytes."""
    folder.mkdir(parents=True)
    (folder / "data-00000-of-00001.arrow").write_bytes(b"ARROW half")
    raise Killed


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# single files ---------------------------------------------------------------------------------


def test_rundir_writes_replace_a_file_whole_or_not_at_all(tmp_path, monkeypatch) -> None:
    run = RunDir(tmp_path)
    run.write_matrix(EMBEDDINGS, np.eye(2))
    run.write_json(FIDELITY_JSON, {"games": {}})
    run.write_text(FIDELITY_MD, "old report\n")
    before = listing(tmp_path)

    def half_save(f, matrix) -> None:
        f.write(b"\x93NUMPY half")
        raise Killed

    monkeypatch.setattr(np, "save", half_save)
    with pytest.raises(Killed):
        run.write_matrix(EMBEDDINGS, np.zeros(3))
    with pytest.raises(UnicodeEncodeError):  # fails after "new " is written
        run.write_text(FIDELITY_MD, "new \ud800 report")
    assert (run.read_matrix(EMBEDDINGS) == np.eye(2)).all()
    assert run.path(FIDELITY_MD).read_text() == "old report\n"
    assert json.loads(run.path(FIDELITY_JSON).read_text()) == {"games": {}}
    assert listing(tmp_path) == before  # no temporary file left


# profile pipeline ------------------------------------------------------------------------------


def fake_cluster(windows: list[dict], kill: bool = False):
    """A cluster stage that writes its three files (and is killed after the first if asked)."""

    def stage(run: RunDir, config, embedder, progress: bool = True) -> StageSummary:
        files = [run.write_jsonl(WINDOWS, windows)]
        if kill:
            raise Killed
        files += [
            run.write_matrix(EMBEDDINGS, np.ones((len(windows), 2))),
            run.write_jsonl(CLUSTERS, []),
        ]
        return StageSummary("cluster", files=[str(f) for f in files])

    return stage


@pytest.fixture
def pipeline(tmp_path, monkeypatch) -> tuple[RunDir, Resources]:
    """A run whose cluster stage finished once with the window ``old``."""
    run = RunDir(tmp_path / "run")
    res = Resources(
        load_config(None),
        embedder=HashingEmbedder(),
        summariser=ScriptedEngine(lambda conversation: "Fail"),
    )
    monkeypatch.setattr("collabrl.pipeline.run.cluster", fake_cluster([{"id": "old"}]))
    summary = run_stage("cluster", run, res, progress=False)
    assert summary.files == [str(run.path(n)) for n in (WINDOWS, EMBEDDINGS, CLUSTERS)]
    return run, res


def test_a_stage_killed_while_writing_leaves_the_previous_outputs(pipeline, monkeypatch) -> None:
    run, res = pipeline
    before = listing(run.root)
    monkeypatch.setattr(
        "collabrl.pipeline.run.cluster", fake_cluster([{"id": "a"}, {"id": "b"}], True)
    )
    with pytest.raises(Killed):
        run_stage("cluster", run, res, progress=False)
    assert run.read_jsonl(WINDOWS) == [{"id": "old"}]
    assert run.read_matrix(EMBEDDINGS).shape == (1, 2)  # still matches windows row for row
    assert listing(run.root) == before


def test_a_stage_killed_while_moving_its_outputs_is_refused_downstream(
    pipeline, monkeypatch
) -> None:
    run, res = pipeline
    monkeypatch.setattr("collabrl.pipeline.run.cluster", fake_cluster([{"id": "a"}, {"id": "b"}]))
    kill_at_rename(monkeypatch, 2)  # clusters.jsonl is new, embeddings and windows are old
    with pytest.raises(Killed):
        run_stage("cluster", run, res, progress=False)
    with pytest.raises(PipelineError) as info:
        run_stage("summarise", run, res, progress=False)
    message = str(info.value)
    assert "\n" not in message and message == (
        f"{run.path(CLUSTERS)} is incomplete: the run that wrote it stopped while replacing its "
        "outputs (cluster.incomplete is still there); rerun `collabrl profiles cluster`"
    )
    with pytest.raises(PipelineError, match="rerun `collabrl profiles cluster`"):
        run.read_matrix(EMBEDDINGS)

    run_stage("cluster", run, res, progress=False)  # the rerun the message asks for
    assert run.read_jsonl(WINDOWS) == [{"id": "a"}, {"id": "b"}]
    assert run.read_matrix(EMBEDDINGS).shape == (2, 2)
    assert "cluster.incomplete" not in listing(run.root)


# collabrl eval ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> EvalResult:
    """One small expert evaluation with the heuristic judge (its outputs are the "old" ones)."""
    spec = EvalSpec(
        games=["household"],
        tasks=["0_read_book"],
        max_profiles=1,
        seats=[1],
        output_dir=str(tmp_path_factory.mktemp("eval")),
    )
    return run_evaluation(spec, progress=False)


def rerun_outputs(result: EvalResult, out: Path) -> EvalResult:
    """The same outcomes, stamped differently, written to ``out`` (a second eval run)."""
    return dataclasses.replace(result, stamp={**result.stamp, "seeds": [7]}, output_dir=out)


def test_an_eval_killed_while_writing_leaves_the_previous_outputs(
    evaluated, tmp_path, monkeypatch
) -> None:
    out = tmp_path / "eval"
    write_outputs(rerun_outputs(evaluated, out), proxy=True)
    results = (out / "results.json").read_bytes()
    before = listing(out)
    assert before == [
        "episodes.csv",
        "results.json",
        "tables.csv",
        "tables.md",
        "trajectories.jsonl",
        "trajectories_hf",
    ]
    again = dataclasses.replace(evaluated, output_dir=out)
    monkeypatch.setattr("collabrl.eval.protocol.write_hf_dataset", half_hf_writer)
    with pytest.raises(Killed):
        write_outputs(again, proxy=True)
    assert (out / "results.json").read_bytes() == results
    assert len(datasets.load_from_disk(str(out / "trajectories_hf"))) == len(evaluated.outcomes)
    assert listing(out) == before
    assert records.check_complete(out / "results.json", OUTPUT_SET, "rerun") == out / "results.json"


def test_an_eval_killed_while_moving_its_outputs_is_flagged(
    evaluated, tmp_path, monkeypatch
) -> None:
    out = tmp_path / "eval"
    write_outputs(dataclasses.replace(evaluated, output_dir=out), proxy=True)
    kill_at_rename(monkeypatch, 3)  # new episodes.csv and results.json beside the old rest
    with pytest.raises(Killed):
        write_outputs(rerun_outputs(evaluated, out), proxy=True)
    assert json.loads((out / "results.json").read_text())["stamp"]["seeds"] == [7]
    assert "seeds=[7]" not in (out / "tables.md").read_text()
    with pytest.raises(CollabrlError) as info:
        records.check_complete(out / "tables.md", OUTPUT_SET, "rerun `collabrl eval`")
    assert str(info.value) == (
        f"{out / 'tables.md'} is incomplete: the run that wrote it stopped while replacing its "
        "outputs (eval.incomplete is still there); rerun `collabrl eval`"
    )

    write_outputs(rerun_outputs(evaluated, out), proxy=True)
    assert "eval.incomplete" not in listing(out)
    assert "seeds=[7]" in (out / "tables.md").read_text()
    hf = datasets.load_from_disk(str(out / "trajectories_hf"))
    assert all(json.loads(s)["seeds"] == [7] for s in hf["stamp"])


# collabrl demos -> collabrl sft -----------------------------------------------------------------


def demo(answer: str) -> dict:
    return {
        "prompt": [{"role": "system", "content": "rules"}, {"role": "user", "content": "obs"}],
        "completion": [{"role": "assistant", "content": answer}],
    }


OLD, NEW = [demo("<action>A</action>")], [demo("<action>B</action>"), demo("<action>C</action>")]


def test_demos_killed_while_writing_leave_the_previous_pair(tmp_path, monkeypatch) -> None:
    path = tmp_path / "demos.jsonl"
    write_demos(OLD, path)
    before = listing(tmp_path)
    monkeypatch.setattr("collabrl.sft.demos.write_hf_dataset", half_hf_writer)
    with pytest.raises(Killed):
        write_demos(NEW, path)
    assert read_demos(path) == OLD
    assert datasets.load_from_disk(str(tmp_path / "demos.hf"))["completion"] == [
        r["completion"] for r in OLD
    ]
    assert listing(tmp_path) == before == ["demos.hf", "demos.jsonl"]


def test_sft_refuses_demos_killed_while_moving_into_place(tmp_path, monkeypatch, capsys) -> None:
    from collabrl.cli import main

    path = tmp_path / "demos.jsonl"
    write_demos(OLD, path)
    kill_at_rename(monkeypatch, 2)  # demos.hf is new, demos.jsonl is old
    with pytest.raises(Killed):
        write_demos(NEW, path)
    assert records.read_jsonl(path) == OLD
    assert len(datasets.load_from_disk(str(path.with_suffix(".hf")))) == len(NEW)
    args = ["sft", "cwah_sft_cpu", f"output_dir={tmp_path / 'run'}", f"sft.demos.path={path}"]
    capsys.readouterr()  # the dataset writer's progress bars
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {path} is incomplete: the run that wrote it stopped while replacing its outputs "
        "(demos.jsonl.incomplete is still there); rerun `collabrl demos RECIPE`\n"
    )

    write_demos(NEW, path)
    assert read_demos(path) == NEW and not (tmp_path / "demos.jsonl.incomplete").exists()
