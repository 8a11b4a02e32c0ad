"""The analysis language: small, safe, deterministic table operations, one step per action.

Every seat's steps run in one shared :class:`Workspace` (the team's notebook): the task's tables
plus every named result so far. Nothing here evaluates Python: a step is tokenized and parsed by
hand into an operation and its arguments. Tables come in and go out as pandas DataFrames; in
between, the operations run as plain Python loops over the columns (a task table has 10-60 rows,
where a loop costs a few microseconds and a pandas call tens of them).

Syntax: ``[name =] op(arg, arg, ...)``. ``name`` (an identifier, not a task table's name) keeps
a result, table or scalar, for later steps (reusing a name overwrites it; only a table result can
be an operation's ``T``); an argument is a table or result name, a column name (an identifier, or
quoted for any other name), a number, a quoted string (``"A"`` or ``'A'``), a bare word option
(``asc``, ``max``, ``mean``) or a condition ``column OP literal`` with OP one of
``== != < <= > >=``. A step has at most :data:`MAX_STEP_CHARS` characters.

Operations (T: a table or named result; c: a column of it):

- ``show(T)``: the table (first rows); ``select(T, c1, c2, ...)``: those columns;
- ``filter(T, c OP literal)``: the rows where the condition holds;
- ``sort(T, c, asc|desc)``: rows ordered by ``c`` (stable; empty cells last);
- ``group(T, by, c, sum|mean|count|min|max)``: one row per value of ``by``, in order of first
  appearance, with the aggregate of ``c`` (a column other than ``by``) in a column named ``c``;
- ``flag(T, c1 OP literal, c2 OP literal, ...)``: adds ``flag`` = 1 on the rows where every
  condition holds, else 0 (so that ``event`` can find runs of rows where several things happen
  at once: a ``filter`` would join rows that are not neighbours);
- ``bin(T, c, width)``: adds ``c_bin`` = floor(c / width) * width;
- ``diff(T, c)``: adds ``c_diff`` = c minus the previous row's c (first row empty);
- ``scale(T, c, factor)``: adds ``c_scaled`` = c times ``factor`` (a unit's change: years CE
  times -1 are years BCE);
- ``rolling(T, c, window, mean|sum)``: adds ``c_rolling`` over the last ``window`` rows (empty
  until ``window`` rows are there, as pandas' ``rolling``);
- ``extrema(T, c, key, max|min)``: the ``key`` value of the first row where ``c`` is largest
  (smallest); a scalar;
- ``event(T, c, OP, threshold, key, n)``: the ``key`` value of the row where the ``n``-th event
  starts, an event being a run of rows (in table order) where ``c OP threshold`` holds; a scalar
  (``event(T, c OP threshold, key, n)`` is the same step);
- ``plateau(T, c, key, tolerance)``: the ``key`` value of the first row of the longest run of
  consecutive rows whose ``c`` stays within ``tolerance`` of the run's first value, ties to the
  higher run; a scalar;
- ``trend(T, c)``: how ``c`` moves from the table's first value to its last (in table order):
  ``increase``, ``decrease`` or ``no change``; a scalar (a word, so that a hypothesis can state a
  direction as it states a year);
- ``pca(T, c1, c2, ...)``: adds ``PC1`` and ``PC2``, each row's scores on the first two
  principal components of those columns (centred, not scaled; each component's sign set so that
  its largest loading is positive; rounded to 4 decimals; empty on a row with an empty cell);
- ``loadings(T, c1, c2, ...)``: a new table, one row per column: ``attribute`` (its name) and its
  loadings ``PC1`` and ``PC2`` on the axes ``pca`` scores rows on (where the attributes, not the
  rows, sit on the components; rounded to 4 decimals);
- ``among(T, c, literal1, literal2, ...)``: the rows whose ``c`` is one of the literals (the
  attributes of a ``loadings`` table a question names);
- ``level(T, c, reference)``: where the mean of ``c``'s filled values lies against the number
  ``reference``: ``high`` above it, ``low`` below, ``average`` on it (at 9 decimals); a scalar (a
  word; with z values the reference 0 is the series' average);
- ``sign(T, c)``: the sign most of ``c``'s filled values share: ``positive``, ``negative`` or
  ``mixed`` (a tie); a scalar (a word, as ``trend``'s);
- ``corr(T, c1, c2)``: Pearson correlation, rounded to 2 decimals; a scalar;
- ``count(T)``: the number of rows; a scalar.

Empty cells (missing values) satisfy no condition, break runs (events, plateaus), are skipped by
aggregates, extrema, ``trend`` and ``corr``, and stay empty through ``bin``, ``diff``, ``scale`` and ``rolling``;
``group`` leaves out rows whose ``by`` is empty. ``bin``'s quotient and ``plateau``'s differences
are taken at 9 decimals, so that 3.1 is within 0.1 of 3.0 as written.

A step that does not parse, names an unknown table or column, or fails while running is an
:class:`Outcome` with ``error`` set (the notebook shows it like any result); it never raises.
The notebook text of a result (:attr:`Outcome.text`) is a table's first :data:`MAX_ROWS` rows
and a ``(N rows)`` line, or ``name = value`` for a scalar, numbers with at most 4 decimals, at
most :data:`MAX_CHARS` characters.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import pandas as pd

MAX_ROWS = 8  # table rows shown in a result's text
MAX_CHARS = 1200  # characters of a result's text
MAX_STEP_CHARS = 500  # characters of a step
CELL_CHARS = 24  # characters of one table cell in the text

Value = int | float | str | None
"""A cell or a scalar result (None: empty)."""

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<num>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
    |(?P<name>[^\W\d]\w*)
    |(?P<str>"[^"]*"|'[^']*')
    |(?P<cmp>[=!<>]=|[<>])
    |(?P<punct>[(),=])
    |(?P<bad>\S)
    )""",
    re.VERBOSE,
)


