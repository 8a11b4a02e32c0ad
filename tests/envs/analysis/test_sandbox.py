"""The optional pandas sandbox: a cell's value and output come back; the network, files outside
its folder, programs, runaway time and memory are refused, each with an error in the result."""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest

from collabrl.envs.analysis import sandbox
from collabrl.envs.analysis.sandbox import SandboxResult, run_code

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def cell(code: str, **limits: float) -> SandboxResult:
    tables = {"samples": pd.DataFrame({"site": ["A", "B", "A"], "count": [1, 2, 4]})}
    return run_code(code, tables, **limits)  # type: ignore[arg-type]


def refused(result: SandboxResult, *words: str) -> None:
    assert result.error is not None and "\n" not in result.error
    assert all(w in result.error for w in words), result.error


def test_a_pandas_cell_returns_its_output_and_last_value() -> None:
    result = cell('print("total", samples["count"].sum())\nsamples.groupby("site")["count"].sum()')
    assert result.error is None
    assert result.text == "total 7\nsite\nA    5\nB    2\nName: count, dtype: int64"
    assert result.seconds > 0


def test_a_cell_without_a_final_expression_shows_only_its_output() -> None:
    assert cell("x = len(samples)\nprint(x)\ny = x * 2").text == "3"
    assert cell("None").text == ""


@pytest.mark.slow
def test_errors_name_the_exception_and_the_line() -> None:
    refused(cell("x = 1\n1 / 0"), "ZeroDivisionError: division by zero (line 2)")
    refused(cell("def f(:\n    pass"), "SyntaxError: invalid syntax (line 1)")
    result = cell('print("before")\nsamples["nope"]')
    assert result.text == "before"
    refused(result, "KeyError: 'nope' (line 2)")


@pytest.mark.slow
def test_the_network_is_refused() -> None:
    refused(cell('import socket\nsocket.create_connection(("127.0.0.1", 9))'), "network is off")
    refused(
        cell('import socket\nsocket.socket().connect(("127.0.0.1", 9))'),
        "PermissionError",
    )
    # below the replaced functions, the audit hook
    refused(cell('import _socket\n_socket.socket().connect(("127.0.0.1", 9))'), "socket.")
    refused(cell('import urllib.request\nurllib.request.urlopen("http://127.0.0.1:9")'))


@pytest.mark.slow
def test_files_outside_the_folder_cannot_be_read() -> None:
    refused(cell('open("/etc/passwd").read()'), "PermissionError", "/etc/passwd")
    refused(cell('pd.read_csv("/etc/passwd")'), "PermissionError")
    refused(cell('import os\nos.open("/etc/passwd", os.O_RDONLY)'), "PermissionError")
    refused(cell('import os\nos.listdir("/")'), "os.listdir outside the cell's folder")
    # the caller's data (collabrl's shipped tasks and their answers) stay closed too, whether
    # collabrl is installed in site-packages or as an editable checkout
    tasks = files("collabrl.data.analysis").joinpath("tasks.json")
    refused(cell(f"open({str(tasks)!r}).read()"), "PermissionError")


@pytest.mark.slow
def test_files_outside_the_folder_cannot_be_written(tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    refused(cell(f'open({str(target)!r}, "w").write("x")'), "PermissionError")
    refused(cell(f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)"))
    keep = tmp_path / "keep.txt"
    keep.write_text("kept")
    refused(cell(f"import os\nos.remove({str(keep)!r})"), "os.remove outside")
    assert not target.exists() and keep.read_text() == "kept"


@pytest.mark.slow
def test_the_cell_folder_holds_the_tables_and_takes_small_files() -> None:
    assert cell('import os\nsorted(os.listdir("."))').text == "['samples.pkl']"
    assert cell('open("notes.txt", "w").write("ok")').text == "2"
    refused(cell('open("big.bin", "wb").write(b"x" * (2 << 20))'), "File too large")


@pytest.mark.slow
def test_programs_are_refused() -> None:
    refused(cell('import subprocess\nsubprocess.run(["echo", "hi"])'), "subprocess.Popen")
    refused(cell('import os\nos.system("echo hi")'), "os.system")
    refused(cell('import os\nos.execv("/bin/echo", ["echo"])'), "os.exec")
    refused(cell("import os\nos.fork()"), "os.fork")
    refused(cell("import subprocess\nsubprocess._fork_exec()"), "starting programs is off")
    refused(cell("import ctypes\nctypes.CDLL(None)"), "ctypes")


def test_the_limits_cannot_be_lifted() -> None:
    code = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))"
    refused(cell(code), "resource.setrlimit")


def test_the_callers_environment_is_not_passed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLLABRL_TEST_SECRET", "s3cret")
    assert cell('import os\nos.environ.get("COLLABRL_TEST_SECRET", "absent")').text == "'absent'"


@pytest.mark.slow
def test_a_runaway_loop_is_stopped_at_the_time_limit() -> None:
    result = cell("while True:\n    pass", time_s=1)
    refused(result, "time limit")
    assert result.seconds < 1 + 5  # start-up on a busy machine included


@pytest.mark.slow
def test_a_loop_swallowing_the_timer_is_stopped_by_the_cpu_limit() -> None:
    code = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
    result = cell(code, time_s=0.5)
    refused(result, "time limit", "CPU")
    assert result.seconds < 2.5 + 5


@pytest.mark.slow  # waits out the 2 s start-up allowance
def test_a_cell_ignoring_the_timer_without_cpu_is_killed_at_the_wall_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "START_S", 2.0)  # the start-up allowance, shortened
    code = "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)"
    result = cell(code, time_s=0.5)
    refused(result, "time limit: killed after 0.5 s")
    assert result.seconds < 2.5 + 2


@pytest.mark.slow
def test_allocating_two_gigabytes_is_stopped_by_the_memory_limit() -> None:
    refused(cell("b = bytearray(2 * 1024**3)"), "MemoryError", "512 MB")
    refused(cell("a = np.ones(2**28)"), "MemoryError")  # 2 GB of float64
    assert cell("a = np.ones(2**20)\na.sum()", memory_mb=512).error is None  # 8 MB is fine


@pytest.mark.slow
def test_output_is_truncated() -> None:
    result = cell('print("x" * 10_000)', output_chars=100)
    assert result.error is None
    assert len(result.text) == 100 and result.text.endswith("…[output truncated]")
    assert len(cell("list(range(100_000))", output_chars=500).text) == 500


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        run_code("1", {}, time_s=0)
    with pytest.raises(ValueError):
        run_code("1", {"not a name": pd.DataFrame()})
