"""Recipes: a YAML file plus ``a.b=c`` overrides, validated into one typed, printable object.

One base class (:class:`collabrl.sections.Strict`), one loader (:func:`load_settings`), one
override parser (:func:`apply_override`). Sections: :mod:`.roles` (engines, players, partners,
judges), :mod:`.training`, :mod:`.evaluation`, :mod:`.sft`, and the game's own (its registry
entry); :mod:`.recipe` joins them; :mod:`.explain` documents them.
"""

from collabrl.config.evaluation import EvalSpec, eval_section
from collabrl.config.folders import OutputDir
from collabrl.config.loader import (
    apply_override,
    describe_validation_error,
    load_recipe,
    load_settings,
    settings_file,
    shipped_recipes,
)
from collabrl.config.recipe import GameSpec, Recipe, partner_profiles, task_names
from collabrl.config.roles import EngineSpec, JudgeSpec, PartnerSpec, PlayerSpec, SamplingSpec
from collabrl.config.training import (
    AlgoSpec,
    DumpSpec,
    LoraSpec,
    PolicySpec,
    RewardSpec,
    RolloutSpec,
    TrainSpec,
)
from collabrl.sections import Strict

__all__ = [
    "AlgoSpec",
    "DumpSpec",
    "EngineSpec",
    "EvalSpec",
    "GameSpec",
    "JudgeSpec",
    "LoraSpec",
    "OutputDir",
    "PartnerSpec",
    "PlayerSpec",
    "PolicySpec",
    "Recipe",
    "RewardSpec",
    "RolloutSpec",
    "SamplingSpec",
    "Strict",
    "TrainSpec",
    "apply_override",
    "describe_validation_error",
    "eval_section",
    "load_recipe",
    "load_settings",
    "partner_profiles",
    "settings_file",
    "shipped_recipes",
    "task_names",
]
