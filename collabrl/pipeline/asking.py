"""Send many single-turn prompts to an engine in chunks, with a progress bar.

Why: the summariser and the judges ask one question per cluster or window; chunked batches let
concurrent backends (an OpenAI-compatible server, vLLM) work in parallel while progress shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from tqdm import tqdm

from collabrl.engines.types import Engine, GenerationResult, SamplingParams

CHUNK = 16


def ask_all(
    engine: Engine,
    prompts: Sequence[str],
    params: SamplingParams,
    *,
    desc: str,
    progress: bool = True,
) -> list[GenerationResult]:
    """One result per prompt, in order (each prompt is one user message)."""
    results: list[GenerationResult] = []
    with tqdm(total=len(prompts), desc=desc, disable=not progress) as bar:
        for start in range(0, len(prompts), CHUNK):
            chunk = prompts[start : start + CHUNK]
            results.extend(
                engine.generate([[{"role": "user", "content": p}] for p in chunk], params)
            )
            bar.update(len(chunk))
    return results


def text_params(
    max_new_tokens: int, temperature: float = 0.0, seed: int | None = None
) -> SamplingParams:
    """Sampling for free-text/JSON answers: no agent-format stop string."""
    return SamplingParams(
        temperature=temperature, max_new_tokens=max_new_tokens, stop=(), seed=seed
    )
