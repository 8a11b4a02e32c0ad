"""LLM judges through any engine: step interactivity (training) and window penalties (evaluation).

Why one batched call: judging is the slowest part of a reward or evaluation pass, so all
conversations of a batch go to ``Engine.generate`` at once; the OpenAI-compatible engine then keeps
many in flight, retries transient faults and caches replies (greedy sampling + a fixed seed make
cache hits reproducible). An unusable reply is asked again (``retries``, a new seed each time); a
failed request, or a reply still unusable, becomes a judgement with ``error`` set; it is never
turned into a 0 score and never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

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


# the released code's judges, collabrl's defaults where the paper gives none
EVAL_JUDGE_MAX_NEW_TOKENS = 900  # the evaluation judges' max_tokens
EVAL_JUDGE_RETRIES = 3  # the evaluation judges' further tries on unparsable JSON
TRAIN_JUDGE_TEMPERATURE = 0.7  # the training (interactivity) judge's sampling
TRAIN_JUDGE_MAX_NEW_TOKENS = 8192
TRAIN_JUDGE_RETRIES = 50  # the training judge's further tries on an unusable verdict


def default_judge_params() -> SamplingParams:
    """Greedy, seeded, no stop strings (the agent's ``</action>`` stop must not cut JSON); the
    released evaluation judges' reply length."""
    return SamplingParams(
        temperature=0.0, max_new_tokens=EVAL_JUDGE_MAX_NEW_TOKENS, stop=(), seed=0
    )


RETRY_SEED_STRIDE = 1_000_003  # a retry's seed offset: new samples, new cache keys


def _failure(result: GenerationResult) -> str | None:
    if result.error:
        return f"engine: {result.error}"
    if not result.text.strip():
        return "engine: empty reply"
    return None


Reading = TypeVar("Reading")


class LLMJudge:
    """Both judge roles backed by one engine; ``name`` is stamped on every judgement.

    ``retries``: further calls for a conversation whose verdict is unusable (an empty reply or
    one the parser cannot read; a failed request is the engine's to retry), each with a new
    seed, as the released judges loop until a verdict parses (its training judge up to 50
    times, its evaluation judges 3). Each judgement records its ``attempts``."""

    def __init__(
        self,
        engine: Engine,
        *,
        name: str = "llm",
        params: SamplingParams | None = None,
        retries: int = 0,
    ) -> None:
        self.engine, self.name = engine, f"llm:{name}"
        self.params = params or default_judge_params()
        self.retries = retries
        self.proxy = False

    def _verdicts(
        self, conversations: list, read: Callable[[str], Reading]
    ) -> list[tuple[GenerationResult, Reading | None, str | None, int]]:
        """Per conversation: the last reply, what ``read`` made of it (None when unusable), the
        error, and the calls made; the unusable ones are asked again, all in one batch a round."""
        pending = list(range(len(conversations)))
        done: dict[int, tuple[GenerationResult, Reading | None, str | None, int]] = {}
        for attempt in range(self.retries + 1):
            if not pending:
                break
            params = self.params
            if attempt:
                params = replace(params, seed=(params.seed or 0) + attempt * RETRY_SEED_STRIDE)
            results = self.engine.generate([conversations[i] for i in pending], params)
            again = []
            for i, result in zip(pending, results, strict=True):
                error, reading = _failure(result), None
                if error is None:
                    try:
                        reading = read(result.text)
                    except JudgeParseError as exc:
                        error = f"parse: {exc}"
                done[i] = (result, reading, error, attempt + 1)
                if error is not None and not result.error:
                    again.append(i)
            pending = again
        return [done[i] for i in range(len(conversations))]

    def judge_steps(self, steps: Sequence[StepView]) -> list[StepJudgement]:
        """Interactivity level per step, one ``generate`` call for all valid steps (and one
        per retry round)."""
        stamp = load_prompt("interactivity").stamp
        asked = [i for i, s in enumerate(steps) if s.valid]
        verdicts = self._verdicts([step_messages(steps[i]) for i in asked], parse_level)
        out = [StepJudgement(None, "", self.name, stamp, skipped=INVALID_STEP) for _ in steps]
        for i, (result, reading, error, attempts) in zip(asked, verdicts, strict=True):
            level, rationale = reading if reading is not None else (None, "")
            out[i] = StepJudgement(
                level, rationale, self.name, stamp, error=error, raw=result.text, attempts=attempts
            )
        return out

    def judge_windows(
        self, windows: Sequence[Sequence[StepView]], dimensions: Sequence[str] = DIMENSIONS
    ) -> list[dict[str, WindowJudgement]]:
        """Per window, one judgement per dimension; one ``generate`` call for all of them (and
        one per retry round)."""
        jobs = [(w, d) for w in range(len(windows)) for d in dimensions]
        verdicts = self._verdicts(
            [window_messages(windows[w], d) for w, d in jobs], parse_violations
        )
        out: list[dict[str, WindowJudgement]] = [{} for _ in windows]
        for (w, dim), (result, reading, error, attempts) in zip(jobs, verdicts, strict=True):
            judgement = WindowJudgement(
                dim, [], "", self.name, window_prompt_stamp(dim), raw=result.text
            )
            judgement.error, judgement.attempts = error, attempts
            if reading is not None:
                judgement.violations, judgement.summary, judgement.notes = reading
            out[w][dim] = judgement
        return out