class StepError(Exception):
    """A step that cannot run; its message is the outcome's one-line error."""


class _LazyTable:
    """:attr:`Outcome.table`: a result frame becomes a DataFrame on first read. Building a
    DataFrame costs several times the step itself (about 150 against 30 microseconds), and the
    game reads a result's text and value, not its DataFrame. Setting it (the dataclass's
    ``__init__``) takes a DataFrame, a :class:`Frame` or None."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}"

    @overload
    def __get__(self, obj: None, owner: Any = None) -> _LazyTable: ...
    @overload
    def __get__(self, obj: object, owner: Any = None) -> pd.DataFrame | None: ...
    def __get__(self, obj: object, owner: Any = None) -> pd.DataFrame | None | _LazyTable:
        if obj is None:  # class access: the dataclass's default
            return self
        value = obj.__dict__[self._slot]
        if isinstance(value, Frame):
            value = obj.__dict__[self._slot] = value.to_pandas()
        return value

    def __set__(self, obj: object, value: pd.DataFrame | Frame | _LazyTable | None) -> None:
        obj.__dict__[self._slot] = None if isinstance(value, _LazyTable) else value

    def __repr__(self) -> str:
        return "None"  # how the default reads in ``help(Outcome)``


@dataclass(frozen=True)
class Outcome:
    """One notebook cell: the step, what it produced, and what the notebook shows."""

    step: str
    """The step as run (stripped; cut after :data:`MAX_STEP_CHARS` characters)."""
    name: str | None
    """The name the result was kept under, if any."""
    text: str
    """What the notebook shows (at most :data:`MAX_CHARS` characters)."""
    value: Value
    """The scalar result (None for a table or an error)."""
    table: _LazyTable = field(default=_LazyTable(), compare=False, repr=False)
    """The table result, a pandas DataFrame (None for a scalar or an error); built on first
    read, the same object after that."""
    error: str | None = None
    """Why the step failed (one line), None when it ran."""


class Frame:
    """A table as plain Python column lists (empty cells are None). Operations build new frames
    and never change a list once built, so results can share columns."""

    __slots__ = ("columns", "data", "rows")

    def __init__(self, data: dict[str, list[Value]]) -> None:
        self.data = data
        self.columns = tuple(data)
        self.rows = len(next(iter(data.values()))) if data else 0

    @classmethod
    def from_pandas(cls, df: pd.DataFrame) -> Frame:
        """Python values (``tolist``) with pandas' missing values (NaN, NA, None) as None."""
        data: dict[str, list[Value]] = {}
        for column in df.columns:
            series = df[column]
            values = series.tolist()
            missing = series.isna().tolist()
            data[str(column)] = [None if m else v for v, m in zip(values, missing, strict=True)]
        if len(data) != len(df.columns):
            raise ValueError(f"duplicate column names: {list(df.columns)}")
        return cls(data)

    def to_pandas(self) -> pd.DataFrame:
        """A fresh DataFrame (pandas infers the dtypes; None becomes missing)."""
        return pd.DataFrame(self.data, columns=list(self.columns))

    def take(self, rows: Sequence[int]) -> Frame:
        """The given rows, in that order."""
        return Frame({c: [v[i] for i in rows] for c, v in self.data.items()})

    def with_column(self, name: str, values: list[Value]) -> Frame:
        """This frame with ``name`` added (or replaced, in place)."""
        return Frame({**self.data, name: values})


