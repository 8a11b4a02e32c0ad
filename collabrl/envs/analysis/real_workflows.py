"""Reference workflows for DiscoveryBench tasks, derived from the query and the data card.

Why: a DiscoveryBench task's own workflow is free text, so a reference analyst could only copy
the answer key and the rule-based trace judge could read nothing. Here a query is read the way
an analyst reads it, with no look at the gold's claim, and turned into steps of the analysis
language on the task's real columns:

- the **table**: the first one keyed by years BCE (a column named ``BCE``), the archaeology
  data's time slices;
- the **column**: the one whose description shares the most words with the query (the
  metadata's ``columns.raw``: "Z values for Axes and Celts" for "axes"), ties to the first;
- the **operation**, by the query's words: a first (second) increase or decrease is the first
  (second) run of positive (negative) ``diff`` in time order (``event``); a peak, the most
  frequent or the highest is ``extrema(..., max)``; a collapse, decline or the lowest is the
  largest fall (``extrema`` of the ``diff``, ``min``); the first (second) peak of a z-value
  series (its description says "Z values") is its first (second) run above its mean, 0, in time
  order (``event``), for a peak on a z scale is a stretch above the average, not one maximum;
- a **simultaneous** change of several series the query names ("pottery form collapses and
  decoration increases simultaneously") is the n-th run of slices where each moves its way at
  once: the series' changes, a ``flag`` where all move, its ``event`` (:func:`co_changes`);
- a question about how series **move over a period** the query names ("between 3400 BCE to 3000
  BCE", "around 1700 BCE") is the ``trend`` of the series whose direction the gold's first
  directional clause states, over the period's slices in time order (:func:`derive_direction`):
  its answer is a direction word, not a year;
- a question about how **large** series were over a period ("the relationship of amber finds and
  monuments between 3400-3000 BCE") is the ``level`` of the z series the gold's first level
  clause names ("a high number of amber finds"), over the period, against 0, its average;
- a **PCA** question is the ``sign`` of a period's slices on a component (``pca``), or of the
  attributes the gold's sign clause lists (``loadings``, ``among``), on the component it names;
- "in what **centuries**" a yearly series (keyed by years CE) was highest, fell most or dipped
  (and then rose) is the century means' ``extrema`` or largest fall (:func:`derive_century`).

Every task gets **guidance** for the team-structures study's collaborators (:func:`guidance`),
so that D and R hold what a data-side and a research-side expert would know about it, and a
derived task **traps** where lacking that knowledge changes the answer:

- R (research side) knows what the query means in time: the years are BCE, so "the first" is the
  earliest slice, the largest year. The workflow sorts the slices by ``BCE`` descending first; an
  analyst without R's note sorts them the usual way (``asc``) and finds the latest event instead
  (a ``bce_order`` trap; a peak does not depend on order, so it has none);
- D (data side) knows which columns answer the query and which analysis the workflow tags call
  for: the per-slice Z values, not another table's yearly interpolation of the same find. Where
  such a twin column exists (described as "Interpolated <the column's description>"), an analyst
  without D's note reads the twin on its own years (``CE``, negative) and words another year (a
  ``smoothed_column`` trap).

The last step's value fills the answer's ``{value}`` slot: the gold's first year BCE (the first
the query does not state itself), in its context and relation alike, or the word of its first
clause that states a direction, a level or a sign (the wording of the answer fields is the
task's public record, as for the shipped tasks; the year or the word is what the analysis must
find). A query none of these readings fits, or a gold without such a slot, gets no workflow
(None), and the task keeps its free-text one: its analyst words the gold as written, which the
real-data check counts apart.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from collabrl.envs.analysis.claims import KEY as KEY_WORDS
from collabrl.envs.analysis.schema import Hypothesis, Note, Step, Table, Trap

YEAR = re.compile(r"(?<![\w.])(\d{3,4})"
                  r"(?=\s*(?:/\d{3,4}\s*)?(?:(?:-|to\b|and\b|&)\s*\d{3,4}\s*)?(?:bce|bc)\b)",
                  re.IGNORECASE)  # fmt: skip
"""A year BCE as the golds write it: "1100 BCE", "2300/2200 BCE"; a range's first year ("3300 to
3000BCE", "between 3500 and 3300 BCE"), where a time-ordered analysis finds its start."""
KEY = "BCE"
YEARS_CE = "CE"  # the yearly tables' key: years CE, BCE x (-1)
SORTED = "s"  # the name of the time-ordered slices in a derived workflow
NO_GUIDANCE = "Nothing beyond the data card: the query names no column of the time slices."
_WORD = re.compile(r"[a-z]+")
_DULL = frozenset(("z", "value", "values", "for", "and", "the", "of", "in", "a", "an", "did",
                   "which", "century", "what", "time", "first", "second", "number", "have",
                   "its", "had", "how", "when", "data", "interpolated", "year"))  # fmt: skip
