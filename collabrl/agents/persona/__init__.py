"""Persona-scripted players: profile-driven partners (Big Five -> behaviour), no LLM needed."""

from __future__ import annotations

from collabrl.agents.persona.base import PersonaBase
from collabrl.agents.persona.household import HouseholdPersona
from collabrl.agents.persona.kitchen import KitchenPersona
from collabrl.agents.persona.temperament import Temperament
from collabrl.profiles.schema import Profile

PERSONAS: dict[str, type[PersonaBase]] = {"household": HouseholdPersona, "kitchen": KitchenPersona}


def make_persona_player(profile: Profile) -> PersonaBase:
    """The persona player for ``profile``'s game (household or kitchen)."""
    return PERSONAS[profile.game](profile)


__all__ = [
    "PERSONAS",
    "HouseholdPersona",
    "KitchenPersona",
    "PersonaBase",
    "Temperament",
    "make_persona_player",
]
