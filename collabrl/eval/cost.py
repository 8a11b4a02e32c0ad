"""What an evaluation with LLM seats will cost at most, printed before it starts.

Why: the team-structures grid with LLM collaborators (``collabrl eval analysis_teams
partner.kind=llm policy.kind=llm``) is thousands of episodes, every seat a call per tick; a user
with an API key should see the bill's order of magnitude before the first request, not after.
The estimate is an upper bound on the players' calls: every LLM seat decides on every tick up to
the game's ``max_ticks`` (episodes usually end earlier), each prompt is as long as the job's
first observation plus the system prompt's rules (:data:`PROMPT_OVERHEAD_CHARS`), and each reply
is ``max_new_tokens`` long; text is counted at :data:`CHARS_PER_TOKEN`. Jobs an earlier run
recorded are not subtracted (the journal is read when the run starts). Judge calls come on top
(one per episode for ``hypothesis_judge`` or ``trace_judge`` set to llm, and the window judges'
calls when ``judge.kind=llm``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from collabrl.config import EvalSpec
from collabrl.eval.runner import Job, game_spec

CHARS_PER_TOKEN = 4  # a common rule of thumb for English text and BPE tokenizers
PROMPT_OVERHEAD_CHARS = 6000  # the rules, the reply format and the profile around an observation


@dataclass(frozen=True)
class CostEstimate:
    """Upper bounds on the players' LLM calls and tokens of an evaluation."""

    episodes: int
    calls: int
    prompt_tokens: int
    completion_tokens: int

    def line(self) -> str:
        return (
            f"cost estimate (upper bound, players only): {self.calls:,} LLM calls, "
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens "
            f"over {self.episodes:,} episodes"
        )


def _llm_seats(spec: EvalSpec, job: Job, seats: int) -> int:
    """The job's seats played by an LLM: the policy's, and every partner seat with llm (or with
    self, the policy itself, when it is an LLM)."""
    policy = int(spec.policy.kind == "llm")
    partner = spec.partner.kind == "llm" or (spec.partner.kind == "self" and policy)
    return policy + (seats - 1) * int(partner)


def _first_observation(spec: EvalSpec, job: Job) -> tuple[int, int, int]:
    """(seats, max ticks, the longest first observation in characters) of the job's game."""
    section = game_spec(spec, job)
    game = section.make_game()
    longest = max(len(o.text) for o in game.reset(job.seed).values())
    return len(game.agents), int(getattr(section, "max_ticks", 0) or 0), longest


def estimate_cost(spec: EvalSpec, jobs: Sequence[Job]) -> CostEstimate | None:
    """The upper bound for ``jobs`` (see the module docstring); None when no seat is an LLM."""
    if spec.policy.kind != "llm" and spec.partner.kind != "llm":
        return None
    calls = prompt = completion = 0
    reply = spec.max_new_tokens
    games: dict[tuple[object, ...], tuple[int, int, int]] = {}
    for job in jobs:
        key = (job.game, job.task, job.size, job.structure, job.composition)
        if key not in games:  # the first observation does not depend on seed or profile
            games[key] = _first_observation(spec, job)
        seats, ticks, chars = games[key]
        n = _llm_seats(spec, job, seats) * ticks
        calls += n
        prompt += n * (chars + PROMPT_OVERHEAD_CHARS) // CHARS_PER_TOKEN
        completion += n * reply
    return CostEstimate(len(jobs), calls, prompt, completion)
