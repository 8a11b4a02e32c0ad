"""Persona-scripted players: profile-driven partners (Big Five -> behaviour), no LLM needed.

The player for a profile is built by :func:`collabrl.factory.make_persona` (its game's registry
entry names the class).
"""

from __future__ import annotations

from collabrl.agents.persona.analysis import AnalysisPersona
from collabrl.agents.persona.base import PersonaBase
from collabrl.agents.persona.household import HouseholdPersona
from collabrl.agents.persona.kitchen import KitchenPersona
from collabrl.agents.persona.temperament import Temperament

__all__ = [
    "AnalysisPersona",
    "HouseholdPersona",
    "KitchenPersona",
    "PersonaBase",
    "Temperament",
]
