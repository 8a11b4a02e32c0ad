"""A killed ``collabrl eval`` resumes from the jobs its journal recorded: the resumed run writes
what an uninterrupted one writes, without playing or judging a finished job again."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.config import EvalSpec
from collabrl.errors import CollabrlError
from collabrl.eval import runner
from collabrl.eval.journal import JOURNAL
from collabrl.eval.protocol import run_evaluation
from collabrl.rewards.judges.heuristic import HeuristicJudge

ARGS = ["eval", "--quiet", "games=[household]", "tasks=[0_read_book,5_read_book]", "max_profiles=2"]
JOBS = 2 * 2 * 2  # tasks x profiles x seats
OUTPUTS = ("tables.md", "tables.csv", "episodes.csv", "trajectories.jsonl")

# Runs collabrl's CLI and SIGKILLs itself at the given call of the patched function: no cleanup,
# no flush, exactly what a crash or an OOM kill leaves behind.
KILLER = """
import importlib, os, signal, sys
from collabrl.cli import main
module, _, name = sys.argv[1].rpartition(".")
owner, _, attribute = name.partition(":")
target = importlib.import_module(module)
holder = getattr(target, owner) if attribute else target
attribute = attribute or owner
real, calls, limit = getattr(holder, attribute), [0], int(sys.argv[2])
def die_at_limit(*args, **kwargs):
    if calls[0] == limit:
        os.kill(os.getpid(), signal.SIGKILL)
    calls[0] += 1
    return real(*args, **kwargs)
setattr(holder, attribute, die_at_limit)
main(sys.argv[3:])
"""


def killed(target: str, after: int, *args: str) -> None:
    """Run ``collabrl ARGS`` in a subprocess killed at call ``after`` of ``target``."""
    done = subprocess.run(
        [sys.executable, "-c", KILLER, target, str(after), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == -9, done.stderr[-2000:]


def journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / JOURNAL).read_text().splitlines()]


def cli(*args: str) -> None:
    """Run ``collabrl ARGS`` in this process (a user error exits with code 2 and fails)."""
    main(list(args))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted run, written at the path the resumed runs use and then moved away (the
    results stamp the output folder)."""
    root = tmp_path_factory.mktemp("reference")
    done = subprocess.run(
        [sys.executable, "-m", "collabrl", *ARGS, f"output_dir={root / 'eval'}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return Path(shutil.move(root / "eval", root / "done"))


@pytest.fixture
def out(reference) -> Path:
    """The folder of the runs under test: where the reference was written."""
    folder = reference.parent / "eval"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """Counts the episodes played and the windows judged in this process."""
    counts = {"played": 0, "windows": 0}
    play, judge = runner.play_job, HeuristicJudge.judge_windows

    def play_job(*args, **kwargs):
        counts["played"] += 1
        return play(*args, **kwargs)

    def judge_windows(self, windows, *args, **kwargs):
        counts["windows"] += len(windows)
        return judge(self, windows, *args, **kwargs)

    monkeypatch.setattr(runner, "play_job", play_job)
    monkeypatch.setattr(HeuristicJudge, "judge_windows", judge_windows)
    return counts


def assert_same_outputs(resumed: Path, reference: Path) -> None:
    """Byte for byte, but for the run's wall time in results.json."""
    for name in OUTPUTS:
        assert (resumed / name).read_bytes() == (reference / name).read_bytes(), name

    def untimed(path: Path) -> str:
        return re.sub(r'"wall_s": [0-9.]+', '"wall_s": 0', path.read_text())

    assert untimed(resumed / "results.json") == untimed(reference / "results.json")


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_a_run_killed_while_playing_resumes_to_the_same_tables(reference, out, counted) -> None:
    killed("collabrl.eval.runner.play_job", 3, *ARGS, f"output_dir={out}")
    records = journal(out)
    assert "settings_sha256" in records[0] and not (out / "tables.md").exists()
    assert [("played" in r, "judged" in r) for r in records[1:]] == [(True, False)] * 3
    cli(*ARGS, f"output_dir={out}")
    assert counted["played"] == JOBS - 3  # the three finished episodes were not played again
    assert_same_outputs(out, reference)
    assert sum("played" in r for r in journal(out)) == JOBS


@pytest.mark.slow
def test_a_run_killed_while_judging_resumes_without_replaying(reference, out, counted) -> None:
    trajectories = [json.loads(line) for line in (reference / "trajectories.jsonl").open()]
    windows = [len(t["windows"]) for t in trajectories]
    batch = f"judge_batch_size={windows[0] + 1}"  # the first call finishes the first job's
    hook = "collabrl.rewards.judges.heuristic.HeuristicJudge:judge_windows"
    killed(hook, 1, *ARGS, batch, f"output_dir={out}")  # killed in the second judge call
    records = journal(out)
    assert sum("played" in r for r in records) == JOBS
    judged = [r["judged"] for r in records if "judged" in r]
    assert len(judged) == 1 and len(judged[0]["windows"]) == windows[0]
    cli(*ARGS, f"output_dir={out}")
    assert counted == {"played": 0, "windows": sum(windows) - windows[0]}
    assert_same_outputs(out, reference)


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_a_torn_last_line_is_dropped_and_its_job_redone(reference, out, counted) -> None:
    killed("collabrl.eval.runner.play_job", 3, *ARGS, f"output_dir={out}")
    text = (out / JOURNAL).read_text()
    last = text.rindex("\n", 0, -1) + 1
    (out / JOURNAL).write_text(text[: last + (len(text) - last) // 2])  # half the third record
    cli(*ARGS, f"output_dir={out}")
    assert counted["played"] == JOBS - 2
    assert_same_outputs(out, reference)
    assert sum("played" in r for r in journal(out)) == JOBS


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_a_rerun_with_other_settings_is_refused_and_overwrite_starts_over(
    reference, out, counted, capsys
) -> None:
    killed("collabrl.eval.runner.play_job", 2, *ARGS, f"output_dir={out}")
    before = (out / JOURNAL).read_bytes()
    with pytest.raises(SystemExit) as exit_:
        main([*ARGS, f"output_dir={out}", "seeds=[1]"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {out} already holds an earlier `eval`")
    assert "with other settings (differing: jobs, seeds)" in err and "--overwrite" in err
    assert (out / JOURNAL).read_bytes() == before
    cli(*ARGS, f"output_dir={out}", "--overwrite")
    assert counted["played"] == JOBS  # nothing taken from the run moved aside
    assert_same_outputs(out, reference)
    (aside,) = out.parent.glob("eval.old-*")
    assert (aside / JOURNAL).read_bytes() == before
    shutil.rmtree(aside)


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_speed_settings_may_change_on_resume(reference, out, counted) -> None:
    killed("collabrl.eval.runner.play_job", 4, *ARGS, f"output_dir={out}")
    cli(*ARGS, f"output_dir={out}", "workers=2", "judge_batch_size=7")
    assert counted["played"] == JOBS - 4
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


def test_the_library_refuses_a_journal_of_other_settings(tmp_path) -> None:
    spec = EvalSpec(
        games=["household"], tasks=["0_read_book"], max_profiles=1, output_dir=str(tmp_path)
    )
    run_evaluation(spec, progress=False, journal=True)
    other = spec.model_copy(update={"seeds": [2]})
    with pytest.raises(CollabrlError) as err:
        run_evaluation(other, progress=False, journal=True)
    message = str(err.value)
    assert message.startswith(f"{tmp_path / JOURNAL} records an evaluation with other settings")
    assert "(differing: jobs, seeds)" in message and "--overwrite" in message