# ---------------------------------------------------------------------------------- parsing
Arg = tuple[str, Any]
"""A parsed argument: (kind, value); kinds ``name``, ``str``, ``num``, ``cmp``, ``cond``
(value: column, comparison, literal)."""


def _tokens(text: str) -> list[tuple[str, str]]:
    """The step's tokens as (kind, text); an unknown character is an error right away."""
    tokens = []
    for match in _TOKEN.finditer(text):
        kind = str(match.lastgroup)
        value = match.group(kind)
        if kind == "bad":
            raise StepError(f"unexpected character {value!r} at position {match.start(kind) + 1}")
        tokens.append((kind, value))
    return tokens


def _number(text: str) -> int | float:
    """An int when written without a point or exponent, else a float; never inf or nan."""
    if "." not in text and "e" not in text.lower():
        return int(text)
    value = float(text)
    if not math.isfinite(value):
        raise StepError(f"number out of range: {_quote(text)}")
    return value


def _parse(step: str) -> tuple[str | None, str, list[Arg]]:
    """``[name =] op(arg, ...)`` into (name, op, args)."""
    tokens = _tokens(step)
    if not tokens:
        raise StepError("empty step: write op(arg, ...), e.g. show(T)")
    name = None
    if len(tokens) >= 2 and tokens[0][0] == "name" and tokens[1] == ("punct", "="):
        name, tokens = tokens[0][1], tokens[2:]
    if len(tokens) < 3 or tokens[0][0] != "name" or tokens[1] != ("punct", "("):
        raise StepError('a step is [name =] op(arg, ...), e.g. r1 = filter(T, site == "A")')
    inner = tokens[2:]
    close = inner.index(("punct", ")")) if ("punct", ")") in inner else len(inner)
    if ("punct", "(") in inner[:close]:
        raise StepError("one operation per step: name the inner result first (r1 = ...)")
    if close != len(inner) - 1:
        raise StepError(f"{tokens[0][1]}(...) must end with ')' and nothing after it")
    return name, tokens[0][1], _args(inner[:-1])


def is_step(text: str) -> bool:
    """Whether ``text`` is written as a step of the language (it may still fail when run): a
    free-text workflow, such as DiscoveryBench's, is not."""
    try:
        _parse(text)
    except StepError:
        return False
    return True


def _args(tokens: list[tuple[str, str]]) -> list[Arg]:
    """The comma-separated arguments between the parentheses."""
    args: list[Arg] = []
    i = 0
    while i < len(tokens):
        arg, i = _arg(tokens, i)
        args.append(arg)
        if i < len(tokens):
            if tokens[i] != ("punct", ","):
                raise StepError(f"expected ',' between arguments, found {_quote(tokens[i][1])}")
            i += 1
            if i == len(tokens):
                raise StepError("an argument is missing after the last ','")
    return args


def _arg(tokens: list[tuple[str, str]], i: int) -> tuple[Arg, int]:
    """One argument starting at token ``i``, and the index after it."""
    kind, text = tokens[i]
    if kind in ("name", "str") and i + 1 < len(tokens) and tokens[i + 1][0] == "cmp":
        column = text if kind == "name" else text[1:-1]
        return ("cond", (column, tokens[i + 1][1], _literal(tokens, i + 2))), i + 3
    if kind == "name":
        return ("name", text), i + 1
    if kind == "str":
        return ("str", text[1:-1]), i + 1
    if kind == "num":
        return ("num", _number(text)), i + 1
    if kind == "cmp":
        return ("cmp", text), i + 1
    raise StepError(f"expected an argument, found {_quote(text)}")


def _literal(tokens: list[tuple[str, str]], i: int) -> int | float | str:
    """The value a condition compares with: a number or a quoted string."""
    if i >= len(tokens) or tokens[i][0] not in ("num", "str"):
        found = _quote(tokens[i][1]) if i < len(tokens) else "nothing"
        raise StepError(f"bad condition: compare with a number or a quoted string, not {found}")
    kind, text = tokens[i]
    return _number(text) if kind == "num" else text[1:-1]


def _quote(text: object, limit: int = 40) -> str:
    """A user value in an error message, cut to ``limit`` characters."""
    shown = str(text)
    return repr(shown if len(shown) <= limit else shown[: limit - 1] + "…")


# -------------------------------------------------------------------------------- arguments
def _kind(values: list[Value]) -> str:
    """``num``, ``text``, ``empty`` or ``mixed``: what a column holds."""
    types = {type(v) for v in values if v is not None}
    if not types:
        return "empty"
    if types <= {int, float, bool}:
        return "num"
    return "text" if types == {str} else "mixed"


