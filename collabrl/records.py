"""Write lists of records twice: JSONL (greppable, dependency-free) and an HF dataset on disk; read
JSONL back.

The HF copy (``datasets.load_from_disk``) is what analysis notebooks, SFT tools and reward-model
work load. Fields named in ``json_fields`` are stored as JSON strings so records whose nested parts
differ in shape (e.g. the two games' summaries) still share one Arrow schema.

Encoding rule: every JSON line is ASCII (``ensure_ascii``): each non-ASCII character is written
as a JSON escape of its code point (U+2028 as ``\\u2028``). Why: generated text may hold U+2028
or U+0085 (which ``str.splitlines`` and other tools treat as line breaks) or a lone surrogate
(which UTF-8 cannot encode); escaped, any line splitter and any UTF-8 decoder reads the file and
every string round-trips exactly. Arrow strings are UTF-8 too, so the HF copy stores a lone
surrogate outside ``json_fields`` as U+FFFD; the JSONL copy keeps the exact text.

Writing rule: a killed writer never leaves half a file or half a set of files. One file is
written at a temporary name and renamed over the old one (:func:`atomic_open`). A command that
writes several outputs (``collabrl eval``, ``collabrl demos``, a profile-pipeline stage) writes
them as one set with :func:`output_set`: into a staging folder first, then renamed into place
under an ``<set>.incomplete`` flag that only a kill during those renames leaves behind. Readers
of such outputs call :func:`check_complete`, which refuses a file whose set carries the flag.

Run-folder rule: a command that writes a run folder (train, sft, demos, eval, play, quickstart)
first claims it (:func:`claim_folder`): the location must be writable, and a folder that already
holds another run is refused unless the command continues it (resume, or sft beside its
demonstrations) or was told to overwrite it, which moves the old folder aside. The owner is
named in ``run.json``.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from collabrl import __version__
from collabrl.errors import CollabrlError

_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def jsonl_line(record: dict[str, Any]) -> str:
    """One record as one line of ASCII JSON, without the newline (the module's encoding rule)."""
    return json.dumps(record, ensure_ascii=True, default=str)


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """One JSON object per line, written atomically (:func:`atomic_open`)."""
    with atomic_open(path) as f:
        for record in records:
            f.write(jsonl_line(record) + "\n")
    return path


def write_text(path: Path, text: str) -> Path:
    """``text`` as UTF-8, written atomically (:func:`atomic_open`)."""
    with atomic_open(path) as f:
        f.write(text)
    return path


FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list)."""
_PLAIN_NEGATIVE = re.compile(r"-[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def csv_cell(value: Any) -> Any:
    """``value`` safe to open in a spreadsheet: a string starting with ``=``, ``+``, ``-``,
    ``@``, tab or carriage return gets a leading ``'`` (OWASP's rule against CSV injection:
    ``=HYPERLINK(...)`` in a participant's free text must not run when a researcher opens the
    file). Numbers, booleans and None are left as they are; so is a string that is only a
    negative decimal number (``-3``, ``-0.5``, ``-1e-3``), which a spreadsheet reads as that
    number, not as a formula. JSONL copies of the same data keep the raw text."""
    formula = isinstance(value, str) and value.startswith(FORMULA_LEAD)
    return "'" + value if formula and not _PLAIN_NEGATIVE.fullmatch(value) else value


def write_csv(
    path: Path, rows: Iterable[dict[str, Any]], columns: Sequence[str] | None = None
) -> None:
    """``rows`` as a CSV with a header (``columns``: default, every key in first-seen order),
    each cell through :func:`csv_cell`: every CSV collabrl writes (study exports, evaluation
    tables) goes through here, so none can carry a spreadsheet formula."""
    rows = list(rows)
    if columns is None:
        columns = list(dict.fromkeys(k for row in rows for k in row))
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)


@contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A file (text as UTF-8, or binary with ``mode="wb"``) open at ``path.tmp``, renamed over
    ``path`` when the block ends without error and removed when it fails.

    Why: a crash or kill while writing leaves the old ``path`` (or none), never half a new one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def output_set(folder: Path, name: str) -> Iterator[Path]:
    """A staging folder for the outputs of one run; when the block ends without error, everything
    in it replaces its namesakes in ``folder`` together.

    Design: files are written into ``folder/.NAME.partial/`` while nothing in ``folder`` changes,
    so a failure or kill there leaves the previous outputs whole and readable. Then
    ``NAME.incomplete`` (listing the set) is written, each staged entry is renamed into place and
    the flag is removed. Only a kill during those renames leaves a mix of old and new outputs,
    and then the flag stays until a later run of the same command finishes: readers refuse it
    with :func:`check_complete`. (The flag, rather than a marker of completion, lets outputs that
    never came from a staged run, such as demonstrations made by other tools, load as before.)
    """
    staging = folder / f".{name}.partial"
    shutil.rmtree(staging, ignore_errors=True)  # left by a killed run
    staging.mkdir(parents=True)
    try:
        yield staging
        _move_into_place(staging, folder, _flag(folder, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_complete(
    path: Path, name: str, redo: str, error: type[CollabrlError] = CollabrlError
) -> Path:
    """``path``, unless its output set ``name`` (see :func:`output_set`) was left half replaced:
    then one ``error`` saying the run that wrote it did not finish, and ``redo``."""
    flag = _flag(path.parent, name)
    if flag.exists():
        raise error(
            f"{path} is incomplete: the run that wrote it stopped while replacing its outputs "
            f"({flag.name} is still there); {redo}"
        )
    return path


def read_jsonl(
    path: Path, error: type[CollabrlError] = CollabrlError, *, torn_tail: bool = False
) -> list[dict[str, Any]]:
    """The records of a JSONL file; any fault is one ``error`` naming ``file:line``.

    With ``torn_tail``, a last line that is not a JSON object is dropped instead: a writer killed
    mid-line (an appended log) leaves one. A bad line anywhere else is still an error.
    """
    text = read_text(path, error)
    if torn_tail:
        text = without_torn_tail(text)
    return [record for _, record in parse_jsonl(str(path), text, error)]


def without_torn_tail(text: str) -> str:
    """``text`` less its last line when that line does not hold a JSON object."""
    body, _, last = text.rstrip("\n").rpartition("\n")
    try:
        _object("", last, CollabrlError)
    except CollabrlError:
        return body
    return text


def parse_jsonl(
    label: str, text: str, error: type[CollabrlError] = CollabrlError
) -> list[tuple[int, dict[str, Any]]]:
    """(line number, record) per non-blank line of ``text``, which came from the file ``label``.

    Lines are split on "\\n" only: ``str.splitlines`` also splits on U+2028, U+0085, \\x1c..., which
    a JSON string may hold unescaped, and so would cut a valid record in two.
    """
    return [
        (number, _object(f"{label}:{number}", line, error))
        for number, line in enumerate(text.split("\n"), 1)
        if line.strip()
    ]


def parse_jsonl_skipping(label: str, text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The records of ``text`` (from the file ``label``) and one ``file:line: why`` note per line
    that is not a JSON object, which is skipped: for readers that must show what they can (the
    viewer) rather than refuse a whole file for one bad line."""
    records, skipped = [], []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            records.append(_object(f"{label}:{number}", line, CollabrlError))
        except CollabrlError as err:
            skipped.append(f"{err}; line skipped")
    return records, skipped


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB blocks (checkpoint and study manifests)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_text(path: Path, error: type[CollabrlError] = CollabrlError) -> str:
    """A UTF-8 file's text, newlines untranslated; unreadable or not UTF-8 is one ``error``."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise error(f"{path}: cannot be read ({err.strerror or err})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise error(f"{path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from None


def decode_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ``JSONDecodeError`` with a position.

    Why: a document nested too deeply (RecursionError) or holding an integer longer than Python
    converts (ValueError) would otherwise escape as a traceback with no line to point at.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, _deepest_bracket(text)) from None
    except ValueError:  # only the int conversion limit (sys.set_int_max_str_digits) raises this
        position = _longest_integer(text)
        raise json.JSONDecodeError("integer with too many digits", text, position) from None


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages such as "got array"."""
    return _JSON_TYPES.get(type(value), "number")


