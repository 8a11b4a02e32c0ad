"""LLM player plumbing with a scripted engine: prompt, retry on bad output, failures recorded."""

from collabrl.agents.llm_player import LLMPlayer
from collabrl.engines.types import Completion, GenerationResult, SamplingParams
from collabrl.envs.base import format_response
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.episode import play_episode


class ScriptedEngine:
    """Replays replies in order and keeps every conversation it was sent."""

    def __init__(self, replies: list[str | None]) -> None:
        self.replies, self.seen = list(replies), []

    def generate(self, conversations, params):
        out = []
        for conv in conversations:
            self.seen.append(list(conv))
            reply = self.replies.pop(0) if self.replies else "no tags at all"
            if reply is None:
                out.append(GenerationResult(error="HTTP 500: server exploded"))
            else:
                out.append(
                    GenerationResult(
                        completions=[Completion(reply, "stop")],
                        prompt_tokens=10,
                        completion_tokens=5,
                    )
                )
        return out

    def close(self) -> None:
        """Nothing to release."""


def test_retry_once_with_errors_shown_then_succeed() -> None:
    game = HouseholdGame("0_read_book")
    obs = game.reset(seed=0)["Alice"]
    engine = ScriptedEngine(["I pick the fridge", format_response("t", "m", obs.actions[0])])
    params = SamplingParams(temperature=0)
    player = LLMPlayer(engine, game, params, role="player", persona="Very chatty.", retries=1)
    player.reset("Alice", 0)
    reply = player.act(obs)
    assert reply.endswith(f"<action>{obs.actions[0]}</action>")
    retry_prompt = engine.seen[1][-1]["content"]
    assert "missing <think> tag" in retry_prompt and engine.seen[1][-2]["role"] == "assistant"
    assert (
        "Very chatty." in engine.seen[0][0]["content"] and obs.text in engine.seen[0][1]["content"]
    )
    call = player.calls[0]
    assert call.attempts == 2 and call.prompt_tokens == 20 and call.errors
    assert call.failures == 0  # unusable replies are the model's doing, not failed requests


def test_engine_failure_is_recorded_and_seat_idles() -> None:
    game = HouseholdGame("0_read_book", max_decisions=2)
    engine = ScriptedEngine([None] * 100)
    players = {"Alice": LLMPlayer(engine, game, role="agent", retries=1), "Bob": HouseholdExpert()}
    record = play_episode(game, players, seed=0)
    alice = [t for t in record.turns if t.seat == "Alice"]
    assert alice and not any(t.valid for t in alice)
    assert record.summary["invalid"]["Alice"] == len(alice)
    assert all("engine: HTTP 500" in e for c in players["Alice"].calls for e in c.errors[:1])
    assert all(c.failures == c.attempts == 2 for c in players["Alice"].calls)
