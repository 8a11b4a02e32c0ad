"""Turn a seat's observation into chat messages for an LLM seat, by role.

Two roles, two versioned prompt files in :mod:`collabrl.agents.role_prompts` (paper appendix E):
``agent`` is the collaborative agent being trained or evaluated (E.6: efficient task completion
with a supportive message); ``player`` is a simulated player (E.5: a personality that decides,
greets first where the game's ``opening`` is ``first_decision``, follows the partner's instructions
when it has no plan, reports discoveries and finished subgoals, avoids waiting). A ``player`` without a persona is the profile-free
("homogeneous") partner of the paper's diversity analysis. Each result records the prompt's
:func:`role_prompt_stamp`.
"""

from __future__ import annotations

from typing import Literal

from collabrl.envs.base import Game, Observation
from collabrl.prompt_files import PromptFile, PromptLayout, fill, load_prompt

Role = Literal["agent", "player"]
ROLES: tuple[Role, ...] = ("agent", "player")
PROMPT_PACKAGE = "collabrl.agents.role_prompts"


def role_prompt(role: Role, layout: PromptLayout = "paper") -> PromptFile:
    """The prompt file of ``role`` in ``layout`` (only the agent has a compact layout)."""
    if layout == "compact":
        if role != "agent":
            raise ValueError(f"only the agent role has a compact prompt, not {role!r}")
        return load_prompt(PROMPT_PACKAGE, "agent_compact")
    return load_prompt(PROMPT_PACKAGE, role)


def role_prompt_stamp(role: Role, layout: PromptLayout = "paper") -> str:
    """``version@sha`` of a role's prompt file, stamped on every result that used it."""
    return role_prompt(role, layout).stamp


def role_prompt_stamps() -> dict[str, str]:
    """Every role's prompt stamp (what runs and results record), the compact agent's included."""
    return {
        **{role: role_prompt_stamp(role) for role in ROLES},
        "agent_compact": role_prompt_stamp("agent", "compact"),
    }


def build_messages(
    game: Game,
    obs: Observation,
    persona: str | None = None,
    role: Role = "agent",
    layout: PromptLayout = "paper",
) -> list[dict[str, str]]:
    """Chat messages (system + user) asking ``obs.seat`` for its next decision in ``role``,
    laid out as ``layout``."""
    if persona and role != "player":
        raise ValueError("only a simulated player (role='player') carries a persona")
    sections = role_prompt(role, layout).sections
    personality = fill(sections["personality"], {"persona": persona}) + "\n\n" if persona else ""
    greets = (
        "greeting" in sections and getattr(game, "opening", "first_decision") == "first_decision"
    )
    values = {
        "seat": obs.seat,
        "rules": game.intro(obs.seat),
        "observation": obs.text,
        "personality": personality,
        "greeting": sections["greeting"] + "\n" if greets else "",
    }
    return [
        {"role": "system", "content": fill(sections["system"], values)},
        {"role": "user", "content": fill(sections["user"], values)},
    ]