MAX_QUOTED = 80
"""Characters of a user-given value that an error message quotes (:func:`quoted`)."""


def quoted(value: object, limit: int = MAX_QUOTED) -> str:
    """``repr(value)`` for an error message; a longer value is cut to its first ``limit``
    characters and its length: ``'xxxx'… (100000 characters)``.

    Why: an error quotes what the user gave so that they can find it, but a hostile or mistaken
    value (a 100,000-character profile id, a file pasted as a name) must not flood the line.
    """
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(value)
    head = repr(text[:limit]) if isinstance(value, str) else text[:limit]
    return f"{head}… ({len(text)} characters)"


def write_hf_dataset(
    folder: Path, records: Sequence[dict[str, Any]], json_fields: Sequence[str] = ()
) -> None:
    """The HF copy of ``records`` (``json_fields`` as JSON strings, by the encoding rule above)."""
    hf_dataset(records, json_fields).save_to_disk(str(folder))


def hf_dataset(records: Sequence[dict[str, Any]], json_fields: Sequence[str] = ()) -> Any:
    """``records`` as an in-memory ``datasets.Dataset`` (``json_fields`` as JSON strings)."""
    import datasets

    rows = [
        {k: jsonl_line(v) if k in json_fields else _utf8_only(v) for k, v in r.items()}
        for r in records
    ]
    return datasets.Dataset.from_list(rows)


