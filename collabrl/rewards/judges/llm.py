"""LLM judges through any engine: step interactivity (training) and window penalties (evaluation).

Why one batched call: judging is the slowest part of a reward or evaluation pass, so all
conversations of a batch go to ``Engine.generate`` at once; the OpenAI-compatible engine then keeps
many in flight, retries transient faults and caches replies (greedy sampling + a fixed seed make
cache hits reproducible). A failed request or an unusable reply becomes a judgement with ``error``
set; it is never turned into a 0 score and never raises.
"""

from __future__ import annotations

from collections.abc import Sequence

from collabrl.engines.types import Engine, GenerationResult, SamplingParams
from collabrl.rewards.judges.parsing import JudgeParseError, parse_level, parse_violations
from collabrl.rewards.judges.prompts import (
    load_prompt,
    step_messages,
    window_messages,
    window_prompt_stamp,
)
from collabrl.rewards.judges.records import (
    DIMENSIONS,
    StepJudgement,
    StepView,
    WindowJudgement,
)

INVALID_STEP = "invalid decision (interactivity reward is 0 there)"


def default_judge_params() -> SamplingParams:
    """Greedy, seeded, no stop strings (the agent's ``</action>`` stop must not cut JSON)."""
    return SamplingParams(temperature=0.0, max_new_tokens=512, stop=(), seed=0)


def _failure(result: GenerationResult) -> str | None:
    if result.error:
        return f"engine: {result.error}"
    if not result.text.strip():
        return "engine: empty reply"
    return None


class LLMJudge:
    """Both judge roles backed by one engine; ``name`` is stamped on every judgement."""

    def __init__(
        self, engine: Engine, *, name: str = "llm", params: SamplingParams | None = None
    ) -> None:
        self.engine, self.name = engine, f"llm:{name}"
        self.params = params or default_judge_params()
        self.proxy = False

    def _generate(self, conversations: list) -> list[GenerationResult]:
        return self.engine.generate(conversations, self.params) if conversations else []

    def judge_steps(self, steps: Sequence[StepView]) -> list[StepJudgement]:
        """Interactivity level per step, one ``generate`` call for all valid steps."""
        stamp = load_prompt("interactivity").stamp
        asked = [i for i, s in enumerate(steps) if s.valid]
        results = self._generate([step_messages(steps[i]) for i in asked])
        out = [StepJudgement(None, "", self.name, stamp, skipped=INVALID_STEP) for _ in steps]
        for i, result in zip(asked, results, strict=True):
            error, level, rationale = _failure(result), None, ""
            if error is None:
                try:
                    level, rationale = parse_level(result.text)
                except JudgeParseError as exc:
                    error = f"parse: {exc}"
            out[i] = StepJudgement(level, rationale, self.name, stamp, error=error, raw=result.text)
        return out

    def judge_windows(
        self, windows: Sequence[Sequence[StepView]], dimensions: Sequence[str] = DIMENSIONS
    ) -> list[dict[str, WindowJudgement]]:
        """Per window, one judgement per dimension; one ``generate`` call for all of them."""
        jobs = [(w, d) for w in range(len(windows)) for d in dimensions]
        results = self._generate([window_messages(windows[w], d) for w, d in jobs])
        out: list[dict[str, WindowJudgement]] = [{} for _ in windows]
        for (w, dim), result in zip(jobs, results, strict=True):
            judgement = WindowJudgement(
                dim, [], "", self.name, window_prompt_stamp(dim), raw=result.text
            )
            judgement.error = _failure(result)
            if judgement.error is None:
                try:
                    judgement.violations, judgement.summary, judgement.notes = parse_violations(
                        result.text
                    )
                except JudgeParseError as exc:
                    judgement.error = f"parse: {exc}"
            out[w][dim] = judgement
        return out
