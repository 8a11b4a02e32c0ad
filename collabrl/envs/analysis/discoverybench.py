"""Tasks in DiscoveryBench's own folder format, read from a local copy of the benchmark.

collabrl ships no DiscoveryBench data; a researcher who has the benchmark (for instance
``discoverybench/real/test`` of allenai/discoverybench and its ``eval/answer_key_real.csv``)
plays it with :func:`load_discoverybench`. The layout read:

- ``<root>/<domain>/metadata_<id>.json``: ``datasets`` (each with ``name``, a CSV file in the
  same folder, a ``description`` and ``columns.raw``, a list of ``{name, description}``, and
  optionally its own ``domain_knowledge``), ``queries`` (a list of lists of ``{qid, question,
  relevant_cols, target_col, ...}``), ``domain_knowledge``, ``workflow_tags`` and ``workflow``;
- an answer key CSV with the columns ``dataset`` (the domain folder's name), ``metadataid`` (the
  ``<id>`` of the metadata file's name), ``query_id`` (the query's ``qid``) and ``gold_hypo``, and
  optionally ``gold_workflow``: in ``<root>`` itself, or where the published benchmark keeps it
  (``<repo>/eval/answer_key_real.csv`` for ``<repo>/discoverybench/real/test``).

Each query becomes one :class:`~collabrl.envs.analysis.tasks.AnalysisTask` named
``<domain>-<id>-<qid>``, mapped as follows:

- tables: every dataset's CSV, named by its file name without ``.csv``; table and column names
  are made identifiers (other characters become ``_``; the CSV's header stays in the column's
  description when it changed), numbers stay numbers, a column whose cells are all numbers
  written with a decimal comma or point, with or without an exponent (``"5,65"``,
  ``"-7,09880963797244E-05"``, as in the archaeology CSVs), is read as numbers, empty or
  non-finite cells are missing; column descriptions come from ``columns.raw`` by name. A CSV is
  read once per load however many metadata files name it, and metadata files that describe it
  alike share one table;
- notes: the domain knowledge (the file's, then each dataset's), split into its numbered items
  (``1. ... 2. ...``) when it has them. DiscoveryBench has no roles, so each note goes to the
  role whose words it uses most: methods (smoothing, interpolation, principal components, growth
  rates, z-values) to ``statistics``, objects and evidence (pottery, metals, amber, monuments,
  pollen) to ``materials``, and the rest, ties included, to ``chronology``. A heuristic, so that
  a team's seats hold different knowledge; it is not DiscoveryBench's. In a team composed by
  collaborator profile, statistics notes go to D, materials notes to R and the rest to the agent
  (:data:`ROLE_PROFILES`), and each task adds D's and R's guidance (a derived workflow, traps:
  :mod:`collabrl.envs.analysis.real_workflows`);
- gold: ``sentence`` is ``gold_hypo``; ``context`` is its leading clause ("Around 1100 BCE, ...")
  and ``relation`` the rest, or both the whole sentence when it has no such clause; ``variables``
  are the query's ``relevant_cols`` and ``target_col``, else the columns the sentence or the
  query names (a column's name with ``_`` read as a space counts), else none (a gold without
  variables scores 1 against itself). The facet scores therefore only approximate DiscoveryBench's (which an LLM
  extracts); the sentence is what a judge compares;
- workflow: steps of the analysis language derived from the query and the column descriptions
  where :mod:`collabrl.envs.analysis.real_workflows` reads the query (its last value, a year,
  fills ``{value}`` in the context and relation templates); else one step holding
  ``gold_workflow`` (else the metadata's ``workflow``, else its ``workflow_tags``) as free text,
  which does not run, with the relation itself as ``relation_template``, and no traps.

Bad input (a missing file, malformed JSON, metadata of the wrong shape, a CSV that does not
parse, an answer key without a needed column or row) is one :class:`CollabrlError` line naming
the file.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from collabrl.envs.analysis.real_workflows import derive, guidance
from collabrl.envs.analysis.schema import (
    AnalysisTask,
    Cell,
    Column,
    Hypothesis,
    Note,
    Profile,
    Role,
    Step,
    Table,
)
from collabrl.errors import CollabrlError, first_problem
from collabrl.records import decode_json, quoted, read_text

ANSWER_COLUMNS = ("dataset", "metadataid", "query_id", "gold_hypo")
METADATA = re.compile(r"metadata_(\d+)\.json")
_NUMBER_TEXT = re.compile(r"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?")
"""A number as a CSV cell may write it: decimal comma or point, an optional exponent."""
_WHOLE = re.compile(r"[-+]?\d+")
_ITEM = re.compile(r"(?:^|(?<=\s))(\d{1,2})\.\s+")
_LEADING_WORDS = (
    r"(?:around|about|between|during|in|from|when|at|by|after|before|over|across|among|"
    r"for|since|starting from|until|throughout|within)\b"
)
_LEADING_CLAUSE = re.compile(
    rf"({_LEADING_WORDS}[^,]{{1,120}}),\s+(\S.*)", re.IGNORECASE | re.DOTALL
)
LEADING_WORD = re.compile(_LEADING_WORDS, re.IGNORECASE)
"""A context that starts like a clause of its own ("Around 1100 BCE", a gold's leading clause)."""
# word stems per role, matched at the start of a word (any case), for :func:`role_of`
_ROLE_STEMS: dict[Role, tuple[str, ...]] = {
    "chronology": (r"bce\b", r"bc\b", "calbp", r"ages?\b", "neolithic", "period", "phase",
                   "millenni", "centur", r"years?\b", r"dat(?:e|ed|ing)\b", "chronolog"),
    "materials": ("potter", "ceramic", "copper", "gold", "amber", "bronze", "dagger", "sword",
                  "hatchet", "axe", "celt", "sickle", "depot", "hoard", "monument", "house",
                  "pollen", "metal", "artefact", "artifact", "vegetation", "wood"),
    "statistics": ("smooth", "interpolat", "principal component", r"pca\b", r"pc\d",
                   "regression", "correlat", "standard deviation", r"z.?values?\b",
                   "kernel density", r"kde\b", "growth rate", "detrend", r"mean\b", "average",
                   "percentage change", "significan", "coefficient"),
}  # fmt: skip
ROLE_WORDS = {
    role: re.compile(r"\b(?:" + "|".join(stems) + ")", re.IGNORECASE)
    for role, stems in _ROLE_STEMS.items()
}


ROLE_PROFILES: dict[Role, Profile] = {"statistics": "D", "materials": "R"}
"""Who holds a domain-knowledge note in a profiled team, by its role: methods the data-side
collaborator D, objects and evidence the researcher R; chronology (and ties) the agent, as
background any analyst reads on the data card."""


class _Lenient(BaseModel):
    """DiscoveryBench's records carry more keys than are read here; those are ignored."""

    model_config = ConfigDict(extra="ignore")


class _RawColumn(_Lenient):
    name: str
    description: str | None = ""


class _Columns(_Lenient):
    raw: list[_RawColumn] = Field(default_factory=list)


class _Dataset(_Lenient):
    name: str
    description: str | None = ""
    columns: _Columns = Field(default_factory=_Columns)
    domain_knowledge: str | None = ""


class _Query(_Lenient):
    qid: int
    question: str
    relevant_cols: list[str] | None = None
    target_col: str | None = None


class _Metadata(_Lenient):
    datasets: list[_Dataset] = Field(min_length=1)
    queries: list[list[_Query]] = Field(default_factory=list)
    domain_knowledge: str | None = ""
    workflow_tags: str | None = ""
    workflow: str | None = ""


def load_discoverybench(
    root: Path,
    answer_key: Path | None = None,
    *,
    domains: Sequence[str] | None = None,
    split: Literal["train", "test"] = "test",
) -> list[AnalysisTask]:
    """Every query under ``root`` as a task (see the module docstring), domain by domain and
    metadata id by id. ``answer_key`` defaults to the one ``answer_key*.csv`` file in ``root``
    or the published layout's ``eval/answer_key_real.csv`` above it (:func:`_find_answer_key`);
    ``domains`` limits the folders read (the real benchmark's other domains hold large CSVs)."""
    root = Path(root)
    if not root.is_dir():
        raise CollabrlError(
            f"{root}: no such folder (a DiscoveryBench root holds <domain>/ folders)"
        )
    answers = _answer_key(answer_key or _find_answer_key(root))
    tables = _TableCache()
    metadata_files = sorted(
        (path.parent.name, int(match.group(1)), path)
        for path in root.glob("*/metadata_*.json")
        if (match := METADATA.fullmatch(path.name))
        and (domains is None or path.parent.name in domains)
    )
    if not metadata_files:
        raise CollabrlError(f"{root}: no <domain>/metadata_<id>.json files")
    tasks = []
    for domain, metadata_id, path in metadata_files:
        tasks += _tasks_of(path, domain, metadata_id, answers, split, tables)
    return tasks


# ---------------------------------------------------------------------------- the answer key


def _find_answer_key(root: Path) -> Path:
    """The answer key beside the tasks: ``root``'s one ``answer_key*.csv``, else the published
    layout's (allenai/discoverybench keeps ``discoverybench/real/test`` and
    ``eval/answer_key_real.csv`` apart): an ``eval/answer_key_<split>.csv`` in a folder above
    ``root``, ``<split>`` one of ``root``'s own folder names (``real``, ``synth``)."""
    found = sorted(root.glob("answer_key*.csv"))
    if not found:
        parts = {part.lower() for part in root.resolve().parts}
        for folder in root.resolve().parents[:4]:
            found = [p for p in sorted(folder.glob("eval/answer_key_*.csv"))
                     if p.stem.removeprefix("answer_key_").lower() in parts]  # fmt: skip
            if found:
                break
    if len(found) != 1:
        what = "no answer_key*.csv" if not found else f"{len(found)} answer_key*.csv files"
        raise CollabrlError(
            f"{root}: {what} there or in an eval/ folder above it; name the answer key CSV "
            "explicitly"
        )
    return found[0]


def _answer_key(path: Path) -> dict[tuple[str, int, int], dict[str, str]]:
    """(dataset, metadata id, query id) -> the answer key's row."""
    if not path.is_file():
        raise CollabrlError(f"{path}: no such file (the answer key)")
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    missing = [c for c in ANSWER_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise CollabrlError(f"{path}: the answer key lacks the column(s) {', '.join(missing)}")
    rows: dict[tuple[str, int, int], dict[str, str]] = {}
    try:
        for row in reader:
            ids = []
            for column in ("metadataid", "query_id"):
                text = (row[column] or "").strip()
                if not _WHOLE.fullmatch(text):
                    raise CollabrlError(
                        f"{path}:{reader.line_num}: {column} {quoted(text)} is not a whole number"
                    )
                ids.append(int(text))
            rows[((row["dataset"] or "").strip(), ids[0], ids[1])] = row
    except csv.Error as err:
        raise CollabrlError(f"{path}:{reader.line_num}: not a readable CSV ({err})") from None
    return rows


# ---------------------------------------------------------------------------- one metadata file


def _tasks_of(
    path: Path,
    domain: str,
    metadata_id: int,
    answers: dict[tuple[str, int, int], dict[str, str]],
    split: Literal["train", "test"],
    cache: _TableCache,
) -> list[AnalysisTask]:
    metadata = _metadata(path)
    tables = _unique_tables([cache.table(path.parent / d.name, d, path) for d in metadata.datasets])
    notes = _notes(metadata)
    workflow_text = metadata.workflow or metadata.workflow_tags or "(no workflow given)"
    tasks = []
    for query in (q for group in metadata.queries for q in group):
        row = answers.get((domain, metadata_id, query.qid))
        if row is None:
            raise CollabrlError(
                f"{path}: the answer key has no row for dataset {domain!r}, metadataid "
                f"{metadata_id}, query_id {query.qid}"
            )
        sentence = (row["gold_hypo"] or "").strip()
        if not sentence:
            raise CollabrlError(
                f"{path}: the answer key's gold_hypo for query {query.qid} is empty"
            )
        steps = (row.get("gold_workflow") or "").strip() or workflow_text
        try:
            gold = _gold(sentence, query, tables)
            derived = derive(query.question, gold, tables)
            guides = guidance(query.question, tables, metadata.workflow_tags or "")
            free_text = [Step(step=steps, why=_WORKFLOW_WHY + _tags(metadata))]
            tasks.append(
                AnalysisTask(
                    name=f"{domain}-{metadata_id}-{query.qid}",
                    split=split,
                    domain=domain,
                    query=query.question,
                    tables=tables,
                    notes=notes + guides,
                    gold=gold,
                    workflow=derived.steps if derived else free_text,
                    relation_template=derived.relation_template
                    if derived
                    else gold.relation.replace("{", "{{").replace("}", "}}"),
                    context_template=derived.context_template if derived else "",
                    traps=derived.traps if derived else [],
                )
            )
        except ValidationError as err:
            raise CollabrlError(f"{path}: query {query.qid}: {first_problem(err)}") from None
    return tasks


_WORKFLOW_WHY = (
    "DiscoveryBench's reference workflow, free text: not a step of the analysis language, so "
    "it does not run"
)


def _tags(metadata: _Metadata) -> str:
    return f" (workflow tags: {metadata.workflow_tags})" if metadata.workflow_tags else ""


def _metadata(path: Path) -> _Metadata:
    try:
        data = decode_json(read_text(path))
    except json.JSONDecodeError as err:
        raise CollabrlError(f"{path}:{err.lineno}: not JSON ({err.msg})") from None
    try:
        return _Metadata.model_validate(data)
    except ValidationError as err:
        raise CollabrlError(f"{path}: {first_problem(err)}") from None


# ---------------------------------------------------------------------------- tables


def identifier(name: str, fallback: str = "column") -> str:
    """``name`` as an identifier: each run of other characters becomes one ``_``, and a name
    starting with a digit gets a leading ``_``."""
    text = re.sub(r"\W+", "_", name.strip()).strip("_") or fallback
    return f"_{text}" if text[0].isdigit() else text


class _TableCache:
    """The tables of one load: each CSV parsed once, and one :class:`Table` per CSV and
    description (the real archaeology folder names the same three CSVs in 38 metadata files)."""

    def __init__(self) -> None:
        self._frames: dict[Path, pd.DataFrame] = {}
        self._tables: dict[tuple[Path, str], Table] = {}

    def table(self, csv_path: Path, dataset: _Dataset, metadata: Path) -> Table:
        if not csv_path.name.lower().endswith(".csv"):
            raise CollabrlError(f"{metadata}: dataset {quoted(dataset.name)} is not a CSV file")
        key = (csv_path, dataset.model_dump_json(exclude={"domain_knowledge"}))
        if key not in self._tables:
            if csv_path not in self._frames:
                self._frames[csv_path] = _read_csv(csv_path, metadata)
            self._tables[key] = _table(csv_path, self._frames[csv_path], dataset)
        return self._tables[key]


def _read_csv(csv_path: Path, metadata: Path) -> pd.DataFrame:
    if not csv_path.is_file():
        raise CollabrlError(f"{csv_path}: no such file (a dataset of {metadata.name})")
    try:
        return pd.read_csv(io.StringIO(read_text(csv_path)))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CollabrlError(f"{csv_path}: not a readable CSV ({reason})") from None


def _table(csv_path: Path, frame: pd.DataFrame, dataset: _Dataset) -> Table:
    """One dataset's CSV as a table with the metadata's column descriptions."""
    described = {c.name.strip(): (c.description or "").strip() for c in dataset.columns.raw}
    names = _unique([identifier(str(c)) for c in frame.columns])
    columns = []
    for header, name in zip(frame.columns, names, strict=True):
        text = _description(str(header), described)
        if name != str(header):
            text += f" (CSV header {quoted(str(header))})"
        columns.append(Column(name=name, description=text))
    cells = [_cells(frame[header]) for header in frame.columns]
    return Table(
        name=identifier(csv_path.name[: -len(".csv")], "table"),
        description=(dataset.description or "").strip() or f"The rows of {csv_path.name}.",
        columns=columns,
        rows=[list(row) for row in zip(*cells, strict=True)] if cells else [],
    )


def _description(header: str, described: dict[str, str]) -> str:
    """The metadata's description of a CSV column. A blank header, which pandas reads as
    ``Unnamed: <n>``, is the metadata's ``Unnamed`` column (as in the archaeology data)."""
    text = described.get(header.strip())
    if text is None and re.fullmatch(r"Unnamed: \d+", header):
        text = described.get("Unnamed")
    return text or "(not described in the metadata)"


def _cells(series: pd.Series) -> list[Cell]:
    """A column's values as cells: missing and non-finite values None; a column of numbers
    pandas left as text (a decimal comma in any cell) read as numbers."""
    values = series.tolist()
    missing = series.isna().tolist()
    present = [v for v, m in zip(values, missing, strict=True) if not m]
    if present and all(isinstance(v, str) and _NUMBER_TEXT.fullmatch(v.strip()) for v in present):
        values = [
            v if m else float(v.strip().replace(",", "."))
            for v, m in zip(values, missing, strict=True)
        ]
    return [None if m else _cell(v) for v, m in zip(values, missing, strict=True)]


def _cell(value: Any) -> Cell:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, int | float | str):
        return value
    return str(value)


def _unique(names: list[str]) -> list[str]:
    """Names made distinct by a suffix (``a``, ``a_2``): two headers may sanitise alike."""
    out: list[str] = []
    for name in names:
        candidate, k = name, 2
        while candidate in out:
            candidate, k = f"{name}_{k}", k + 1
        out.append(candidate)
    return out


def _unique_tables(tables: list[Table]) -> list[Table]:
    names = _unique([t.name for t in tables])
    return [
        t if t.name == n else t.model_copy(update={"name": n})
        for t, n in zip(tables, names, strict=True)
    ]


# ---------------------------------------------------------------------------- notes and gold


def _notes(metadata: _Metadata) -> list[Note]:
    texts = _items(metadata.domain_knowledge or "")
    for dataset in metadata.datasets:
        texts += _items(dataset.domain_knowledge or "")
    notes = []
    for i, text in enumerate(texts, 1):
        role = role_of(text)
        notes.append(Note(id=f"n{i}", role=role, text=text, profile=ROLE_PROFILES.get(role)))
    return notes


def _items(text: str) -> list[str]:
    """The numbered items of a domain-knowledge text (``1. ... 2. ...``, numbered in order from
    1), or the whole text as one item; empty text has none."""
    text = " ".join(text.split())
    starts, expected = [], 1
    for match in _ITEM.finditer(text):
        if int(match.group(1)) == expected:
            starts.append((match.start(), match.end()))
            expected += 1
    if len(starts) < 2:
        return [text] if text else []
    items = [text[: starts[0][0]].strip()]
    for (_, begin), (end, _) in zip(starts, [*starts[1:], (len(text), len(text))], strict=True):
        items.append(text[begin:end].strip())
    return [item for item in items if item]


def role_of(text: str) -> Role:
    """The role whose words the text uses most (chronology on ties; see the module docstring)."""
    hits = {role: len(words.findall(text)) for role, words in ROLE_WORDS.items()}
    best = max(hits.values())
    return next(role for role in ROLE_WORDS if hits[role] == best)


def _gold(sentence: str, query: _Query, tables: list[Table]) -> Hypothesis:
    """The answer key's sentence in DiscoveryBench's facets (see the module docstring)."""
    match = _LEADING_CLAUSE.fullmatch(sentence)
    context, relation = (match.group(1), match.group(2)) if match else (sentence, sentence)
    return Hypothesis(
        context=context.strip().rstrip("."),
        variables=_variables(sentence, query, tables),
        relation=relation.strip().rstrip("."),
        sentence=sentence,
    )


def _variables(sentence: str, query: _Query, tables: list[Table]) -> list[str]:
    """The query's own columns, else the table columns the sentence or the question names (as
    whole words; ``_`` in a column's name read as a space too)."""
    named = [*(query.relevant_cols or []), *([query.target_col] if query.target_col else [])]
    if named := [n for n in named if n.strip()]:
        return list(dict.fromkeys(identifier(n) for n in named))
    text = " ".join(re.findall(r"\w+", f"{sentence} {query.question}".lower().replace("_", " ")))
    return list(
        dict.fromkeys(
            c.name
            for t in tables
            for c in t.columns
            if re.search(rf"\b{re.escape(c.name.lower().replace('_', ' ').strip())}\b", text)
        )
    )
