"""An LLM-driven seat: role (+ profile) + observation -> prompt -> any engine -> checked response.

The role picks the prompt (:mod:`collabrl.agents.prompts`): ``agent`` for the collaborative agent,
``player`` for a simulated player. An unusable reply gets ``retries`` more attempts with the
parser's complaints shown to the model (0 by default for every role, the paper's single pass:
``eval.policy_retries`` and ``partner.retries`` ask for more); if the last is unusable too, its
text is returned anyway and the game idles the seat for a tick (recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from collabrl.agents.prompts import Role, build_messages
from collabrl.agents.protocol import parse_observed
from collabrl.engines.types import Engine, GenerationResult, SamplingParams
from collabrl.envs.base import Game, Observation
from collabrl.prompt_files import PromptLayout


@dataclass
class LLMCall:
    """What one decision cost and why it may have failed (kept for logs and evaluation).

    ``attempts`` counts engine requests and ``failures`` those the engine could not answer (a
    server down, an unusable reply): the partner failure rate training logs and checks."""

    tick: int
    attempts: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0
    errors: list[str] = field(default_factory=list)


class LLMPlayer:
    """A :class:`collabrl.agents.player.Player` backed by an :class:`Engine`."""

    def __init__(
        self,
        engine: Engine,
        game: Game,
        params: SamplingParams | None = None,
        *,
        role: Role,
        persona: str | None = None,
        retries: int = 0,
        name: str = "llm",
        layout: PromptLayout = "paper",
    ) -> None:
        self.engine, self.game, self.persona, self.role = engine, game, persona, role
        self.layout = layout
        self.params = params or SamplingParams(temperature=0.7, max_new_tokens=512)
        self.retries, self.name = retries, name
        self.calls: list[LLMCall] = []

    def reset(self, seat: str, seed: int) -> None:
        self.seat, self.seed = seat, seed
        self.calls = []

    def act(self, obs: Observation) -> str:
        """Ask the model; retry with the problems spelled out while the reply is unusable."""
        return act_all([(self, obs)])[0]

    def conversation(self, obs: Observation) -> list[dict[str, str]]:
        """The chat this player sends for ``obs``."""
        return build_messages(self.game, obs, self.persona, self.role, self.layout)

    def sampling(self) -> SamplingParams:
        """This player's sampling settings with a fresh seed per decision (if seeded)."""
        seed = None if self.params.seed is None else self.params.seed + len(self.calls)
        return replace(self.params, seed=seed, n=1)


def _generate(
    engine: Engine,
    conversations: list[list[dict[str, str]]],
    params: SamplingParams,
    calls: list[LLMCall],
) -> list[str]:
    """One batched engine call; token counts and engine errors go to each request's record."""
    results: list[GenerationResult] = engine.generate(conversations, params)
    for result, call in zip(results, calls, strict=True):
        call.attempts += 1
        call.prompt_tokens += result.prompt_tokens
        call.completion_tokens += result.completion_tokens
        if result.error:
            call.failures += 1
            call.errors.append(f"engine: {result.error}")
    return [r.text for r in results]


def act_all(requests: list[tuple[LLMPlayer, Observation]]) -> list[str]:
    """Replies for many LLM seats at once: one batched call per engine, sampling settings and retry
    budget, then batched retries for the replies the parser rejects (the complaints are shown to
    the model)."""
    replies = [""] * len(requests)
    by_engine: dict[tuple[int, SamplingParams, int], list[int]] = {}
    for i, (player, _) in enumerate(requests):
        by_engine.setdefault((id(player.engine), player.params, player.retries), []).append(i)
    for indices in by_engine.values():
        players = [requests[i][0] for i in indices]
        observations = [requests[i][1] for i in indices]
        calls = [LLMCall(tick=o.tick, attempts=0) for o in observations]
        for player, call in zip(players, calls, strict=True):
            player.calls.append(call)
        chats = [p.conversation(o) for p, o in zip(players, observations, strict=True)]
        params = players[0].sampling()
        texts = _generate(players[0].engine, chats, params, calls)
        for _ in range(players[0].retries):
            redo = []
            for k, (text, obs) in enumerate(zip(texts, observations, strict=True)):
                parsed = parse_observed(text, obs)
                if not parsed.valid:
                    calls[k].errors.extend(parsed.errors)
                    chats[k] = [
                        *chats[k],
                        {"role": "assistant", "content": text},
                        {"role": "user", "content": retry_instruction(parsed.errors)},
                    ]
                    redo.append(k)
            if not redo:
                break
            again = _generate(
                players[0].engine, [chats[k] for k in redo], params, [calls[k] for k in redo]
            )
            for k, text in zip(redo, again, strict=True):
                texts[k] = text
        for i, text in zip(indices, texts, strict=True):
            replies[i] = text
    return replies


def retry_instruction(errors: list[str]) -> str:
    """The follow-up turn after an unusable reply."""
    problems = "; ".join(errors) or "the reply was empty"
    return (
        f"That reply could not be used ({problems}). Answer again with <think>, <message> and "
        "<action>, choosing exactly one action from the list."
    )
