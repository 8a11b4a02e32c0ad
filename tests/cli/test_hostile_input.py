"""Hostile and careless input files: one-line errors naming the file, no traceback, no hang."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from collabrl import settings_files
from collabrl.cli import main
from collabrl.config import load_recipe
from collabrl.errors import CollabrlError, RecipeError
from collabrl.eval.cli import build_spec


def laughs(levels: int, width: int = 10) -> str:
    """A "billion laughs" document: ``width ** levels`` values from a few hundred bytes."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join([*lines, f"name: *a{levels - 1}"]) + "\n"


def doubling(levels: int) -> str:
    """Interpolations that double a string per level: ``2 ** levels`` times its length."""
    lines = ['k0: "0123456789"']
    lines += [f'k{i}: "${{k{i - 1}}}${{k{i - 1}}}"' for i in range(1, levels)]
    return "\n".join([*lines, f"name: ${{k{levels - 1}}}"]) + "\n"


def one_line_error(error: Exception, *parts: str) -> str:
    message = str(error)
    assert "\n" not in message
    for part in parts:
        assert part in message
    return message


BAD_FILES = [
    ("empty", b"", "is empty; a recipe needs at least one key"),
    ("comments only", b"# nothing here\n\n", "is empty"),
    ("explicit null", b"null\n", "is empty"),
    ("binary", b"\x7fELF\x02\x01\x01\x00\x00\x00", "is a binary file"),
    ("latin-1", "name: café\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 at offset 9)"),
    ("too big", b"# padding\n" * 110_000, "is larger than 1024 KiB"),
    ("two documents", b"name: a\n---\nname: b\n", "not valid YAML at line"),
    ("control char", b"name: \x07\n", "not valid YAML"),
]


@pytest.mark.parametrize(
    ("content", "expected"), [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES]
)
def test_unusable_recipe_files_are_one_line_errors_naming_the_file(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "recipe.yaml"
    path.write_bytes(content)
    with pytest.raises(RecipeError) as err:
        load_recipe(str(path))
    assert one_line_error(err.value, expected).startswith(f"{path}: ")


def test_directory_and_fifo_are_not_recipes(tmp_path: Path) -> None:
    folder = tmp_path / "recipes.yaml"
    folder.mkdir()
    with pytest.raises(RecipeError) as err:
        load_recipe(str(folder))
    one_line_error(err.value, str(folder), "is a directory, not a recipe file")
    if hasattr(os, "mkfifo"):  # reading a FIFO would block forever
        fifo = tmp_path / "fifo.yaml"
        os.mkfifo(fifo)
        with pytest.raises(RecipeError) as err:
            load_recipe(str(fifo))
        one_line_error(err.value, str(fifo), "is not a regular file")


def test_unreadable_recipe_is_a_one_line_error(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("name: x\n")
    real_open = Path.open

    def denied(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", denied)
    with pytest.raises(RecipeError) as err:
        load_recipe(str(path))
    one_line_error(err.value, f"{path}: cannot be read (Permission denied)")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_chmod_000_recipe_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("name: x\n")
    path.chmod(0)
    with pytest.raises(RecipeError) as err:
        load_recipe(str(path))
    one_line_error(err.value, f"{path}: cannot be read (Permission denied)")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "is empty; a recipe needs at least one key"),
        (b"\x00\x01", "is a binary file, not a recipe YAML file"),
        (b"\xff\xfe", "is not UTF-8 text"),
        (b"[1, 2]\n", "a recipe must be a mapping"),
    ],
)
def test_unusable_eval_settings_files(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "eval.yaml"
    path.write_bytes(content)
    with pytest.raises(CollabrlError) as err:
        build_spec((str(path),), None, oracle=False)
    assert one_line_error(err.value, expected).startswith(f"{path}: ")
    with pytest.raises(CollabrlError) as err:
        build_spec((str(tmp_path),), None, oracle=False)
    one_line_error(err.value, f"{tmp_path}: is a directory, not a recipe file")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (laughs(4), "YAML holds more than 1000 values once its aliases are expanded"),
        ("name: &a [lol, *a]\n", "a YAML alias refers to a node that contains it"),
        ("name: " + "[" * 60 + "]" * 60 + "\n", "YAML nested deeper than 50 levels"),
        ("name: " + "[" * 2000 + "]" * 2000 + "\n", "YAML nested deeper than 50 levels"),
        (doubling(12), "${...} interpolations would expand past 1000 values and characters"),
        ("seed: " + "9" * 5000 + "\n", "Exceeds the limit (4300 digits)"),
    ],
    ids=["alias bomb", "recursive alias", "deep", "deeper than Python", "interpolation", "digits"],
)
def test_yaml_bombs_are_refused(tmp_path: Path, monkeypatch, text: str, expected: str) -> None:
    # Small limits keep these documents harmless should the bound ever break (the test then
    # fails instead of hanging); the CLI test below uses the real limits on real bombs.
    monkeypatch.setattr(settings_files, "MAX_YAML_VALUES", 1000)
    monkeypatch.setattr(settings_files, "MAX_RESOLVED_SIZE", 1000)
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    with pytest.raises(RecipeError) as err:
        load_recipe(str(path))
    assert one_line_error(err.value, expected).startswith(f"{path}: ")


def test_override_values_are_bounded_too(monkeypatch) -> None:
    monkeypatch.setattr(settings_files, "MAX_YAML_VALUES", 1000)
    bomb = "[&a [1,1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]]"
    with pytest.raises(RecipeError) as err:
        load_recipe("household_experts", [f"name={bomb}"])
    one_line_error(err.value, "override 'name=[&a", "YAML holds more than 1000 values")