def _numbers(table: Frame, column: str, op: str) -> list[Any]:
    """The column's values, refused when it holds anything but numbers."""
    values = table.data[column]
    if _kind(values) not in ("num", "empty"):
        raise StepError(f"{op}: column {_quote(column)} holds text; {op} needs numbers")
    return values


def _comparable(table: Frame, column: str, literal: Value) -> None:
    """Refuse a number compared with a text column or a string with a numeric one."""
    kind = _kind(table.data[column])
    if kind == "num" and isinstance(literal, str):
        raise StepError(f"bad condition: {_quote(column)} holds numbers, {_quote(literal)} is text")
    if kind == "text" and not isinstance(literal, str):
        raise StepError(
            f'bad condition: {_quote(column)} holds text; quote the value ("{literal}")'
        )


def _column(arg: Arg, table: Frame, label: str) -> str:
    """A column of ``table``, named bare or quoted."""
    kind, value = arg
    if kind not in ("name", "str"):
        raise StepError(f"{label} must be a column name")
    if value not in table.data:
        columns = ", ".join(table.columns)
        raise StepError(f"no column {_quote(value)} (columns: {columns})")
    return value


def _condition(arg: Arg, table: Frame, label: str) -> tuple[str, str, Value]:
    """``column OP literal`` with the column checked and the literal's type matching it."""
    if arg[0] != "cond":
        raise StepError(f'{label} must be a condition like count > 3 or site == "A"')
    column, cmp, literal = arg[1]
    _column(("name", column), table, label)
    _comparable(table, column, literal)
    return column, cmp, literal


def _comparison(arg: Arg, _table: Frame, label: str) -> str:
    """One of == != < <= > >=, bare or quoted."""
    if arg[0] not in ("cmp", "str") or arg[1] not in _COMPARE:
        raise StepError(f"{label} must be one of {' '.join(_COMPARE)}")
    return str(arg[1])


def _literal_arg(arg: Arg, _table: Frame, label: str) -> Value:
    """A number or a quoted string."""
    if arg[0] not in ("num", "str"):
        raise StepError(f"{label} must be a number or a quoted string")
    return arg[1]


def _number_arg(arg: Arg, _table: Frame, label: str) -> int | float:
    """A number."""
    if arg[0] != "num":
        raise StepError(f"{label} must be a number")
    return arg[1]


def _count_arg(arg: Arg, _table: Frame, label: str) -> int:
    """A whole number, at least 1."""
    if arg[0] != "num" or not isinstance(arg[1], int) or arg[1] < 1:
        raise StepError(f"{label} must be a whole number, at least 1")
    return arg[1]


def _word(choices: tuple[str, ...]) -> Callable[[Arg, Frame, str], str]:
    """A converter accepting one of ``choices``, bare or quoted, in any case."""

    def convert(arg: Arg, _table: Frame, label: str) -> str:
        word = str(arg[1]).lower() if arg[0] in ("name", "str") else None
        if word not in choices:
            raise StepError(f"{label} must be one of {'|'.join(choices)}")
        return word

    return convert


# ------------------------------------------------------------------------------- operations
def _show(table: Frame) -> Frame:
    """The table itself."""
    return table


def _select(table: Frame, *columns: str) -> Frame:
    """Those columns, in the order given."""
    if len(set(columns)) != len(columns):
        raise StepError("select: a column is named twice")
    return Frame({c: table.data[c] for c in columns})


def _filter(table: Frame, condition: tuple[str, str, Value]) -> Frame:
    """The rows where the condition holds (never on an empty cell)."""
    column, cmp, literal = condition
    test = _COMPARE[cmp]
    return table.take(
        [i for i, v in enumerate(table.data[column]) if v is not None and test(v, literal)]
    )


def _flag(table: Frame, *conditions: tuple[str, str, Value]) -> Frame:
    """Adds ``flag``: 1 where every condition holds (never on an empty cell), else 0."""
    tests = [(table.data[column], _COMPARE[cmp], literal) for column, cmp, literal in conditions]
    return table.with_column(
        "flag",
        [
            int(all(v[i] is not None and test(v[i], literal) for v, test, literal in tests))
            for i in range(table.rows)
        ],
    )


def _sort(table: Frame, column: str, order: str) -> Frame:
    """Rows ordered by ``column``; Python's sort is stable in both directions."""
    values: list[Any] = table.data[column]
    present = [i for i, v in enumerate(values) if v is not None]
    empty = [i for i, v in enumerate(values) if v is None]
    try:
        present.sort(key=values.__getitem__, reverse=order == "desc")
    except TypeError:
        raise StepError(f"sort: column {_quote(column)} mixes numbers and text") from None
    return table.take(present + empty)