_ORDINAL = {"first": 1, "second": 2}


@dataclass(frozen=True)
class Derived:
    """A task's derived reference: its steps and the answer's wording with a ``{value}`` slot."""

    steps: list[Step]
    context_template: str
    relation_template: str
    traps: list[Trap]


def content_words(text: str) -> Counter[str]:
    """The words of ``text`` that can name a column (lower case, a plural's s dropped, no
    function words), counted."""
    words = (w.removesuffix("s") if len(w) > 3 else w for w in _WORD.findall(text.lower()))
    return Counter(w for w in words if w not in _DULL)


def time_table(tables: list[Table]) -> Table | None:
    """The first table keyed by years BCE."""
    return next((t for t in tables if any(c.name == KEY for c in t.columns)), None)


def query_column(query: str, table: Table) -> str | None:
    """The column whose description shares the most words with ``query`` (None: none does); the
    year keys are not candidates."""
    asked = content_words(query)
    best, name = 0, None
    for column in table.columns:
        if column.name in (KEY, YEARS_CE):
            continue
        shared = sum((asked & content_words(f"{column.description} {column.name}")).values())
        if shared > best:
            best, name = shared, column.name
    return name


def ordinal(query: str) -> int | None:
    """The n of "the first (second) time" in ``query``; None where it names no ordinal."""
    text = query.lower()
    return next((k for word, k in _ORDINAL.items() if re.search(rf"\b{word}\b", text)), None)


def _order(table: str) -> Step:
    return Step(step=f"{SORTED} = sort({table}, {KEY}, desc)",
                why="the slices in time order: years BCE, the earliest (largest) first")  # fmt: skip


def _change(source: str, column: str) -> Step:
    return Step(step=f"d = diff({source}, {column})",
                why=f"the change of {column} from one time slice to the next")  # fmt: skip


def query_steps(
    query: str, table: str, column: str, *, z_scores: bool = False
) -> list[Step] | None:
    """The steps the query's words call for on ``table.column`` (see the module docstring);
    ``z_scores``: the column holds z values (its description says so), so that its n-th peak is
    its n-th run above its mean, 0."""
    text = query.lower()
    n = ordinal(query)
    order, change = _order(table), _change(SORTED, column)
    for pattern, cmp, what in ((r"\bincreas", ">", "rise"), (r"\bdecreas", "<", "fall")):
        if re.search(pattern, text):
            return [order, change,
                    Step(step=f"event(d, {column}_diff {cmp} 0, {KEY}, {n or 1})",
                         why=f"the slice where {what} number {n or 1} starts, in time order")]  # fmt: skip
    if re.search(r"\bpeak", text) and n is not None and z_scores:
        return [order,
                Step(step=f"event({SORTED}, {column} > 0, {KEY}, {n})",
                     why=f"the slice where {column}'s peak number {n} starts: a run above "
                         "its mean, in time order")]  # fmt: skip
    if re.search(r"\b(?:peak|most|highest)", text):
        return [Step(step=f"extrema({table}, {column}, {KEY}, max)",
                     why=f"the slice where {column} is highest")]  # fmt: skip
    if re.search(r"\b(?:collaps|declin|lowest)", text):
        return [order, change,
                Step(step=f"extrema(d, {column}_diff, {KEY}, min)",
                     why=f"the slice of {column}'s largest fall")]  # fmt: skip
    return None


