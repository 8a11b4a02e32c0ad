"""The two consistency judges of interaction-based filtering (CollabBench 4.1.2, E.2).

Why: a profile is only useful if an LLM playing it reasons in character (personality-reasoning)
and acts on its own reasoning (reasoning-action). Each window is judged on each dimension; the
judge lists flaws with severities 1-5, which Eq. (1) turns into a score.
"""

from __future__ import annotations

from collabrl.pipeline.parsing import ReplyError, extract_object
from collabrl.pipeline.prompting import game_context, load_prompt
from collabrl.pipeline.windows import Window

DIMENSIONS = {"personality_reasoning": "judge_personality", "reasoning_action": "judge_action"}


def judge_prompt(dimension: str, window: Window, persona: str) -> str:
    """The prompt asking for one window's flaws on one dimension."""
    return load_prompt(DIMENSIONS[dimension]).render(
        game_context=game_context(window.game),
        persona=persona,
        window_size=str(len(window.steps)),
        window=window.prompt_text(),
    )


def prompt_version(dimension: str) -> str:
    return load_prompt(DIMENSIONS[dimension]).version


def read_judgement(error: str | None, text: str) -> list[int]:
    """Severities of the flaws in a judge reply; :class:`ReplyError` if it is unusable."""
    if error:
        raise ReplyError(f"request failed: {error}")
    flaws = extract_object(text).get("flaws")
    if not isinstance(flaws, list):
        raise ReplyError("'flaws' missing or not a list")
    return [_severity(f) for f in flaws]


def _severity(flaw: object) -> int:
    if not isinstance(flaw, dict):
        raise ReplyError("a flaw is not an object")
    value = flaw.get("severity", flaw.get("score"))
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ReplyError(f"severity not a number ({value!r})") from None
    if not (1 <= number <= 5 and number.is_integer()):
        raise ReplyError(f"severity not an integer 1-5 ({value!r})")
    return int(number)
