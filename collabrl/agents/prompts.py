"""Turn a seat's observation into chat messages for an LLM player.

The system message carries what stays fixed for the episode (role, teammates, rules, answer
format); the user message carries the current observation. Persona players (a later milestone)
pass a ``persona`` paragraph that is added to the system message.
"""

from __future__ import annotations

from collabrl.envs.base import Game, Observation

ANSWER_FORMAT = """\
Answer in exactly this form, with all three parts:
<think>Your reasoning: what your teammates know, need and plan, what is left to do, and which \
action helps the team most right now.</think>
<message>What you would tell your teammates: discoveries, progress, your next step, questions, \
suggestions or encouragement.</message>
<action>Exactly one action from the list, copied as written (or just its letter).</action>

Choosing the message action delivers the text in <message> to every teammate and costs one time \
step; with any other action the message is not sent. Send one when you find something a \
teammate needs, finish part of the goal, need help, or are about to do something that changes \
their plans."""


def system_prompt(game: Game, seat: str, persona: str | None = None) -> str:
    """Role, teammates, rules and answer format for ``seat``."""
    mates = [s for s in game.agents if s != seat]
    team = f"You work together with {', '.join(mates)}." if mates else "You play alone."
    parts = [
        f"You are {seat}, a player in a cooperative game. {team} "
        "Finish the shared goal as quickly as possible while being a good teammate.",
        game.intro(seat),
    ]
    if persona:
        parts.append(f"Your personality and play style:\n{persona}\nStay true to it.")
    parts.append(ANSWER_FORMAT)
    return "\n\n".join(parts)


def build_messages(
    game: Game, obs: Observation, persona: str | None = None
) -> list[dict[str, str]]:
    """Chat messages (system + user) asking ``obs.seat`` for its next decision."""
    return [
        {"role": "system", "content": system_prompt(game, obs.seat, persona)},
        {
            "role": "user",
            "content": f"{obs.text}\n\nWhat do you do now? Reply with <think>, <message> and "
            "<action>.",
        },
    ]