_CLAUSE = re.compile(r",|\band\b|\bwhile\b|\bwith\b")
_DIRECTIONS = ((re.compile(r"\b(?:increas|ris(?:e|es|en|ing)\b|rose\b)"), ">"),
               (re.compile(r"\b(?:decreas|declin|collaps|fall|fell\b|drop)"), "<"))  # fmt: skip


def _direction(clause: str) -> str | None:
    """``>`` (``<``) where ``clause`` says a series rises (falls), else None."""
    return next((cmp for pattern, cmp in _DIRECTIONS if pattern.search(clause.lower())), None)


def _direction_word(clause: str) -> str | None:
    """The first word of ``clause`` that says a series rises or falls, as written."""
    starts = [m.start() for pattern, _ in _DIRECTIONS if (m := pattern.search(clause.lower()))]
    return re.findall(r"\w+", clause[min(starts) :])[0] if starts else None


def co_changes(query: str, table: Table) -> list[tuple[str, str]]:
    """(column, ``>`` or ``<``) for each series a query about a simultaneous change names, in
    order of mention: the query split into clauses (at commas, "and", "while", "with"), each
    clause's column read as :func:`query_column` reads a query, its direction from its own words
    or else from the next clause that has one ("house sizes and daggers decrease": both fall);
    a column's own direction wins over one it inherits. Empty where the query is not about a
    simultaneous change of two series or more."""
    if not re.search(r"simultane", query.lower()):
        return []
    clauses = [(query_column(c, table), _direction(c)) for c in _CLAUSE.split(query)]
    inherited: dict[str, str] = {}
    own: dict[str, str] = {}
    for i, (column, cmp) in enumerate(clauses):
        later = next((c for _, c in clauses[i:] if c is not None), None)
        if column is not None and cmp is not None:
            own.setdefault(column, cmp)
        elif column is not None and later is not None:
            inherited.setdefault(column, later)
    named = list(dict.fromkeys(c for c, _ in clauses if c is not None and c in own | inherited))
    return [(c, own.get(c) or inherited[c]) for c in named] if len(named) > 1 else []


def co_change_steps(query: str, table: str, changes: list[tuple[str, str]]) -> list[Step]:
    """The steps for the n-th time (the query's ordinal, else the first) every series of
    ``changes`` moves its way at once: the slices in time order, each series' change, a ``flag``
    on the slices where all move their way, and the n-th run of flagged slices (``event``)."""
    n = ordinal(query) or 1
    steps = [_order(table)] + [
        _change(SORTED if i == 0 else "d", column) for i, (column, _) in enumerate(changes)
    ]
    moves = ", ".join(f"{column}_diff {cmp} 0" for column, cmp in changes)
    said = " and ".join(f"{column} {_MOVES[cmp]}" for column, cmp in changes)
    return [*steps,
            Step(step=f"m = flag(d, {moves})", why=f"the slices where {said}"),
            Step(step=f"event(m, flag == 1, {KEY}, {n})",
                 why=f"the slice where they move together for time number {n}")]  # fmt: skip


_MOVES = {">": "rises", "<": "falls"}


def twin(table: Table, column: str, tables: list[Table]) -> tuple[str, str] | None:
    """(table, column) of another table's yearly interpolation of ``column`` (described as
    "Interpolated <its description>") and that table's year column, or None."""
    described = next(c.description for c in table.columns if c.name == column).lower()
    for other in tables:
        years = next((c.name for c in other.columns if c.name in ("CE", KEY)), None)
        for c in other.columns if other is not table and years else ():
            if c.description.lower().strip() == f"interpolated {described.strip()}":
                return other.name, f"{c.name}, {years}"
    return None