def test_aliases_and_interpolations_within_bounds_still_work(tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "base: household_experts\n"
        "policy: {sampling: &s {temperature: 0.3, max_new_tokens: 64}}\n"
        "partner: {sampling: *s}\n"
        "output_dir: runs/${name}/${policy.sampling.max_new_tokens}\n"
    )
    recipe = load_recipe(str(path))
    assert recipe.partner.sampling == recipe.policy.sampling
    assert recipe.partner.sampling.max_new_tokens == 64
    assert recipe.output_dir == "runs/household_experts/64"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "collabrl", *args],
        capture_output=True,
        text=True,
        timeout=120,  # a bound that broke would hang: TimeoutExpired fails the test
        cwd=cwd,
    )


@pytest.mark.parametrize("command", ["lint", pytest.param("eval", marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (laughs(9), "once its aliases are expanded"),
        pytest.param(
            doubling(40), "interpolations would expand past 1000000", marks=pytest.mark.slow
        ),
    ],
    ids=["billion laughs", "interpolation doubling"],
)
def test_cli_refuses_real_bombs_quickly(
    tmp_path: Path, command: str, document: str, expected: str
) -> None:
    (tmp_path / "bomb.yaml").write_text(document)
    out = run_cli(command, "bomb.yaml", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: ") and expected in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def cli_error(capsys, *argv: str) -> str:
    """Run ``collabrl ARGV`` in-process; assert exit 2 with one ``error:`` line on stderr."""
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_cli_user_errors_exit_2_with_one_line(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert f"{empty}: is empty" in cli_error(capsys, "lint", str(empty))
    assert "is a directory" in cli_error(capsys, "lint", str(tmp_path))
    err = cli_error(capsys, "lint", "household_experts", "rollout.groups=99999999999999999999999")
    assert "rollout.groups: Input should be less than or equal to 4096" in err
    err = cli_error(capsys, "lint", "household_experts", "policy.engine_options.bogus=1")
    assert "policy.engine_options: unknown option(s) bogus" in err
    err = cli_error(capsys, "lint", "household_experts", "partner.profiles=[nobody]")
    assert "partner.profiles: unknown profile id 'nobody'" in err
    binary = tmp_path / "eval.yaml"
    binary.write_bytes(b"\x00\x00")
    assert f"{binary}: is a binary file" in cli_error(capsys, "eval", str(binary))


def test_a_wrong_file_does_not_flood_the_error_line(tmp_path: Path) -> None:
    path = tmp_path / "passwd.yaml"  # any key: value file that is not a recipe
    path.write_text("".join(f"user{i}: x:{i}:{i}::/home/u{i}:/bin/sh\n" for i in range(300)))
    with pytest.raises(RecipeError) as err:
        load_recipe(str(path))
    message = one_line_error(err.value, f"{path}: user0: unknown key", "and 297 more problem(s)")
    assert len(message) < 1000


LONG = "x" * 100_000


@pytest.mark.parametrize(
    "argv",
    [
        ("lint", "household_experts", f"partner.profiles=[{LONG}]"),
        ("lint", "household_experts", f"players=[{{kind: persona, profile: {LONG}}}]"),
        ("eval", f"profiles=[{LONG}]"),
        ("lint", "household_experts", f"rollout.tasks=[{LONG}]"),
        ("eval", f"tasks=[{LONG}]"),
        ("eval", f"games=[{LONG}]"),
        ("lint", "household_experts", f"game.name={LONG}"),
        ("lint", "household_experts", f"={LONG}"),
        ("lint", LONG),
    ],
    ids=[
        "partner profile",
        "player profile",
        "eval profile",
        "training task",
        "eval task",
        "eval game",
        "game name",
        "override without key",
        "recipe name",
    ],
)
def test_a_huge_user_value_is_quoted_by_a_bounded_prefix(capsys, argv: tuple[str, ...]) -> None:
    err = cli_error(capsys, *argv)
    assert len(err) < 1000 and "x" * 81 not in err, err[:300]
    if argv[-1] != LONG:  # a recipe name is cut as before (settings_files.clip)
        assert "… (1000" in err and " characters)" in err


def test_profiles_filter_reports_an_invalid_candidate_in_one_line(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "candidates.jsonl").write_text('{"id": "x", "game": "household"}\n')
    engine = ["engines.default.backend=openai", "engines.default.model=m"]  # never called
    err = cli_error(capsys, "profiles", "filter", str(run), "--quiet", *engine)
    assert err == (
        f"error: {run}/candidates.jsonl: record 1 is not a profile: missing field 'task' "
        "(and 5 more problems)\n"
    )


@pytest.mark.parametrize("blank", ["", "  "], ids=["empty", "blank"])
@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (("lint", "household_experts"), "output_dir"),
        (("play", "household_experts", "--quiet"), "output_dir"),
        (("eval", "games=[household]", "tasks=[0_read_book]", "--quiet"), "eval.output_dir"),
        (("lint", "household_experts", "eval.output_dir={blank}"), "eval.output_dir"),
    ],
    ids=["lint", "play", "eval", "recipe eval section"],
)
def test_an_empty_output_dir_is_refused_before_writing_anything(
    tmp_path, monkeypatch, capsys, argv: tuple[str, ...], key: str, blank: str
) -> None:
    monkeypatch.chdir(tmp_path)
    override = [a.format(blank=blank) for a in argv if "{blank}" in a] or [f"output_dir={blank}"]
    err = cli_error(capsys, *(a for a in argv if "{blank}" not in a), *override)
    assert f": {key}: must name a folder; an empty one would write into the current folder" in err
    assert list(tmp_path.iterdir()) == []
