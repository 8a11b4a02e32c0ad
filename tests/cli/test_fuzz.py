"""Property-based fuzzing of every loader that reads user files: whatever the bytes, the answer is
a validated object or a one-line CollabrlError, never another exception; and every record the
project writes reads back exactly.

Bounded for CI: derandomised (the same examples every run), a fixed number of examples each.
"""

import json
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from collabrl.config import Recipe, load_recipe
from collabrl.errors import CollabrlError
from collabrl.profiles import read_profile_file
from collabrl.records import read_jsonl, write_jsonl
from collabrl.sft.demos import read_demos

pytestmark = pytest.mark.slow  # minutes of CPU: only the full suite (.ci/run) runs it

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Strings with the characters that broke readers before: line separators, NUL, lone surrogates,
# right-to-left marks, quotes and YAML/interpolation syntax.
HOSTILE = st.lists(
    st.characters(codec=None)
    | st.sampled_from(["\u2028", "\u2029", "\x00", "\ud800", "\u202e", '"', "${", "&a", "*a"]),
    max_size=30,
).map("".join)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    HOSTILE,
)
KEYS = st.sampled_from(
    ["name", "seed", "game", "players", "rollout", "algo", "reward", "policy", "base", "kind"]
) | st.text(string.ascii_lowercase + "._", min_size=1, max_size=12)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


def one_line(err: CollabrlError) -> None:
    assert str(err) and "\n" not in str(err)


def check_loads(load) -> object:
    try:
        return load()
    except CollabrlError as err:
        one_line(err)
        return None


@FUZZ
@given(document=DOCUMENTS)
def test_recipe_loader_on_arbitrary_yaml(tmp_path: Path, document: object) -> None:
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=False), encoding="utf-8")
    result = check_loads(lambda: load_recipe(str(path)))
    assert result is None or isinstance(result, Recipe)


@FUZZ
@given(data=st.binary(max_size=300))
def test_recipe_loader_on_arbitrary_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "recipe.yaml"
    path.write_bytes(data)
    result = check_loads(lambda: load_recipe(str(path)))
    assert result is None or isinstance(result, Recipe)


@FUZZ
@given(
    key=st.sampled_from(
        ["seed", "name", "rollout.groups", "algo.lr", "game.seats", "players.0.kind", "reward"]
    )
    | st.text(max_size=20),
    value=HOSTILE | st.sampled_from(["[1, 2]", "{a: 1}", ".nan", "-1", "true", "1e400"]),
)
def test_override_parser_on_arbitrary_pairs(key: str, value: str) -> None:
    result = check_loads(lambda: load_recipe("household_experts", [f"{key}={value}"]))
    assert result is None or isinstance(result, Recipe)


@pytest.mark.parametrize("loader", [read_profile_file, read_demos], ids=["profiles", "demos"])
@FUZZ
@given(records=st.lists(DOCUMENTS, max_size=4), raw=st.text(max_size=60))
def test_record_file_loaders_on_arbitrary_records(
    tmp_path: Path, loader, records: list, raw: str
) -> None:
    path = tmp_path / "records.jsonl"
    lines = [json.dumps(r) for r in records] + [raw]
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    check_loads(lambda: loader(path))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | HOSTILE,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE, inner, max_size=4),
    max_leaves=20,
)


@FUZZ
@given(records=st.lists(st.dictionaries(HOSTILE, JSON_VALUES, max_size=5), max_size=5))
def test_jsonl_round_trip_is_exact(tmp_path: Path, records: list[dict]) -> None:
    path = tmp_path / "records.jsonl"
    write_jsonl(path, records)
    assert read_jsonl(path) == records