def guidance(query: str, tables: list[Table], tags: str) -> list[Note]:
    """D's and R's notes on a DiscoveryBench task (module docstring): which series answers the
    query and what analysis the workflow tags call for (D); how years run (R)."""
    table = time_table(tables)
    column = query_column(query, table) if table else None
    calls = f"The analysis calls for {tags.strip()}." if tags.strip() else ""
    if table is not None and column is not None:
        described = next(c.description for c in table.columns if c.name == column)
        calls = (f"The query's series is {column} of {table.name} ({described}), one value per "
                 f"time slice, read as it stands. {calls}")  # fmt: skip
    data = Note(id="g1", role="statistics", profile="D", text=calls.strip() or NO_GUIDANCE)
    research = Note(id="g2", role="chronology", profile="R",
                    text="Years here are BCE: a larger number is earlier, so the first event is "
                         "the one at the largest year; read the slices with BCE descending.")  # fmt: skip
    return [data, research]


def _traps(steps: list[Step], table: Table, column: str, tables: list[Table]) -> list[Trap]:
    """The trap a derived workflow holds, if any: R's ``bce_order`` where it sorts the slices,
    else D's ``smoothed_column`` where the column has an interpolated twin."""
    if steps[0].step.startswith(f"{SORTED} = sort("):
        naive = f"{SORTED} = sort({table.name}, {KEY}, asc)"
        return [Trap(kind="bce_order", note="g2", at=0, naive_step=naive)]
    if (other := twin(table, column, tables)) is not None:
        naive = steps[0].step.replace(
            f"({table.name}, {column}, {KEY},", f"({other[0]}, {other[1]},"
        )
        return [Trap(kind="smoothed_column", note="g1", at=0, naive_step=naive)]
    return []


def derive(query: str, gold: Hypothesis, tables: list[Table]) -> Derived | None:
    """The derived reference of a DiscoveryBench task, or None where none is derived: the sign
    of a principal component over a period or of the attributes a question names
    (:func:`derive_pca`), else a year the query asks for (:func:`derive_year`), else a direction
    over a period (:func:`derive_direction`), else a level over a period (:func:`derive_level`),
    else a century of a yearly series (:func:`derive_century`)."""
    table = time_table(tables)
    if table is None:
        return None
    return (
        derive_pca(query, gold, table)
        or derive_year(query, gold, table, tables)
        or derive_direction(query, gold, table, tables)
        or derive_level(query, gold, table)
        or derive_century(query, gold, tables)
    )


def derive_year(query: str, gold: Hypothesis, table: Table, tables: list[Table]) -> Derived | None:
    """A reference whose last step finds the year the gold states (the module docstring); the slot
    is the gold's first year the query does not state, as :func:`derive_century`'s."""
    slot = _answer_year(gold, query)
    column = query_column(query, table)
    if slot is None or column is None:
        return None
    changes = co_changes(query, table)
    described = next(c.description for c in table.columns if c.name == column).lower()
    z_scores = described.startswith("z value")
    steps = (
        co_change_steps(query, table.name, changes)
        if changes
        else query_steps(query, table.name, column, z_scores=z_scores)
    )
    if steps is None:
        return None
    traps = _traps(steps, table, column, tables)
    return Derived(
        steps, year_template(gold.context, slot), year_template(gold.relation, slot), traps
    )


def year_template(text: str, year: str) -> str:
    """``text`` with its first mention of ``year`` (as :data:`YEAR` reads years) as ``{value}``."""
    escaped = text.replace("{", "{{").replace("}", "}}")
    first = next((m for m in YEAR.finditer(escaped) if m.group(1) == year), None)
    return (
        escaped if first is None else f"{escaped[: first.start()]}{{value}}{escaped[first.end() :]}"
    )


PERIOD = re.compile(r"(\d{3,4})\s*(?:bce|bc)?\s*(?:-|\u2013|to\b|and\b)\s*(\d{3,4})\s*(?:bce|bc)\b",
                    re.IGNORECASE)  # fmt: skip
"""A period as queries write it: "between 3400 BCE to 3000 BCE", "3400-3000 BCE", "(1100-500BCE)"."""
AROUND = re.compile(r"\baround\s+(\d{3,4})\s*(?:bce|bc)\b", re.IGNORECASE)
SLICE_YEARS = 100  # the archaeology slices' step: "around 1700 BCE" is 1800 to 1600


