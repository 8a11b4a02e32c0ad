"""Load and validate profile files; every problem is a one-line error, never a silently empty set."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import yaml
from pydantic import ValidationError

from collabrl.envs.registry import registered_games
from collabrl.errors import CollabrlError, first_problem
from collabrl.profiles.schema import Profile
from collabrl.records import decode_json, json_type, parse_jsonl, quoted, read_text

LIBRARY_PACKAGE = "collabrl.data.profiles"

Located = tuple[str, object]  # (where: "file:line" or "file: record n", raw record)
MAX_YAML_DEPTH = 100  # a profile nests 3 levels; far deeper YAML would exhaust Python's stack


class ProfileError(CollabrlError):
    """A profile file, record or id that cannot be used; the message names file, record and fault."""


def load_profiles(
    game: str | None = None,
    split: str | None = None,
    task: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> list[Profile]:
    """Profiles matching the filters, from the shipped library or a user file (.jsonl/.json/.yaml)."""
    _check_filters(game, split, task)
    profiles = _library() if path is None else read_profile_file(path)
    chosen = [
        p
        for p in profiles
        if (game is None or p.game == game)
        and (split is None or p.split == split)
        and (task is None or p.task == task)
    ]
    if not chosen:
        wanted = ", ".join(
            f"{k}={v}" for k, v in (("game", game), ("split", split), ("task", task)) if v
        )
        raise ProfileError(f"no profiles with {wanted} in {_source(path)}")
    return chosen


def has_profiles(game: str) -> bool:
    """Whether the shipped library holds any profile of ``game`` (a plug-in game may have none)."""
    return any(p.game == game for p in _library())


def get_profile(profile_id: str, path: str | os.PathLike[str] | None = None) -> Profile:
    """The profile with this id; an unknown id is an error with the closest known ids."""
    profiles = _library() if path is None else read_profile_file(path)
    by_id = {p.id: p for p in profiles}
    if profile_id in by_id:
        return by_id[profile_id]
    close = difflib.get_close_matches(profile_id, by_id, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ProfileError(f"unknown profile id {quoted(profile_id)} in {_source(path)}{hint}")


def read_profile_file(path: str | os.PathLike[str]) -> tuple[Profile, ...]:
    """Every record of one user file, validated together (ids unique, no test reuse in train)."""
    file = Path(path)
    if not file.exists():
        raise ProfileError(f"profile file not found: {file}")
    if file.is_dir():
        raise ProfileError(f"{file}: is a directory, expected a .jsonl, .json or .yaml file")
    return validate_records(parse_records(str(file), read_text(file, ProfileError)))


def parse_records(label: str, text: str) -> list[Located]:
    """Split a file's text into raw records, each tagged with where it came from."""
    suffix = Path(label).suffix.lower()
    located: list[Located]
    if suffix == ".jsonl":
        located = [(f"{label}:{n}", raw) for n, raw in parse_jsonl(label, text, ProfileError)]
    else:
        data = _parse_document(label, suffix, text)
        if data is not None and not isinstance(data, list):
            raise ProfileError(f"{label}: expected a list of profile records at the top level")
        located = [(f"{label}: record {i}", raw) for i, raw in enumerate(data or [], 1)]
    if not located:
        raise ProfileError(f"{label}: no profiles in file")
    return located


def validate_records(records: Iterable[Located]) -> tuple[Profile, ...]:
    """Validate every record, then the rules that span records."""
    seen: dict[str, str] = {}
    located: list[tuple[str, Profile]] = []
    for where, raw in records:
        profile = _validate_one(where, raw)
        if profile.id in seen:
            raise ProfileError(
                f"{where}: duplicate id {quoted(profile.id)} (first at {seen[profile.id]})"
            )
        seen[profile.id] = where
        located.append((where, profile))
    _check_no_test_reuse(located)
    return tuple(p for _, p in located)


