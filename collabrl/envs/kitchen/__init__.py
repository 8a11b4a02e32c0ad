"""Cook-MultiPlayer: an Overcooked-AI-faithful kitchen with skills, chat and a rule-based expert."""

from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import EVAL_HORIZON, TRAIN_HORIZON, KitchenGame
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES

__all__ = [
    "EVAL_HORIZON",
    "LAYOUT_NAMES",
    "TRAIN_HORIZON",
    "KitchenExpert",
    "KitchenGame",
]