def query_period(query: str) -> tuple[int, int] | None:
    """The period a query asks about as (earlier, later) years BCE; "around Y" is the slices
    either side of Y. None where it names no period."""
    if match := PERIOD.search(query):
        first, second = int(match.group(1)), int(match.group(2))
        return max(first, second), min(first, second)
    if match := AROUND.search(query):
        year = int(match.group(1))
        return year + SLICE_YEARS, year - SLICE_YEARS
    return None


def direction_slot(relation: str, table: Table) -> tuple[str, str] | None:
    """(the word, its series' column) of the first clause of ``relation`` that says a series of
    ``table`` rises or falls (clauses as :func:`co_changes` splits them); None where none does."""
    return _clause_slot(relation, table, _direction_word)


def _clause_slot(
    relation: str, table: Table, word_of: Callable[[str], str | None]
) -> tuple[str, str] | None:
    """(``word_of``'s word, the clause's column as :func:`query_column` reads it) of the first
    clause of ``relation`` that has both; None where no clause has."""
    for clause in _CLAUSE.split(relation):
        word = word_of(clause)
        column = query_column(clause, table) if word else None
        if word and column:
            return word, column
    return None


def period_steps(source: str, key: str, period: tuple[int, int]) -> list[Step]:
    """Two filters keeping the rows of ``source`` inside ``period`` ((earlier, later) years BCE)
    on its year column ``key``: years BCE as they stand, years CE negated."""
    earlier, later = period
    sign, (start, end) = ("", ("<=", ">=")) if key == KEY else ("-", (">=", "<="))
    return [Step(step=f"p = filter({source}, {key} {start} {sign}{earlier})",
                 why=f"the rows from {earlier} BCE on"),
            Step(step=f"q = filter(p, {key} {end} {sign}{later})", why=f"up to {later} BCE")]  # fmt: skip


def derive_direction(
    query: str, gold: Hypothesis, table: Table, tables: list[Table]
) -> Derived | None:
    """A reference for a query about how series move over a period ("how did hatchets, swords
    and daggers change around 1700 BCE?"): the slices of the period in time order and the
    ``trend`` of the series whose direction the gold's first directional clause states; that
    direction word is the slot (the gold's other words are its public record, as a year-slot
    gold's are). None where the query names no period or the gold states no such direction."""
    period = query_period(query)
    slot = direction_slot(gold.relation, table) if period else None
    if period is None or slot is None:
        return None
    word, column = slot
    steps = [_order(table.name), *period_steps(SORTED, KEY, period),
             Step(step=f"trend(q, {column})",
                  why=f"how {column} moves from the period's first slice to its last")]  # fmt: skip
    context, relation = word_templates(gold, word)
    return Derived(steps, context, relation, _traps(steps, table, column, tables))


def word_templates(gold: Hypothesis, word: str, flags: int = 0) -> tuple[str, str]:
    """The gold's context and relation with the first whole-word ``word`` as ``{value}`` (the
    context "" where it has no such word: the gold's own context is then used as written)."""
    spelled = re.compile(rf"\b{re.escape(word)}\b", flags)

    def template(text: str) -> str:
        return spelled.sub("{value}", text.replace("{", "{{").replace("}", "}}"), 1)

    return (template(gold.context) if spelled.search(gold.context) else ""), template(gold.relation)


def level_slot(relation: str, table: Table) -> tuple[str, str] | None:
    """(the word, its series' column) of the first clause of ``relation`` that says a series of
    ``table`` is high or low (:data:`collabrl.envs.analysis.claims.KEY`: "a large number of
    monuments"); None where none does."""
    return _clause_slot(relation, table, _level_word)


def _level_word(clause: str) -> str | None:
    """The first word of ``clause`` that says a series is high or low, as written."""
    return next(
        (w for w in re.findall(r"\w+", clause) if KEY_WORDS.get(w.lower()) in _LEVELS), None
    )


