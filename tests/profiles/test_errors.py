"""Bad profile files and ids fail loudly with one line naming the file, record and fault."""

import json
import runpy
from pathlib import Path

import pytest

from collabrl.errors import CollabrlError
from collabrl.profiles import ProfileError, get_profile, load_profiles

GOOD = {
    "id": "mine-01",
    "game": "kitchen",
    "task": "cramped_room",
    "big_five": {
        "openness": "high",
        "conscientiousness": "low",
        "extraversion": "unknown",
        "agreeableness": "medium",
        "neuroticism": "high",
    },
    "behavior": "Grabs onions in a hurry and asks the partner twice whether the pot is full.",
    "player_type": "anxious_doubter",
    "split": "test",
    "provenance": "handwritten",
}


def _with(**changes: object) -> dict:
    record = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            del record[key]
        else:
            record[key] = value
    return record


def _write(tmp_path: Path, name: str, records: list[object]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _error(path: Path) -> str:
    with pytest.raises(ProfileError) as info:
        load_profiles(path=path)
    message = str(info.value)
    assert "\n" not in message and isinstance(info.value, CollabrlError)
    return message


@pytest.mark.parametrize(
    "record,expected",
    [
        (
            _with(big_five={**GOOD["big_five"], "openness": "very"}),
            "big_five.openness: Input should be",
        ),
        (_with(colour="red"), "unknown key 'colour'"),
        (_with(behavior=None), "missing field 'behavior'"),
        (_with(player_type="wizard"), "player_type: Input should be"),
        (_with(task="0_read_book"), "unknown kitchen task '0_read_book'"),
        (
            _with(game="household", task="3_read_book"),
            "3_read_book is a train task but split is 'test'",
        ),
        (_with(behavior="short"), "behavior: String should have at least 20 characters"),
        ("not a record", "expected a JSON object, got string"),
        (
            _with(behavior=GOOD["behavior"] + "\x00"),
            f"behavior: control character U+0000 at position {len(GOOD['behavior'])}",
        ),
        (
            _with(behavior="\x1b[8m" + GOOD["behavior"]),
            "behavior: control character U+001B at position 0",
        ),
        (_with(task="cramped_room\x00"), "task: control character U+0000"),
        (_with(provenance="perturbed:x\x07"), "provenance: control character U+0007"),
    ],
)
def test_bad_record_names_line_and_fault(tmp_path: Path, record: object, expected: str) -> None:
    path = _write(tmp_path, "p.jsonl", [GOOD | {"id": "first"}, record])
    message = _error(path)
    assert message.startswith(f"{path}:2: ") and expected in message


def test_bad_json_line(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{not json\n")
    assert _error(path).startswith(f"{path}:2: bad JSON")


DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "7" * 5000  # longer than Python converts to an int (4300 digits)


@pytest.mark.parametrize(
    "name,text,expected",
    [
        ("p.jsonl", f'{json.dumps(GOOD)}\n{{"x": {DEEP}}}\n', ":2: bad JSON (nested too deeply"),
        ("p.jsonl", f'{json.dumps(GOOD)}\n{{"x": {HUGE}}}\n', ":2: bad JSON (integer with too"),
        ("p.json", f"[\n{json.dumps(GOOD)},\n{DEEP}\n]", ":3: bad JSON (nested too deeply)"),
        ("p.json", f"[\n{json.dumps(GOOD)},\n{HUGE}\n]", ":3: bad JSON (integer with too many"),
        (
            "p.yaml",
            f"- {json.dumps(GOOD)}\n- {DEEP}\n",
            ":2: bad YAML (nested more than 100 levels",
        ),
        ("p.yaml", "- x\n" + "- " * 200 + "deep\n", ":2: bad YAML (nested more than 100 levels"),
        (
            "p.yaml",
            f"- {json.dumps(GOOD)}\n- {HUGE}\n",
            ":2: bad YAML (integer with too many digits)",
        ),
        ("p.yaml", f"- {json.dumps(GOOD)}\n- a\x00b\n", ":2: bad YAML (character U+0000 is not"),
    ],
)
def test_hostile_documents_are_one_line_errors_with_a_line(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    """Deep nesting and giant integers would otherwise be a RecursionError or ValueError."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert _error(path).startswith(f"{path}{expected}")


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b"\n\x89PNG\r\n\x1a\n")
    assert _error(path) == f"{path}:2: not UTF-8 text (byte 0x89)"


def test_duplicate_id(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, "p.jsonl", [GOOD, GOOD]))
    assert ":2: duplicate id 'mine-01' (first at" in message


def test_test_profile_reused_in_train(tmp_path: Path) -> None:
    copy = GOOD | {"id": "mine-02", "split": "train"}
    assert "reuses the behavior of test profile 'mine-01'" in _error(
        _write(tmp_path, "p.jsonl", [GOOD, copy])
    )
    perturbed = copy | {
        "behavior": GOOD["behavior"] + " Also hums.",
        "provenance": "perturbed:mine-01",
    }
    assert "perturbed from test profile 'mine-01'" in _error(
        _write(tmp_path, "q.jsonl", [GOOD, perturbed])
    )


def test_missing_empty_and_unsupported_files(tmp_path: Path) -> None:
    assert _error(tmp_path / "nope.jsonl") == f"profile file not found: {tmp_path / 'nope.jsonl'}"
    (tmp_path / "empty.jsonl").write_text("\n\n")
    assert _error(tmp_path / "empty.jsonl") == f"{tmp_path / 'empty.jsonl'}: no profiles in file"
    (tmp_path / "empty.yaml").write_text("")
    assert _error(tmp_path / "empty.yaml").endswith("no profiles in file")
    (tmp_path / "p.csv").write_text("id\n")
    assert "unsupported file type '.csv'" in _error(tmp_path / "p.csv")


def test_json_and_yaml_files(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps([GOOD]))
    (tmp_path / "p.yaml").write_text(f"- {json.dumps(GOOD)}\n")
    for name in ("p.json", "p.yaml"):
        assert [p.id for p in load_profiles(path=tmp_path / name)] == ["mine-01"]
    (tmp_path / "bad.json").write_text(json.dumps({"profiles": [GOOD]}))
    assert "expected a list of profile records" in _error(tmp_path / "bad.json")
    (tmp_path / "bad.yaml").write_text(f"- {json.dumps(_with(split='dev'))}\n")
    assert _error(tmp_path / "bad.yaml").startswith(
        f"{tmp_path / 'bad.yaml'}: record 1: profile 'mine-01': split"
    )


def test_unknown_id_and_empty_selection() -> None:
    with pytest.raises(
        ProfileError, match=r"unknown profile id 'cwah-0_read_book-test-99'.*did you mean"
    ):
        get_profile("cwah-0_read_book-test-99")
    with pytest.raises(ProfileError, match="unknown task '0_read_book' for game kitchen"):
        load_profiles(game="kitchen", task="0_read_book")
    with pytest.raises(ProfileError, match="unknown game 'chess'"):
        load_profiles(game="chess")
    with pytest.raises(ProfileError, match="no profiles with split=train, task=0_read_book"):
        load_profiles(split="train", task="0_read_book")


def test_script_writes_and_checks(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "make_profiles.py"
    main = runpy.run_path(str(script))["main"]
    assert main(["--out", str(tmp_path)]) == 0
    assert main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "kitchen_train.jsonl").write_text("")
    assert main(["--out", str(tmp_path), "--check"]) == 1


def test_a_huge_unknown_id_is_quoted_by_a_bounded_prefix() -> None:
    with pytest.raises(ProfileError) as err:
        get_profile("a" * 100_000)
    message = str(err.value)
    assert message.startswith(f"unknown profile id {'a' * 80!r}… (100000 characters) in the ")
    assert len(message) < 200