def _decimal(x: float) -> float:
    """``x`` at 9 decimals, so that binary floats behave as the decimals they are written as
    (3.1 - 3.0 is within 0.1; 0.3 / 0.1 is 3, not 2.9999999999999996)."""
    return round(x, 9)


def _sum(values: list[Value]) -> int | float:
    """Exact for ints, correctly rounded for floats (``math.fsum``)."""
    if all(isinstance(v, int) for v in values):
        return sum(values)  # type: ignore[arg-type]
    return math.fsum(values)  # type: ignore[arg-type]


def _mean(values: list[Value]) -> float | None:
    """The mean, None for no values."""
    return _sum(values) / len(values) if values else None


_AGGREGATES = ("sum", "mean", "count", "min", "max")


def _aggregate(values: list[Value], how: str) -> Value:
    """One aggregate of a group's non-empty values."""
    if how == "sum":
        return _sum(values)
    if how == "mean":
        return _mean(values)
    if how == "count":
        return len(values)
    if not values:
        return None
    return min(values) if how == "min" else max(values)  # type: ignore[type-var]


def _group(table: Frame, by: str, column: str, how: str) -> Frame:
    """One row per ``by`` value in order of first appearance, the aggregate in ``column``."""
    if by == column:
        raise StepError("group: aggregate a column other than the grouping one")
    if how in ("sum", "mean"):
        _numbers(table, column, f"group {how}")
    buckets: dict[Any, list[Value]] = {}
    for key, value in zip(table.data[by], table.data[column], strict=True):
        if key is not None:
            bucket = buckets.setdefault(key, [])
            if value is not None:
                bucket.append(value)
    try:
        aggregates = [_aggregate(values, how) for values in buckets.values()]
    except TypeError:
        raise StepError(f"group: column {_quote(column)} mixes numbers and text") from None
    return Frame({by: list(buckets), column: aggregates})


def _bin(table: Frame, column: str, width: int | float) -> Frame:
    """Adds ``<column>_bin`` = floor(c / width) * width: -3050 bins to -3100 with width 100;
    ints stay ints for an int width."""
    if width <= 0:
        raise StepError("bin: width must be positive")
    values = _numbers(table, column, "bin")
    return table.with_column(
        f"{column}_bin", [None if v is None else _floor_to(v, width) for v in values]
    )


def _floor_to(value: int | float, width: int | float) -> int | float:
    """floor(value / width) * width, a float when ``value`` is one (pandas keeps the column's
    type), at 9 decimals (:func:`_decimal`)."""
    binned = math.floor(_decimal(value / width)) * width
    return float(binned) if isinstance(value, float) else binned


def _diff(table: Frame, column: str) -> Frame:
    """Adds ``<column>_diff``: each row minus the previous one (first row empty)."""
    values = _numbers(table, column, "diff")
    diffs: list[Value] = [None]
    diffs += [
        None if a is None or b is None else b - a for a, b in zip(values, values[1:], strict=False)
    ]
    return table.with_column(f"{column}_diff", diffs[: len(values)])


def _scale(table: Frame, column: str, factor: int | float) -> Frame:
    """Adds ``<column>_scaled``: each value times ``factor`` (ints stay ints for an int factor)."""
    values = _numbers(table, column, "scale")
    return table.with_column(
        f"{column}_scaled", [None if v is None else _decimal(v * factor) + 0 for v in values]
    )


def _rolling(table: Frame, column: str, window: int, how: str) -> Frame:
    """Adds ``<column>_rolling``: the window's sum or mean, empty until it is full or when it
    holds an empty cell (pandas' default ``min_periods``)."""
    values = _numbers(table, column, "rolling")
    out: list[Value] = [None] * min(window - 1, len(values))
    for end in range(window, len(values) + 1):
        span = values[end - window : end]
        out.append(None if None in span else _sum(span) if how == "sum" else _mean(span))
    return table.with_column(f"{column}_rolling", out)


def _extrema(table: Frame, column: str, key: str, how: str) -> Value:
    """The ``key`` of the first row holding the column's largest (smallest) value."""
    best: Any = None
    at = -1
    try:
        for i, v in enumerate(table.data[column]):
            if v is not None and (at < 0 or (v > best if how == "max" else v < best)):
                best, at = v, i
    except TypeError:
        raise StepError(f"extrema: column {_quote(column)} mixes numbers and text") from None
    if at < 0:
        raise StepError(f"extrema: column {_quote(column)} has no values")
    return table.data[key][at]