_LEVELS = ("high", "low")


def derive_level(query: str, gold: Hypothesis, table: Table) -> Derived | None:
    """A reference for a question about how large series were over a period ("what is the
    relationship of amber finds and monuments between 3400-3000 BCE?") where the gold's first
    clause of that kind states a level ("a high number of amber finds"): the period's slices and
    the ``level`` of that series against 0, its average (a z-value series only: for another, 0
    is no average); the level word is the slot. None where the query names no period, the gold
    states no level of a series, or the series is not in z values."""
    period = query_period(query)
    slot = level_slot(gold.relation, table) if period else None
    if period is None or slot is None:
        return None
    word, column = slot
    described = next(c.description for c in table.columns if c.name == column).lower()
    if not described.startswith("z value"):
        return None
    steps = [*period_steps(table.name, KEY, period),
             Step(step=f"level(q, {column}, 0)",
                  why=f"whether {column} lies above its average (0, in z values) over the period")]  # fmt: skip
    return Derived(steps, *word_templates(gold, word), [])


CENTURY = 100
_HIGHEST = re.compile(r"\bhighest\b")
_LARGEST_FALL = re.compile(r"\b(?:greatest|largest|steepest)\s+(?:decline|fall|drop|decrease)")
_DIP = re.compile(r"\bdips?\b")
"""A dip in a series and then its rise ("a consistent growth dip and then the peak post the dip"):
the dip, the first of the two turns, is the answer; the peak after it is the gold's own words."""
_STARTING = re.compile(r"\bstarting\s+(?:from\s+)?(\d{3,4})\s*(?:bce|bc)\b", re.IGNORECASE)


def derive_century(query: str, gold: Hypothesis, tables: list[Table]) -> Derived | None:
    """A reference for "in what centuries" a series that only a yearly table keyed by years CE
    holds (the finds' growth rate) was highest, fell most, or dipped (and then rose): the years
    of the query's period (or from the year it starts from on), binned by century on the CE
    scale (a bin is the century's earliest year, as the slices' years are), the series' mean per
    century, the bins read as years BCE (``scale`` by -1), and the century of the highest mean or
    of the largest fall from one century to the next (a dip is such a fall). The slot is the
    gold's first year BCE that the query does not state ("starting from 1500 BCE" is the
    question's, not its answer). None for a query asking none of these."""
    year = _answer_year(gold, query)
    table = next((t for t in tables if any(c.name == YEARS_CE for c in t.columns)), None)
    text = query.lower()
    column = query_column(query, table) if table else None
    highest = _HIGHEST.search(text) and not _DIP.search(text)
    falls = _LARGEST_FALL.search(text) or _DIP.search(text)
    if year is None or table is None or column is None or not (highest or falls):
        return None
    steps, source = [], table.name
    if period := query_period(query):
        steps, source = period_steps(source, YEARS_CE, period), "q"
    elif start := _STARTING.search(query):
        steps, source = [Step(step=f"q = filter({source}, {YEARS_CE} >= -{start.group(1)})",
                              why=f"the years from {start.group(1)} BCE on")], "q"  # fmt: skip
    bins = f"{YEARS_CE}_bin"
    steps += [
        Step(step=f"b = bin({source}, {YEARS_CE}, {CENTURY})", why="the years by century"),
        Step(step=f"g = group(b, {bins}, {column}, mean)", why=f"{column}'s century means"),
        Step(step=f"y = scale(g, {bins}, -1)", why="each century as its first year BCE"),
    ]
    if highest:
        steps.append(
            Step(
                step=f"extrema(y, {column}, {bins}_scaled, max)",
                why=f"the century of the highest mean {column}",
            )
        )
    else:
        steps += [
            Step(step=f"d = diff(y, {column})", why="the change from a century to the next"),
            Step(
                step=f"extrema(d, {column}_diff, {bins}_scaled, min)",
                why="the century of the largest fall",
            ),
        ]
    return Derived(
        steps, year_template(gold.context, year), year_template(gold.relation, year), []
    )  # fmt: skip


