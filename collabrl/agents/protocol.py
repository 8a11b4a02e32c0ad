"""Parse an agent's ``<think>/<message>/<action>`` response into a checked decision.

Every seat (LLM, scripted, human) answers in the same three-tag format. The parser never raises and
runs in linear time in the response length: a single regex pass finds the tags, and action matching
only compares normalised strings against the (short) list of available actions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from collabrl.envs.base import EMPTY_MESSAGE, Decision, Observation, letter, sends_message

TAGS = ("think", "message", "action")
# One alternation over tag names; no nested quantifiers, so matching is linear.
_TAG_RE = re.compile(r"<\s*(/?)\s*(think|message|action)\s*>", re.IGNORECASE)
# "B", "B.", "(B)", "B) text", "B: text"; a bare word like "I will ..." is not a letter.
_LETTER_RE = re.compile(r"^\(?([A-Z]{1,2})(?:\s*[).:]\s*(.*))?$", re.DOTALL)
_NON_WORD_RE = re.compile(r"[\W_]+")


@dataclass
class Parsed:
    """A parsed response. ``action`` is one of the available actions, or None when unusable."""

    think: str = ""
    message: str = ""
    action: str | None = None
    valid: bool = False
    errors: list[str] = field(default_factory=list)

    def decision(self) -> Decision:
        """The game-side view of this response."""
        return Decision(
            action=self.action, message=self.message, think=self.think, valid=self.valid
        )


def _extract_tags(text: str, errors: list[str]) -> dict[str, str]:
    """Content of the first complete ``<tag>...</tag>`` block of each tag, in one pass.

    Each kind of problem is reported once, so garbage input cannot grow ``errors`` without bound.
    """
    found: dict[str, str] = {}
    open_tag: str | None = None
    open_end = 0
    seen_open: set[str] = set()
    reported: set[str] = set()

    def report(problem: str) -> None:
        if problem not in reported:
            reported.add(problem)
            errors.append(problem)

    for match in _TAG_RE.finditer(text):
        closing, name = match.group(1) == "/", match.group(2).lower()
        if not closing:
            if open_tag is not None and open_tag != name:
                report(f"<{open_tag}> is not closed before <{name}>")
            if name in seen_open:
                report(f"duplicated <{name}> tag; the first one is used")
            seen_open.add(name)
            open_tag, open_end = name, match.end()
        elif open_tag == name:
            found.setdefault(name, text[open_end : match.start()].strip())
            open_tag = None
    if open_tag is not None and open_tag not in found:
        report(f"<{open_tag}> is not closed")
        found[open_tag] = text[open_end:].strip()
    return found


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces: ``[GoGrab] <Apple> (3)`` -> ``gograb apple 3``."""
    return _NON_WORD_RE.sub(" ", text.lower()).strip()


def _fill_template(answer: str, available_actions: list[str]) -> str | None:
    """``wait(7)`` for an offered template ``wait(x)``: the concrete call with its integer."""
    for offered in available_actions:
        if offered.endswith("(x)"):
            name = offered[:-3]
            m = re.fullmatch(rf"{re.escape(name)}\s*\(?\s*(\d{{1,6}})\s*\)?", answer, re.I)
            if m:
                return f"{name}({int(m.group(1))})"
    return None


_TEXT_TEMPLATE = re.compile(r"(\w+)\(<\w+>\)")
MAX_TEXT_ARGUMENT = 500  # characters of a text template's argument


def _fill_text_template(answer: str, available_actions: list[str]) -> str | None:
    """``run(r1 = sort(t, year, desc))`` for an offered template with a text argument,
    ``run(<step>)``: the call as written, its argument any text up to 500 characters (the game
    reads it)."""
    for offered in available_actions:
        template = _TEXT_TEMPLATE.fullmatch(offered)
        if template is None:
            continue
        name = template.group(1)
        if answer.startswith(f"{name}(") and answer.endswith(")"):
            argument = answer[len(name) + 1 : -1]
            if argument.strip() and len(argument) <= MAX_TEXT_ARGUMENT:
                return answer
    return None