def _event_args(args: list[Arg]) -> list[Arg]:
    """``event(T, c OP x, key, n)`` spelled out as ``event(T, c, OP, x, key, n)``."""
    if len(args) == 4 and args[1][0] == "cond":
        column, cmp, literal = args[1][1]
        kind = "str" if isinstance(literal, str) else "num"
        return [args[0], ("name", column), ("cmp", cmp), (kind, literal), *args[2:]]
    return args


def _event(table: Frame, column: str, cmp: str, threshold: Value, key: str, n: int) -> Value:
    """The ``key`` where the n-th run of rows with ``column cmp threshold`` starts."""
    _comparable(table, column, threshold)
    test = _COMPARE[cmp]
    seen = 0
    inside = False
    for i, v in enumerate(table.data[column]):
        hit = v is not None and test(v, threshold)
        if hit and not inside:
            seen += 1
            if seen == n:
                return table.data[key][i]
        inside = hit
    where = f"{column} {cmp} {_format(threshold)}"
    raise StepError(f"event: {where} starts {seen} event(s), not {n}")


def _plateau(table: Frame, column: str, key: str, tolerance: int | float) -> Value:
    """The ``key`` of the first row of the longest run within ``tolerance`` of its first value;
    equal lengths go to the run with the higher first value, then to the earlier one."""
    if tolerance < 0:
        raise StepError("plateau: tolerance must be at least 0")
    values = _numbers(table, column, "plateau")
    rows = len(values)
    best_length, best_start = 0, -1
    for start, first in enumerate(values):
        if rows - start < best_length:
            break  # no run from here can reach the best length
        if first is None:
            continue
        end = start + 1
        while (
            end < rows
            and values[end] is not None
            and _decimal(abs(values[end] - first)) <= tolerance
        ):
            end += 1
        length = end - start
        if length > best_length or (length == best_length and first > values[best_start]):
            best_length, best_start = length, start
    if best_start < 0:
        raise StepError(f"plateau: column {_quote(column)} has no values")
    return table.data[key][best_start]


def _trend(table: Frame, column: str) -> str:
    """How the column moves from its first value to its last (see the module docstring)."""
    values = [v for v in _numbers(table, column, "trend") if v is not None]
    if not values:
        raise StepError(f"trend: column {_quote(column)} has no values")
    change = values[-1] - values[0]
    return "increase" if change > 0 else "decrease" if change < 0 else "no change"


PCA_COMPONENTS = ("PC1", "PC2")


def _components(table: Frame, columns: Sequence[str], op: str) -> tuple[list[int], Any, Any]:
    """The rows where every column is filled, those rows centred per column, and the first two
    principal axes (one row of loadings each): the singular value decomposition of the centred
    rows, each axis' sign set so that its largest loading is positive (an SVD may return an axis
    or its negative; the rule makes the result the same on every machine)."""
    import numpy as np

    values = [_numbers(table, c, op) for c in columns]
    complete = [i for i in range(table.rows) if all(v[i] is not None for v in values)]
    if len(columns) < 2 or len(complete) < 3:
        raise StepError(f"{op}: needs at least 2 columns and 3 rows where all of them are filled")
    data = np.array([[float(v[i]) for v in values] for i in complete])
    centred = data - data.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    axes = axes[: len(PCA_COMPONENTS)]
    signs = np.sign(axes[np.arange(len(axes)), np.argmax(np.abs(axes), axis=1)])
    return complete, centred, axes * signs[:, None]


def _pca(table: Frame, *columns: str) -> Frame:
    """Adds ``PC1`` and ``PC2`` (see the module docstring): each complete row's scores on the
    principal axes of :func:`_components`."""
    complete, centred, axes = _components(table, columns, "pca")
    out = table
    for name, axis in zip(PCA_COMPONENTS, axes, strict=False):
        scores: list[Value] = [None] * table.rows
        for i, score in zip(complete, centred @ axis, strict=True):
            scores[i] = round(float(score), 4) + 0.0  # + 0.0: no -0.0
        out = out.with_column(name, scores)
    return out


def _loadings(table: Frame, *columns: str) -> Frame:
    """One row per column: ``attribute`` (its name) and its loadings ``PC1`` and ``PC2`` on the
    principal axes of :func:`_components` (the axes :func:`_pca` scores rows on)."""
    _, _, axes = _components(table, columns, "loadings")
    data: dict[str, list[Value]] = {"attribute": list(columns)}
    for name, axis in zip(PCA_COMPONENTS, axes, strict=False):
        data[name] = [round(float(x), 4) + 0.0 for x in axis]  # + 0.0: no -0.0
    return Frame(data)


