"""Run folders that survive faults: an owner per folder (refuse, resume, overwrite), output
locations checked before any work, verified checkpoints, and a metrics log torn by a kill."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from collabrl.errors import CollabrlError
from collabrl.records import RunClaim, check_claim, claim_folder, read_manifest
from collabrl.training.checkpoint import checkpoint_damage
from tests.training.test_loop import (  # the tiny CPU recipe with its fast overrides
    metrics,
    train_cmd,
)

# Two iterations with a checkpoint after each: the newest can be damaged, the older is intact.
TWO = ("train.iterations=2", "train.checkpoint_every=1")


def train(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(train_cmd(out, *TWO, *extra), capture_output=True, text=True, timeout=600)


def last_error(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command prints (exit code 2, no traceback)."""
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    return done.stderr.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished tiny 2-iteration run (checkpoints iter_000000 and iter_000001)."""
    out = tmp_path_factory.mktemp("finished") / "run"
    done = train(out)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def assert_same_metrics(redone: list[dict], reference: list[dict]) -> None:
    """A resumed run logs what the uninterrupted one did (the run is deterministic)."""
    assert [r["iteration"] for r in redone] == [r["iteration"] for r in reference]
    for a, b in zip(redone, reference, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=1e-5, abs=1e-7), key


def copy_of(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "run"))


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_finished_run_has_an_owner_manifest_and_verified_checkpoints(finished) -> None:
    manifest = read_manifest(finished)
    assert manifest["command"] == "train" and manifest["collabrl"]
    assert manifest["completed"] == {"checkpoint": "iter_000001", "iteration": 1}
    assert {"policy", "algo", "seed", "train"} <= manifest["settings_sha256"].keys()
    newest = finished / "checkpoints" / "iter_000001"
    files = json.loads((newest / "manifest.json").read_text())["files"]
    assert {"trainer_state.json", "policy/config.json"} <= files.keys()
    assert checkpoint_damage(newest) is None


# 1. a reused output folder --------------------------------------------------------------------


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_training_into_a_finished_run_is_refused_and_overwrite_moves_it_aside(
    finished, tmp_path
) -> None:
    out = copy_of(finished, tmp_path)
    before = (out / "metrics.jsonl").read_text()
    error = last_error(train(out, "train.iterations=1"))
    assert error.startswith(f"error: {out} already holds an earlier `train` run (started ")
    assert error.endswith("pass train.resume=true to continue it, or --overwrite to move it aside")
    assert (out / "metrics.jsonl").read_text() == before

    done = train(out, "train.iterations=1", "--overwrite")
    assert done.returncode == 0, done.stderr[-2000:]
    (aside,) = tmp_path.glob("run.old-*")
    assert f"moved the run in {out} aside to {aside}" in done.stdout
    assert (aside / "metrics.jsonl").read_text() == before  # the old run, whole
    assert sorted(p.name for p in (aside / "checkpoints").iterdir()) == [
        "iter_000000",
        "iter_000001",
    ]
    assert [r["iteration"] for r in metrics(out)] == [0]  # the new run, alone
    assert [p.name for p in (out / "checkpoints").iterdir()] == ["iter_000000"]
    assert "iterations: 1" in (out / "recipe.yaml").read_text()


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_resume_with_other_settings_is_one_line_naming_them(finished, tmp_path) -> None:
    out = copy_of(finished, tmp_path)
    error = last_error(train(out, "train.resume=true", "seed=1", "algo.lr=0.002"))
    assert error == (
        f"error: cannot resume {out}: its run was started with other settings (differing: "
        "algo, seed); resume with its recipe, or drop train.resume=true and pass --overwrite to "
        "start afresh"
    )


def test_eval_twice_into_one_folder_is_refused_and_overwrite_keeps_the_old(tmp_path) -> None:
    from click.testing import CliRunner

    from collabrl.eval.cli import eval_command

    args = ["games=[household]", "tasks=[0_read_book]", "max_profiles=1", "seats=[1]", "--quiet"]
    out = tmp_path / "eval"
    first = CliRunner().invoke(eval_command, [*args, f"output_dir={out}"])
    assert first.exit_code == 0, first.output
    assert read_manifest(out)["completed"] == {"episodes": 1}
    results = (out / "results.json").read_text()
    again = CliRunner().invoke(eval_command, [*args, f"output_dir={out}", "seeds=[7]"])
    assert isinstance(again.exception, CollabrlError)
    assert str(again.exception).startswith(f"{out} already holds an earlier `eval` run")
    assert (out / "results.json").read_text() == results
    fresh = CliRunner().invoke(eval_command, [*args, f"output_dir={out}", "--overwrite"])
    assert fresh.exit_code == 0, fresh.output
    (aside,) = tmp_path.glob("eval.old-*")
    assert (aside / "results.json").read_text() == results


def test_demos_refuse_a_folder_with_demos_and_sft_shares_its_demos_folder(tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"command": "demos", "completed": {"examples": 3}}))
    (run / "demos.jsonl").write_text("{}\n")
    with pytest.raises(CollabrlError, match=r"already holds an earlier `demos` run"):
        claim_folder(run, RunClaim("demos", {}))
    sft = RunClaim("sft", {"seed": 0}, joins=("demos",), inputs=("demos.jsonl", "demos.hf"))
    assert check_claim(run, sft) == "new"
    claim_folder(run, sft)
    assert read_manifest(run)["command"] == "sft"
    (run / "metrics.jsonl").write_text('{"iteration": 0}\n')
    with pytest.raises(CollabrlError, match=r"already holds an earlier `sft` run"):
        claim_folder(run, sft)
    # an sft overwrite moves the folder aside and keeps a copy of the demos it trains on
    claim_folder(run, RunClaim("sft", {}, overwrite=True, inputs=sft.inputs))
    (aside,) = tmp_path.glob("run.old-*")
    assert sorted(p.name for p in aside.iterdir()) == ["demos.jsonl", "metrics.jsonl", "run.json"]
    assert sorted(p.name for p in run.iterdir()) == ["demos.jsonl", "run.json"]


def test_a_folder_from_before_manifests_or_a_failed_start_is_judged_by_its_files(
    tmp_path,
) -> None:
    (tmp_path / "checkpoints").mkdir()
    with pytest.raises(CollabrlError, match=r"holds an earlier run's outputs \(checkpoints\)"):
        claim_folder(tmp_path, RunClaim("train", {}))
    (tmp_path / "checkpoints").rmdir()
    (tmp_path / "run.json").write_text(json.dumps({"command": "train", "completed": None}))
    assert check_claim(tmp_path, RunClaim("eval", {})) == "new"  # it completed nothing


# 2. output locations checked before any work ---------------------------------------------------


def no_work(*args, **kwargs):
    raise AssertionError("work started before the output location was checked")


@pytest.fixture(params=["under a file", "is a file"])
def unusable(request, tmp_path) -> Path:
    blocker = tmp_path / "blocker"
    blocker.write_text("a regular file\n")
    return blocker / "out" if request.param == "under a file" else blocker


@pytest.mark.parametrize(
    "command,work",
    [
        (["eval", "--quiet", "games=[household]", "tasks=[0_read_book]"], "eval.protocol.play_all"),
        (["play", "household_experts", "--quiet"], "episode.play_episode"),
        (["demos", "cwah_sft_cpu", "--quiet"], "sft.demos.record_demos"),
    ],
    ids=["eval", "play", "demos"],
)
def test_an_unusable_output_folder_fails_in_one_line_before_any_episode(
    command, work, unusable, monkeypatch, capsys
) -> None:
    from collabrl.cli import main

    monkeypatch.setattr(f"collabrl.{work}", no_work)
    with pytest.raises(SystemExit) as exit_info:
        main([*command, f"output_dir={unusable}"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    reason = "Not a directory" if unusable.name == "out" else "File exists"
    assert err == f"error: cannot write to {unusable}: {reason}\n"


# 3. damaged checkpoints ------------------------------------------------------------------------


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
@pytest.mark.parametrize(
    "name", ["model.safetensors", "optimizer.bin", "trainer_state.json", "policy/config.json"]
)
def test_a_truncated_checkpoint_file_is_named_as_damage(finished, tmp_path, name) -> None:
    newest = Path(shutil.copytree(finished / "checkpoints" / "iter_000001", tmp_path / "c"))
    size = (newest / name).stat().st_size
    with open(newest / name, "r+b") as f:
        f.truncate(size // 2)
    assert checkpoint_damage(newest) == f"{name} has {size // 2} bytes, not {size}"
    (newest / name).write_bytes(b"x" * size)  # same size, other content
    assert checkpoint_damage(newest) == f"{name} does not match its SHA-256"


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_resume_skips_a_damaged_latest_checkpoint_and_redoes_its_iteration(
    finished, tmp_path
) -> None:
    out = copy_of(finished, tmp_path)
    model = out / "checkpoints" / "iter_000001" / "model.safetensors"
    with open(model, "r+b") as f:
        f.truncate(100)
    done = train(out, "train.resume=true")
    assert done.returncode == 0, done.stderr[-2000:]
    warning = next(line for line in done.stdout.splitlines() if line.startswith("warning:"))
    assert warning == (
        f"warning: checkpoint {out}/checkpoints/iter_000001 is damaged (model.safetensors has "
        f"100 bytes, not {(finished / model.relative_to(out)).stat().st_size}); trying the "
        "previous one"
    )
    assert f"resumed from {out}/checkpoints/iter_000000 at iteration 1" in done.stdout
    assert_same_metrics(metrics(out), metrics(finished))
    assert checkpoint_damage(out / "checkpoints" / "iter_000001") is None  # saved anew


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_resume_with_no_intact_checkpoint_is_one_line(finished, tmp_path) -> None:
    out = copy_of(finished, tmp_path)
    for state in (out / "checkpoints").glob("iter_*/trainer_state.json"):
        state.write_text("{")
    error = last_error(train(out, "train.resume=true"))
    assert error == (
        f"error: no intact checkpoint in {out}/checkpoints to resume from; "
        "pass --overwrite (without train.resume=true) to start afresh"
    )


# 4. a metrics log torn by a kill ---------------------------------------------------------------


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_resume_after_a_kill_that_tore_the_last_metrics_line(finished, tmp_path) -> None:
    """Killed while logging iteration 1: half its line is written, its checkpoint is not."""
    out = copy_of(finished, tmp_path)
    shutil.rmtree(out / "checkpoints" / "iter_000001")
    log = out / "metrics.jsonl"
    text = log.read_text()
    log.write_text(text[: text.rindex("\n", 0, -1) + 40])
    done = train(out, "train.resume=true")
    assert done.returncode == 0, done.stderr[-2000:]
    assert_same_metrics(metrics(out), metrics(finished))


def test_a_bad_line_before_the_last_is_still_an_error(tmp_path) -> None:
    from collabrl.records import read_jsonl

    path = tmp_path / "metrics.jsonl"
    path.write_text('{"iteration": 0}\n{"iterat\n{"iteration": 2}\n{"iteration": 3, "lo')
    with pytest.raises(CollabrlError, match=r"metrics\.jsonl:2: bad JSON"):
        read_jsonl(path, torn_tail=True)
    path.write_text('{"iteration": 0}\n{"iteration": 1}\n{"iteration": 2, "lo')
    assert read_jsonl(path, torn_tail=True) == [{"iteration": 0}, {"iteration": 1}]
    with pytest.raises(CollabrlError, match=r"metrics\.jsonl:3: bad JSON"):
        read_jsonl(path)  # without torn_tail, as before