RUN_MANIFEST = "run.json"
"""The file that names a run folder's owner (see :func:`claim_folder`)."""

RUN_OUTPUTS = (
    "metrics.jsonl",
    "checkpoints",
    "episodes.jsonl",
    "results.json",
    "tables.md",
    "trajectories.jsonl",
    "demos.jsonl",
    "eval_jobs.jsonl",  # the job journal of a killed `collabrl eval` (collabrl.eval.journal)
)
"""Entries that show a folder holds a run's work, with or without a manifest (older runs)."""


@dataclass(frozen=True)
class RunClaim:
    """A command's request to write a run folder, and the terms on which it may take one."""

    command: str  # train, sft, demos, eval, play, quickstart
    settings: dict[str, Any]  # what the run was configured with (hashed into the manifest)
    overwrite: bool = False  # move a folder holding another run aside
    resume: bool = False  # continue the folder's run of the same command and settings
    joins: tuple[str, ...] = ()  # commands whose folder this one may share (sft beside demos)
    inputs: tuple[str, ...] = ()  # entries of the folder this run reads: not another run's work
    hint: str = "pass --overwrite to move it aside, or write elsewhere"  # ends a refusal
    argv: list[str] = field(default_factory=lambda: list(sys.argv))


def claim_folder(folder: Path, claim: RunClaim) -> Path:
    """Make ``folder`` this run's, before any work starts; one :class:`CollabrlError` when it
    cannot be written or holds another run. (Multi-process trainers call the three steps.)"""
    take_folder(folder, claim, check_claim(check_writable(folder), claim))
    return folder


def check_writable(folder: Path) -> Path:
    """``folder``, created, after writing and removing a probe file in it.

    Why: an output location under a regular file or without write permission would otherwise
    fail at the first write, after all the work.
    """
    probe = folder / f".probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise CollabrlError(f"cannot write to {folder}: {err.strerror or err}") from None
    return folder


def check_claim(folder: Path, claim: RunClaim) -> str:
    """What taking ``folder`` for ``claim`` means: "new", "resume" or "overwrite"; a folder that
    holds another run, or the same run with other settings, is one error. Reads only."""
    if claim.overwrite and claim.resume:
        raise CollabrlError("--overwrite and train.resume=true contradict each other: choose one")
    previous = previous_run(folder, claim)
    if previous is None:
        return "new"
    if claim.overwrite:
        return "overwrite"
    if claim.resume and previous.get("command", claim.command) == claim.command:
        _check_same_settings(folder, previous, claim)
        return "resume"
    raise CollabrlError(f"{folder} already holds {_describe(previous)}; {claim.hint}")


def take_folder(folder: Path, claim: RunClaim, action: str) -> None:
    """Act on :func:`check_claim`'s answer: move an overwritten run aside, then write the manifest
    (a resumed run keeps what its predecessor completed)."""
    completed = None
    if action == "resume":
        completed = (read_manifest(folder) or {}).get("completed")
    if action == "overwrite":
        print(f"moved the run in {folder} aside to {move_aside(folder, claim.inputs)}")
    write_manifest(folder, {**_owner(claim), "completed": completed})


def previous_run(folder: Path, claim: RunClaim) -> dict[str, Any] | None:
    """The manifest of the run ``folder`` holds ({"outputs": [...]} for a run that left none), or
    None when it holds none for ``claim``: a run that completed nothing and left no outputs (it
    failed at the start) does not count, nor do a joined command's manifest and ``claim.inputs``.
    """
    manifest = read_manifest(folder)
    if manifest is not None and manifest.get("command") in claim.joins:
        manifest = None
    outputs = [n for n in RUN_OUTPUTS if n not in claim.inputs and os.path.lexists(folder / n)]
    if manifest is not None and (manifest.get("completed") or outputs):
        return manifest
    return {"outputs": outputs} if outputs else None