def _among(table: Frame, column: str, *literals: Value) -> Frame:
    """The rows whose ``column`` holds one of the values (never an empty cell)."""
    for literal in literals:
        _comparable(table, column, literal)
    wanted = set(literals)
    return table.take(
        [i for i, v in enumerate(table.data[column]) if v is not None and v in wanted]
    )


def _level(table: Frame, column: str, reference: int | float) -> str:
    """Where the mean of the column's filled values lies against ``reference``: ``high`` above
    it, ``low`` below, ``average`` on it (see the module docstring)."""
    mean = _mean([v for v in _numbers(table, column, "level") if v is not None])
    if mean is None:
        raise StepError(f"level: column {_quote(column)} has no values")
    mean = _decimal(mean)
    return "high" if mean > reference else "low" if mean < reference else "average"


def _sign(table: Frame, column: str) -> str:
    """The sign most of the column's filled values share (see the module docstring)."""
    values = [v for v in _numbers(table, column, "sign") if v is not None]
    if not values:
        raise StepError(f"sign: column {_quote(column)} has no values")
    above = sum(v > 0 for v in values) - sum(v < 0 for v in values)
    return "positive" if above > 0 else "negative" if above < 0 else "mixed"


def _corr(table: Frame, first: str, second: str) -> float:
    """Pearson's r over the rows where both are filled, rounded to 2 decimals (two passes,
    ``fsum``: the same digits on every machine)."""
    pairs = [
        (x, y)
        for x, y in zip(
            _numbers(table, first, "corr"), _numbers(table, second, "corr"), strict=True
        )
        if x is not None and y is not None
    ]
    if len(pairs) < 2:
        raise StepError("corr: needs at least 2 rows where both columns are filled")
    xs = [float(x) for x, _ in pairs]
    ys = [float(y) for _, y in pairs]
    mx, my = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        raise StepError(f"corr: {_quote(first if sxx == 0 else second)} is constant")
    r = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)
    return round(max(-1.0, min(1.0, r)), 2) + 0.0  # + 0.0: no -0.0


def _count(table: Frame) -> int:
    """The number of rows."""
    return table.rows


Converter = Callable[[Arg, Frame, str], Any]
"""Turns one argument into an operation's parameter (given the table, for columns), or raises
:class:`StepError` naming the parameter by its label."""


@dataclass(frozen=True)
class _Op:
    """An operation: its function and its parameters after ``T`` as (label, converter)."""

    name: str
    fn: Callable[..., Frame | Value]
    params: tuple[tuple[str, Converter], ...] = ()
    variadic: bool = False  # the last parameter repeats (one or more)

    @property
    def usage(self) -> str:
        """How the operation is written, for error messages."""
        labels = ["T", *(label for label, _ in self.params)]
        return f"{self.name}({', '.join(labels)}{', ...' if self.variadic else ''})"

    def bind(self, table: Frame, args: list[Arg]) -> list[Any]:
        """The parameters after ``T``, converted; a wrong count or kind is a :class:`StepError`."""
        wanted = len(self.params)
        if len(args) < wanted or (len(args) > wanted and not self.variadic):
            more = " or more" if self.variadic else ""
            raise StepError(f"{self.usage} takes {wanted + 1}{more} arguments, got {len(args) + 1}")
        values = []
        for k, arg in enumerate(args):
            label, convert = self.params[min(k, wanted - 1)]
            values.append(convert(arg, table, f"{self.name}: {label}"))
        return values


_C = ("c", _column)
OPS: dict[str, _Op] = {
    op.name: op
    for op in (
        _Op("show", _show),
        _Op("select", _select, (_C,), variadic=True),
        _Op("filter", _filter, (("c OP literal", _condition),)),
        _Op("flag", _flag, (("c OP literal", _condition),), variadic=True),
        _Op("sort", _sort, (_C, ("asc|desc", _word(("asc", "desc"))))),
        _Op(
            "group",
            _group,
            (("by", _column), _C, ("sum|mean|count|min|max", _word(_AGGREGATES))),
        ),
        _Op("bin", _bin, (_C, ("width", _number_arg))),
        _Op("diff", _diff, (_C,)),
        _Op("scale", _scale, (_C, ("factor", _number_arg))),
        _Op(
            "rolling",
            _rolling,
            (_C, ("window", _count_arg), ("mean|sum", _word(("mean", "sum")))),
        ),
        _Op("extrema", _extrema, (_C, ("key", _column), ("max|min", _word(("max", "min"))))),
        _Op(
            "event",
            _event,
            (
                _C,
                ("OP", _comparison),
                ("threshold", _literal_arg),
                ("key", _column),
                ("n", _count_arg),
            ),
        ),
        _Op("plateau", _plateau, (_C, ("key", _column), ("tolerance", _number_arg))),
        _Op("trend", _trend, (_C,)),
        _Op("pca", _pca, (_C,), variadic=True),
        _Op("loadings", _loadings, (_C,), variadic=True),
        _Op("sign", _sign, (_C,)),
        _Op("among", _among, (_C, ("literal", _literal_arg)), variadic=True),
        _Op("level", _level, (_C, ("reference", _number_arg))),
        _Op("corr", _corr, (("c1", _column), ("c2", _column))),
        _Op("count", _count),
    )
}
"""Every operation by name."""


