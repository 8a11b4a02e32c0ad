"""Persona-scripted players: profile-driven partners (Big Five -> behaviour), no LLM needed."""

from __future__ import annotations

from collabrl.agents.persona.base import PersonaBase
from collabrl.agents.persona.household import HouseholdPersona
from collabrl.agents.persona.kitchen import KitchenPersona
from collabrl.agents.persona.temperament import Temperament
from collabrl.profiles.schema import Profile


def make_persona_player(profile: Profile) -> PersonaBase:
    """The persona player for ``profile``'s game (the class its registry entry names)."""
    from collabrl.factory import make_persona

    return make_persona(profile)


__all__ = [
    "HouseholdPersona",
    "KitchenPersona",
    "PersonaBase",
    "Temperament",
    "make_persona_player",
]