def move_aside(folder: Path, keep: Sequence[str] = ()) -> Path:
    """Rename ``folder`` to ``<folder>.old-<time>`` (never delete a run) and start it afresh with
    a copy of the entries named in ``keep`` (inputs the new run reads); returns the new name."""
    folder = folder.resolve()
    stem = f"{folder.name}.old-{time.strftime('%Y%m%d-%H%M%S')}"
    names = itertools.chain([stem], (f"{stem}-{n}" for n in itertools.count(2)))
    aside = next(p for p in map(folder.with_name, names) if not os.path.lexists(p))
    os.replace(folder, aside)
    folder.mkdir()
    for name in keep:
        if (aside / name).is_dir():
            shutil.copytree(aside / name, folder / name)
        elif (aside / name).is_file():
            shutil.copy2(aside / name, folder / name)
    return aside


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The run manifest of ``folder``, or None when it has none."""
    path = folder / RUN_MANIFEST
    if not path.is_file():
        return None
    return _object(str(path), read_text(path), CollabrlError)


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """``manifest`` as ``folder``'s run manifest (atomically)."""
    write_text(folder / RUN_MANIFEST, json.dumps(manifest, indent=1) + "\n")


def mark_completed(folder: Path, completed: dict[str, Any]) -> None:
    """Record in ``folder``'s manifest what its run has completed (a checkpoint, the outputs)."""
    write_manifest(folder, {**(read_manifest(folder) or {}), "completed": completed})


def settings_hashes(settings: dict[str, Any]) -> dict[str, str]:
    """A short SHA-256 per top-level setting: equal settings give equal hashes, and a resume
    with other settings can name the sections that differ."""
    return {
        key: hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]
        for key, value in settings.items()
    }


def _owner(claim: RunClaim) -> dict[str, Any]:
    """The manifest fields that identify the run of ``claim``."""
    return {
        "command": claim.command,
        "settings_sha256": settings_hashes(claim.settings),
        "collabrl": __version__,
        "argv": claim.argv,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _check_same_settings(folder: Path, previous: dict[str, Any], claim: RunClaim) -> None:
    """Refuse to resume a run whose manifest records other settings than ``claim``'s."""
    old = previous.get("settings_sha256")
    if old is None:  # a run from before manifests: nothing to compare
        return
    new = settings_hashes(claim.settings)
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if differ:
        raise CollabrlError(
            f"cannot resume {folder}: its run was started with other settings (differing: "
            f"{', '.join(differ)}); resume with its recipe, or drop train.resume=true and pass "
            "--overwrite to start afresh"
        )


def _describe(previous: dict[str, Any]) -> str:
    """A run found in a folder, for a refusal."""
    if "command" in previous:
        return f"an earlier `{previous['command']}` run (started {previous.get('started', '?')})"
    return f"an earlier run's outputs ({', '.join(previous.get('outputs', []))})"


def _flag(folder: Path, name: str) -> Path:
    """The file that marks the output set ``name`` in ``folder`` as half replaced."""
    return folder / f"{name}.incomplete"


def _move_into_place(staging: Path, folder: Path, flag: Path) -> None:
    """Rename every entry of ``staging`` into ``folder`` under ``flag`` (see :func:`output_set`).

    An existing entry is first moved aside into the staging folder (deleted with it): a folder
    such as an HF dataset cannot be replaced by a single rename.
    """
    names = sorted(p.name for p in staging.iterdir())
    write_text(flag, "".join(f"{n}\n" for n in names))
    aside = staging / ".replaced"
    aside.mkdir()
    for n in names:
        _swap(staging / n, folder / n, aside / n)
    flag.unlink()


def _swap(new: Path, target: Path, aside: Path) -> None:
    """Put ``new`` at ``target``, moving what was there to ``aside``."""
    if os.path.lexists(target):
        os.replace(target, aside)
    os.replace(new, target)


def _object(where: str, line: str, error: type[CollabrlError]) -> dict[str, Any]:
    try:
        value = decode_json(line)
    except json.JSONDecodeError as err:
        raise error(f"{where}: bad JSON ({err.msg}, column {err.colno})") from None
    if not isinstance(value, dict):
        raise error(f"{where}: expected a JSON object, got {json_type(value)}")
    return value


def _utf8_only(value: Any) -> Any:
    """``value`` with each lone surrogate (inside lists and dicts too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {k: _utf8_only(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_utf8_only(v) for v in value]
    return value


def _without_strings(text: str) -> str:
    """``text`` with every JSON string blanked (same length): brackets and digits in strings are
    text, not structure."""
    return _JSON_STRING.sub(lambda m: " " * len(m.group()), text)


def _deepest_bracket(text: str) -> int:
    """Offset of the bracket that opens the deepest nesting level."""
    depth = deepest = offset = 0
    for match in re.finditer(r"[\[\]{}]", _without_strings(text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > deepest:
            deepest, offset = depth, match.start()
    return offset


def _longest_integer(text: str) -> int:
    """Offset of the longest run of digits."""
    runs = re.finditer(r"[0-9]+", _without_strings(text))
    return max(runs, key=lambda m: m.end() - m.start()).start()