# ------------------------------------------------------------------------------------- text
def _format(value: object) -> str:
    """A value as the notebook shows it: floats with at most 4 decimals (4 significant digits
    when smaller than that), whole floats without a point, empty as NaN."""
    if value is None:
        return "NaN"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        text = f"{value:.4f}".rstrip("0").rstrip(".")
        if text in ("0", "-0"):
            return "0" if value == 0 else f"{value:.4g}"
        return text
    return str(value)


def _cell(value: Value) -> str:
    """One table cell, cut to :data:`CELL_CHARS`."""
    text = _format(value)
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _render(table: Frame) -> str:
    """The column names, the first :data:`MAX_ROWS` rows (aligned) and a ``(N rows)`` line."""
    shown = min(table.rows, MAX_ROWS)
    grid = [[_cell(c) for c in table.columns]]
    grid += [[_cell(table.data[c][i]) for c in table.columns] for i in range(shown)]
    widths = [max(len(row[j]) for row in grid) for j in range(len(table.columns))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in grid
    ]
    lines.append(f"({table.rows} row{'' if table.rows == 1 else 's'})")
    return _clip("\n".join(lines))


def _clip(text: str, limit: int = MAX_CHARS) -> str:
    """At most ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -------------------------------------------------------------------------------- workspace
class Workspace:
    """The team's notebook: the task's tables and the named results, and :meth:`run`."""

    def __init__(self, tables: Mapping[str, pd.DataFrame]) -> None:
        for name in tables:
            if not name.isidentifier():
                raise ValueError(f"a table name must be an identifier, got {name!r}")
        self._tables = {name: Frame.from_pandas(df) for name, df in tables.items()}
        self._results: dict[str, Frame | Value] = {}

    def names(self) -> tuple[str, ...]:
        """The task's tables, then the results in the order they were first named."""
        return (*self._tables, *self._results)

    def run(self, step: str) -> Outcome:
        """Run one step; any failure is the outcome's ``error`` (this never raises)."""
        step = step.strip()
        if len(step) > MAX_STEP_CHARS:
            too_long = f"a step has at most {MAX_STEP_CHARS} characters, this one {len(step)}"
            return _failed(_clip(step, MAX_STEP_CHARS), too_long)
        try:
            name, op, args = _parse(step)
            if name in self._tables:
                raise StepError(f"{name} is a task table; keep the result under another name")
            result = self._apply(op, args)
        except StepError as exc:
            return _failed(step, str(exc))
        except Exception as exc:  # a bug in an operation must still not stop the game
            return _failed(step, f"{type(exc).__name__}: {exc}")
        if name is not None:
            self._results[name] = result
        if isinstance(result, Frame):
            return Outcome(step, name, _render(result), None, result, None)
        shown = f'"{result}"' if isinstance(result, str) else _format(result)
        return Outcome(step, name, _clip(f"{name or step} = {shown}"), result, None, None)

    def _apply(self, op_name: str, args: list[Arg]) -> Frame | Value:
        """Look the operation up, convert its arguments, run it."""
        op = OPS.get(op_name)
        if op is None:
            raise StepError(f"unknown operation {_quote(op_name)} (operations: {', '.join(OPS)})")
        if op_name == "event":
            args = _event_args(args)
        if not args:
            raise StepError(f"{op.usage} needs a table first")
        table = self._table(args[0])
        return op.fn(table, *op.bind(table, args[1:]))

    def _table(self, arg: Arg) -> Frame:
        """A task table or a table result, by name."""
        kind, name = arg
        if kind == "name" and name in self._tables:
            return self._tables[name]
        if kind == "name" and name in self._results:
            found = self._results[name]
            if isinstance(found, Frame):
                return found
            raise StepError(f"{name} is a value ({_format(found)}), not a table")
        raise StepError(f"unknown table {_quote(name)} (tables: {', '.join(self.names())})")


def _failed(step: str, error: str) -> Outcome:
    """The outcome of a step that did not run: its error on one line, shown as ``error: ...``."""
    line = _clip(" ".join(error.split()), MAX_CHARS - len("error: "))
    return Outcome(step, None, f"error: {line}", None, None, line)