def _answer_year(gold: Hypothesis, query: str) -> str | None:
    """The gold's first year BCE (as :data:`YEAR` reads years) that ``query`` does not state."""
    asked = {m.group(1) for m in YEAR.finditer(query)}
    return next((m.group(1) for m in YEAR.finditer(gold.sentence) if m.group(1) not in asked), None)


_PCA = re.compile(r"\bprincipal component|\bpca\b", re.IGNORECASE)
_SIGN_CLAUSE = re.compile(
    r"[^.]*?\b(positive|negative)\b[^.]*?\b(?:(first|second) principal component|PC([12]))",
    re.IGNORECASE,
)
"""A sentence's text up to its first sign word and the principal component it is about."""
_COMPONENT = {"first": "PC1", "second": "PC2", "1": "PC1", "2": "PC2"}


def derive_pca(query: str, gold: Hypothesis, table: Table) -> Derived | None:
    """A reference for a question about a principal component analysis of the forms of capital,
    read from the gold's first sign clause ("... with negative values on the first principal
    component (PC1)"), whose sign word is the slot:

    - where the clause names a period (or one year, or else the query does), how the time
      slices of that period sit on the component ("how were the phases of the Middle Neolithic
      (3400-3000 BCE) characterized?"): ``pca`` of every numeric column of the slices, the
      period's slices, and the ``sign`` most of them have on the component;
    - else, where the clause names attributes ("social capital, represented by the number of
      monuments, copper/gold, and amber"; :func:`attribute_columns`), where those attributes sit:
      the ``loadings`` of every numeric column, the named ones (``among``), and the ``sign`` most
      of their loadings have on the component.

    None for a query without a PCA or a gold without such a clause."""
    match = _SIGN_CLAUSE.search(gold.relation) if _PCA.search(query) else None
    if match is None:
        return None
    word, component = match.group(1).lower(), _COMPONENT[(match.group(2) or match.group(3)).lower()]
    clause = match.group(0)
    if found := PERIOD.search(clause):
        period: tuple[int, int] | None = (int(found.group(1)), int(found.group(2)))
    elif found := YEAR.search(clause):
        period = (int(found.group(1)), int(found.group(1)))
    else:
        period = query_period(query)
    columns = [c.name for k, c in enumerate(table.columns) if c.name != KEY and _numeric(table, k)]
    if period is not None:
        steps = [
            Step(step=f"pcs = pca({table.name}, {', '.join(columns)})",
                 why="each slice's scores on the first two principal components of the forms "
                     "of capital"),
            *period_steps("pcs", KEY, (max(period), min(period))),
            Step(step=f"sign(q, {component})",
                 why=f"the sign most of the period's slices have on {component}"),
        ]  # fmt: skip
    elif attributes := attribute_columns(clause[: match.start(1) - match.start()], table):
        named = ", ".join(f"'{a}'" for a in attributes)
        steps = [
            Step(step=f"l = loadings({table.name}, {', '.join(columns)})",
                 why="where each form of capital sits on the first two principal components"),
            Step(step=f"q = among(l, attribute, {named})", why="the attributes the question names"),
            Step(step=f"sign(q, {component})",
                 why=f"the sign most of their loadings have on {component}"),
        ]  # fmt: skip
    else:
        return None
    return Derived(steps, *word_templates(gold, word, re.IGNORECASE), [])


def attribute_columns(text: str, table: Table) -> list[str]:
    """The columns ``text`` names as a list of attributes ("house size, the number of daggers,
    and hatchets/swords"), in order of mention: each item of the list (split as :func:`co_changes`
    splits clauses) names the column :func:`query_column` reads in it, if any."""
    named = (query_column(item, table) for item in _CLAUSE.split(text))
    return list(dict.fromkeys(c for c in named if c is not None))


def _numeric(table: Table, index: int) -> bool:
    """Whether column ``index`` of ``table`` holds numbers only (empty cells aside)."""
    cells = [row[index] for row in table.rows if row[index] is not None]
    return bool(cells) and all(isinstance(c, int | float) for c in cells)
