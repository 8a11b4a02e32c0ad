"""What a hypothesis field claims, read so that a paraphrase reads the same and a changed claim
does not.

Why: the exact scorer compares normalised strings, so "the" added to a gold relation, the
context's parts in another order, "1,800" for "1800" or "rises" for "increases" scores 0 although
the claim is the gold one. A field is read here as a :class:`Claim`: its numbers (as values, so
number formats do not count), its *key words* (direction, extremes, level, order in time, ordinals,
sign and negation, each folded to one canonical word so synonyms agree) and its other content words
(articles, prepositions and copulas dropped, plurals folded). Two claims match when numbers and
key words agree exactly (a wrong period, first for second, increase for decrease, high for low,
positive for negative or a negated relation is another claim) and their content words overlap by
at least :data:`CONTENT_MATCH` (F1, word order ignored).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

CONTENT_MATCH = 0.8
"""The least F1 of two fields' content words for them to state the same claim."""

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_COPULA = re.compile(
    r"\b(?:falls?|comes?|lies?|is|are|was|were|occurs?|happens?|sits?)\s+(?:in|at|around)\b"
)
"""A verb that only places a claim in time ("the peak falls in 1800 BCE"): read as "in", so that
"falls" there is not read as a decrease."""

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}  # fmt: skip

_KEY_WORDS: dict[str, tuple[str, ...]] = {
    "increase": ("increase", "increases", "increased", "increasing", "rise", "rises", "rising",
                 "rose", "risen", "grow", "grows", "growing", "grew", "climb", "climbs", "gain",
                 "gains", "up", "higher", "greater", "larger", "more"),
    "decrease": ("decrease", "decreases", "decreased", "decreasing", "decline", "declines",
                 "declining", "declined", "drop", "drops", "dropped", "fall", "falls", "fell",
                 "falling", "shrink", "shrinks", "wane", "wanes", "waning", "down", "lower",
                 "smaller", "less", "fewer"),
    "begin": ("begin", "begins", "began", "beginning", "start", "starts", "started", "onset",
              "emerge", "emerges", "emerged"),
    "end": ("end", "ends", "ended", "ending", "stop", "stops", "stopped", "cease", "ceases"),
    "most": ("most", "highest", "greatest", "largest", "maximum", "max", "peak", "peaks",
             "peaked", "top"),
    "least": ("least", "lowest", "smallest", "fewest", "minimum", "min"),
    "earliest": ("earliest", "first", "oldest", "older", "earlier", "before"),
    "latest": ("latest", "last", "youngest", "younger", "later", "after"),
    "second": ("second", "2nd"),
    "third": ("third", "3rd"),
    "high": ("high", "large", "many", "abundant"),
    "low": ("low", "small", "few", "scarce"),
    "positive": ("positive", "positively"),
    "negative": ("negative", "negatively"),
    "not": ("not", "no", "never", "none", "neither", "nor", "cannot", "without", "n't"),
}  # fmt: skip
"""Canonical key word -> the words read as it. Key words must agree exactly between two claims."""
KEY = {word: key for key, words in _KEY_WORDS.items() for word in words}

_SYNONYMS = {"bc": "bce", "c": "", "ca": "", "circa": "", "about": "", "around": "",
             "approximately": "", "roughly": "", "coefficient": "", "correlation": "correlate",
             "correlated": "correlate", "correlates": "correlate", "appeared": "appear",
             "found": "find", "amount": "", "value": ""}  # fmt: skip
"""Content words folded to one form (or dropped, "")."""

_STOPWORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or",
    "between", "among", "during", "within", "into", "as", "is", "are", "was", "were", "be",
    "been", "being", "its", "it", "their", "this", "that", "these", "those", "which", "than",
    "then", "there", "here", "so", "over", "across", "per", "also", "while", "where", "when",
    "whose", "who", "what", "do", "does", "did", "has", "have", "had",
))  # fmt: skip


@dataclass(frozen=True)
class Claim:
    """One field read as a claim: its numbers, key words and content words (multisets)."""

    numbers: Counter[str]
    keys: Counter[str]
    content: Counter[str]


def number_value(text: str) -> str:
    """A number written any common way as one canonical string: "1,800", "1800.0" and "1.8e3"
    are "1800"; a single comma before other than three digits is a decimal comma ("0,8" is
    "0.8"). Unreadable text is returned as written."""
    if text.count(",") == 1 and "." not in text and not re.search(r",\d{3}(?!\d)", text):
        text = text.replace(",", ".")
    text = text.replace(",", "")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    normal = value.normalize()
    return format(normal, "f") if normal == normal.to_integral() else str(normal)


def _fold(word: str) -> str:
    """A content word's one form: synonyms folded, a plural "s" dropped."""
    word = _SYNONYMS.get(word, word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def read_claim(text: str) -> Claim:
    """``text`` as a :class:`Claim` (case, punctuation, articles and word order do not count)."""
    lowered = _COPULA.sub(" in ", text.lower().replace("n't", " not"))
    numbers = Counter(number_value(n) for n in _NUMBER.findall(lowered))
    keys: Counter[str] = Counter()
    content: Counter[str] = Counter()
    for word in _WORD.findall(_NUMBER.sub(" ", lowered)):
        if word in _NUMBER_WORDS:
            numbers[_NUMBER_WORDS[word]] += 1
        elif word in KEY:
            keys[KEY[word]] += 1
        elif word not in _STOPWORDS and (folded := _fold(word)):
            content[folded] += 1
    keys["not"] %= 2  # a double negation is an assertion
    return Claim(numbers, +keys, content)


def content_f1(mine: Counter[str], theirs: Counter[str]) -> float:
    """F1 of two multisets of words (1.0 when both are empty)."""
    if not mine and not theirs:
        return 1.0
    common = sum((mine & theirs).values())
    if not common:
        return 0.0
    precision, recall = common / sum(mine.values()), common / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)


def same_claim(submitted: str, gold: str) -> bool:
    """Whether ``submitted`` states ``gold``'s claim: equal numbers and key words, content words
    overlapping by at least :data:`CONTENT_MATCH`."""
    mine, theirs = read_claim(submitted), read_claim(gold)
    return (
        mine.numbers == theirs.numbers
        and mine.keys == theirs.keys
        and content_f1(mine.content, theirs.content) >= CONTENT_MATCH
    )