def is_template(action: str) -> bool:
    """Whether an offered action is a template a reply fills in (``wait(x)``, ``run(<step>)``),
    not an action a game runs as written."""
    return action.endswith("(x)") or _TEXT_TEMPLATE.fullmatch(action) is not None


def match_action(answer: str, available_actions: list[str]) -> tuple[str | None, str | None]:
    """Map an answer to one available action: exact text, its letter, or one normalised match.

    An offered template such as ``wait(x)`` also accepts a concrete call (``wait(5)``), which is
    returned as written; the game checks the argument's range. A template with a text argument,
    ``run(<step>)``, accepts ``run(...)`` with any text up to 500 characters, returned as written. Returns (action, None) on success
    and (None, reason) otherwise.
    """
    answer = answer.strip().strip("`'\"").strip()
    if not answer:
        return None, "empty <action>"
    if answer in available_actions:
        return answer, None
    filled = _fill_template(answer, available_actions) if len(answer) < 100 else None
    if filled:
        return filled, None
    written = _fill_text_template(answer, available_actions)
    if written:
        return written, None
    by_letter = _LETTER_RE.match(answer) if len(answer) < 1000 else None
    if by_letter:
        index = _letter_index(by_letter.group(1))
        rest = by_letter.group(2)
        if index is not None and index < len(available_actions):
            chosen = available_actions[index]
            if rest is None or normalise(rest) in ("", normalise(chosen)):
                return chosen, None
            return None, f"letter {by_letter.group(1)} does not name action {rest[:80]!r}"
    wanted = normalise(answer)
    if not wanted:
        return None, f"unknown action {answer[:80]!r}"
    exact = [a for a in available_actions if normalise(a) == wanted]
    if len(exact) == 1:
        return exact[0], None
    # Containment either way, on word boundaries ("grab apple 3" / "I choose [gograb] <apple> (3)").
    padded = f" {wanted} "
    near = [
        a
        for a in available_actions
        if f" {normalise(a)} " in padded or padded in f" {normalise(a)} "
    ]
    if len(near) == 1:
        return near[0], None
    if len(near) > 1:
        return None, f"ambiguous action {answer[:80]!r} matches {len(near)} available actions"
    return None, f"action {answer[:80]!r} is not one of the available actions"


def _letter_index(label: str) -> int | None:
    """Inverse of :func:`collabrl.envs.base.letter` for labels of one or two letters."""
    index = 0
    for ch in label:
        index = index * 26 + (ord(ch) - ord("A") + 1)
    index -= 1
    return index if letter(index) == label else None


def parse_response(
    text: str, available_actions: list[str], *, message_action: str | None = None
) -> Parsed:
    """Parse a model response (contract, see DESIGN.md). Never raises; linear in ``len(text)``.

    With ``message_action`` given, choosing it with an empty ``<message>`` is invalid (action
    None), the rule every game applies (:func:`collabrl.envs.base.sends_message`).
    """
    try:
        text = text if isinstance(text, str) else str(text)
        parsed = _parse(text, list(available_actions))
    except Exception as exc:  # a parser must never take a run down; report instead
        return Parsed(errors=[f"parser failure: {type(exc).__name__}: {exc}"])
    if (
        message_action is not None
        and parsed.action == message_action
        and not sends_message(parsed.action, parsed.message, message_action)
    ):
        parsed.errors.append(EMPTY_MESSAGE)
        parsed.action, parsed.valid = None, False
    return parsed


def parse_observed(text: str, obs: Observation) -> Parsed:
    """Parse a seat's response to ``obs``: its available actions and its game's message rule."""
    return parse_response(text, obs.actions, message_action=obs.message_action or None)


def _parse(text: str, available_actions: list[str]) -> Parsed:
    errors: list[str] = []
    tags = _extract_tags(text, errors)
    for name in TAGS:
        if name not in tags:
            errors.append(f"missing <{name}> tag")
    action, reason = (None, None)
    if "action" in tags:
        action, reason = match_action(tags["action"], available_actions)
        if reason:
            errors.append(reason)
    valid = action is not None and all(name in tags for name in TAGS)
    return Parsed(
        think=tags.get("think", ""),
        message=tags.get("message", ""),
        action=action,
        valid=valid,
        errors=errors,
    )