def _parse_document(label: str, suffix: str, text: str) -> object:
    if suffix == ".json":
        try:
            return decode_json(text) if text.strip() else None
        except json.JSONDecodeError as err:
            raise ProfileError(f"{label}:{err.lineno}: bad JSON ({err.msg})") from None
    if suffix in (".yaml", ".yml"):
        try:
            return yaml.load(text, Loader=_BoundedLoader)  # a SafeLoader: no arbitrary objects
        except yaml.YAMLError as err:
            raise ProfileError(_yaml_problem(label, text, err)) from None
    raise ProfileError(f"{label}: unsupported file type {suffix!r}; use .jsonl, .json or .yaml")


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that turns deep nesting and over-long integers into YAML errors with a line,
    where the plain one raises RecursionError or ValueError without saying where."""

    depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        if self.depth >= MAX_YAML_DEPTH:
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_YAML_DEPTH} levels deep", mark
            )
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # the int conversion limit (sys.set_int_max_str_digits)
            raise yaml.constructor.ConstructorError(
                None, None, "integer with too many digits", node.start_mark
            ) from None


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)


def _yaml_problem(label: str, text: str, err: yaml.YAMLError) -> str:
    """``file:line: bad YAML (problem)``, the line taken from wherever the error keeps it."""
    if isinstance(err, yaml.reader.ReaderError):  # a character YAML forbids, such as NUL
        line = text.count("\n", 0, err.position) + 1
        return f"{label}:{line}: bad YAML (character U+{err.character:04X} is not allowed)"
    mark = getattr(err, "problem_mark", None)
    where = f"{label}:{mark.line + 1}" if mark is not None else label
    return f"{where}: bad YAML ({getattr(err, 'problem', None) or type(err).__name__})"


def _validate_one(where: str, raw: object) -> Profile:
    if not isinstance(raw, dict):
        raise ProfileError(f"{where}: expected a profile object, got {json_type(raw)}")
    try:
        return Profile.model_validate(raw)
    except ValidationError as err:
        name = f"profile {quoted(raw['id'])}: " if isinstance(raw.get("id"), str) else ""
        raise ProfileError(f"{where}: {name}{first_problem(err)}") from None


def _check_no_test_reuse(located: list[tuple[str, Profile]]) -> None:
    test_ids = {p.id for _, p in located if p.split == "test"}
    test_behaviors = {p.behavior: p.id for _, p in located if p.split == "test"}
    for where, p in located:
        if p.split != "train":
            continue
        if p.behavior in test_behaviors:
            raise ProfileError(
                f"{where}: train profile {quoted(p.id)} reuses the behavior of test profile "
                f"{quoted(test_behaviors[p.behavior])}"
            )
        source = p.provenance.partition(":")[2]
        if p.provenance.startswith("perturbed:") and source in test_ids:
            raise ProfileError(
                f"{where}: train profile {quoted(p.id)} is perturbed from test profile {quoted(source)}; "
                "train profiles must come from held-out sources"
            )


def _check_filters(game: str | None, split: str | None, task: str | None) -> None:
    games = registered_games()
    if game is not None and game not in games:
        raise ProfileError(f"unknown game {quoted(game)}; choose from {', '.join(sorted(games))}")
    if split is not None and split not in ("train", "test"):
        raise ProfileError(f"unknown split {quoted(split)}; choose train or test")
    chosen = [game] if game else sorted(games)
    if task is not None and not any(task in games[g].all_tasks() for g in chosen):
        raise ProfileError(f"unknown task {quoted(task)} for game {game or ' / '.join(chosen)}")


def _source(path: str | os.PathLike[str] | None) -> str:
    return "the shipped profile library" if path is None else str(path)


def library_games() -> list[str]:
    """The built-in games whose handwritten library ships in collabrl's package data (their
    section's ``profile_source`` lives in collabrl)."""
    return [
        name
        for name, section in registered_games().items()
        if (section.profile_source or "").startswith("collabrl.")
    ]


def library_files() -> list[str]:
    """The shipped profile files: ``<game>_<split>.jsonl`` for each library game."""
    return [f"{game}_{split}.jsonl" for game in library_games() for split in ("test", "train")]


@lru_cache(maxsize=1)
def _library() -> tuple[Profile, ...]:
    root = files(LIBRARY_PACKAGE)
    records: list[Located] = []
    for name in library_files():
        resource = root.joinpath(name)
        label = f"{LIBRARY_PACKAGE.replace('.', '/')}/{name}"
        if not resource.is_file():
            raise ProfileError(
                f"shipped profile file missing: {label}; reinstall collabrl or run "
                "scripts/make_profiles.py"
            )
        records.extend(parse_records(label, resource.read_text(encoding="utf-8")))
    return validate_records(records)
