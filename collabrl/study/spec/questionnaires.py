"""Questionnaire templates a study file can name instead of writing its items out.

``collabbench``: the five items of the CollabBench user study (appendix D.5: helpfulness x2,
trustfulness x2, empathy x1, each on a 5-point Likert scale), reworded by us as statements to
agree or disagree with, in words that fit every game (no rooms, pots or tables: the same
template serves a household, a kitchen and an analysis study). ``{partner}`` becomes the agent
seat's name.
"""

from __future__ import annotations

from typing import Any

TEMPLATES: dict[str, list[dict[str, Any]]] = {
    "collabbench": [
        {
            "id": "help_plan",
            "dimension": "helpfulness",
            "text": "What {partner} did fitted our shared goal: it seemed to grasp the plan, "
            "and its moves were sensible.",
        },
        {
            "id": "help_talk",
            "dimension": "helpfulness",
            "text": "{partner}'s messages were clear and useful: they told me something I could "
            "act on, not idle chatter.",
        },
        {
            "id": "trust_follow",
            "dimension": "trustfulness",
            "text": "When I asked {partner} for something, it listened and acted on it.",
        },
        {
            "id": "trust_update",
            "dimension": "trustfulness",
            "text": "{partner} kept me informed in good time about what it was doing (for "
            "example, when it turned to another part of the task).",
        },
        {
            "id": "empathy",
            "dimension": "empathy",
            "text": "{partner} came across as supportive and cooperative: encouraging, polite "
            "and aware of us as a team.",
        },
    ]
}


def template_items(name: str) -> list[dict[str, Any]]:
    """The items of template ``name`` (a ValueError names the known templates)."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown questionnaire template {name!r}; known: {', '.join(TEMPLATES)}")
    return [dict(item) for item in TEMPLATES[name]]
