"""Fill the versioned judge prompt files (see :mod:`collabrl.prompt_files`) for one step or one
window.

The interactivity judge (training, paper E.3) reads the partner's profile; the window judges
(evaluation, paper E.4) judge from the interaction alone, so their template has no profile slot.
"""

from __future__ import annotations

from collections.abc import Sequence

from collabrl.engines.types import Message
from collabrl.envs.registry import get_game
from collabrl.prompt_files import PromptFile, chat
from collabrl.prompt_files import load_prompt as load_prompt_file
from collabrl.rewards.judges.records import StepView

PROMPT_PACKAGE = "collabrl.rewards.prompts"
OBSERVATION_CHARS = 4000  # per step; long observations keep their head and tail


def load_prompt(name: str) -> PromptFile:
    """``collabrl/rewards/prompts/<name>.txt``."""
    return load_prompt_file(PROMPT_PACKAGE, name)


def _clip(text: str, limit: int = OBSERVATION_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters omitted ...]\n{text[-half:]}"


def _heard(step: StepView) -> str:
    return "\n".join(f"{who}: {text}" for who, text in step.heard) or "(none)"


def _game(step: StepView) -> dict[str, str]:
    return {"game_description": get_game(step.game).description}


def step_messages(step: StepView) -> list[Message]:
    """The interactivity judge's chat for one decision."""
    return chat(
        load_prompt("interactivity"),
        {
            **_game(step),
            "partner_profile": step.partner_profile or "(no profile given)",
            "observation": _clip(step.observation),
            "heard": _heard(step),
            "think": step.think or "(empty)",
            "message": step.message or "(empty)",
            "action": step.action or "(invalid or missing)",
            "sent": "message sent" if step.sent_message else "message not sent",
        },
    )


def render_window(window: Sequence[StepView]) -> str:
    """The stretch as the window judges read it: per decision, what the AI saw, heard and did."""
    blocks = []
    for n, step in enumerate(window, 1):
        blocks.append(
            f"--- decision {n} (tick {step.tick}) ---\n"
            f"What the AI saw:\n{_clip(step.observation)}\n"
            f"Partner lines since its previous decision:\n{_heard(step)}\n"
            f"AI reasoning: {step.think or '(empty)'}\n"
            f"AI message draft: {step.message or '(empty)'}\n"
            f"AI action: {step.action or '(invalid or missing)'} "
            f"({'message sent' if step.sent_message else 'message not sent'})"
        )
    return "\n\n".join(blocks)


def window_prompt_stamp(dimension: str) -> str:
    """Version of a dimension's window prompt: shared template + its criteria file."""
    return f"{load_prompt('window').stamp}+{load_prompt(dimension).stamp}"


def window_messages(window: Sequence[StepView], dimension: str) -> list[Message]:
    """One window judge's chat: the shared template filled with one dimension's criteria."""
    return chat(
        load_prompt("window"),
        {
            **_game(window[0]),
            "dimension_title": dimension.capitalize(),
            "criteria": load_prompt(dimension).text.strip(),
            "steps": str(len(window)),
            "window": render_window(window),
        },
    )
