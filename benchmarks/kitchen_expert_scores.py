"""Kitchen expert pairs: score per layout under each motion layer, next to the reference scores.

Usage: ``python benchmarks/kitchen_expert_scores.py [--seeds 10] [--cooking auto|interact]``.
Both seats hold the rule-based KitchenExpert, as in the ``kitchen_experts`` recipe (whose cooking
rule is the default), for the evaluation horizon. The reference column is the score of two
rule-based skill agents on Overcooked-AI 1.1.0 (collabbench-facts.md); that package needs an
empty-handed interact to start a pot, which ``--cooking interact`` reproduces.
"""

from __future__ import annotations

import argparse
from statistics import mean

from collabrl.config import load_recipe
from collabrl.envs.kitchen.expert import REFERENCE_SCORES, KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES
from collabrl.envs.kitchen.motion import MOTIONS
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.episode import play_experts

RECIPE = "kitchen_experts"


def scores(layout: str, motion: str, cooking: str, horizon: int, seeds: int) -> list[int]:
    """Final scores of expert-pair episodes for seeds 0 .. seeds-1."""
    return [
        play_experts(
            KitchenGame(layout, horizon=horizon, cook_mode=cooking, motion=motion),
            KitchenExpert,
            seed=seed,
        )["score"]
        for seed in range(seeds)
    ]


def cell(values: list[int]) -> str:
    """Mean with the range, e.g. ``"62 (0-240)"``."""
    return f"{mean(values):.0f} ({min(values)}-{max(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--cooking", choices=("auto", "interact"), default=None)
    args = parser.parse_args()
    section = load_recipe(RECIPE).game
    assert isinstance(section, KitchenSection), f"the {RECIPE} recipe plays the kitchen"
    cooking = args.cooking or section.cooking
    horizon = KitchenSection.eval_options["horizon"]
    print(
        f"expert pairs, {horizon} ticks, cooking={cooking}, seeds 0-{args.seeds - 1}: mean (range)"
    )
    columns = [f"motion={m}" for m in MOTIONS]
    print(f"{'layout':24s} {'ref score':>9s} " + " ".join(f"{c:>20s}" for c in columns))
    for layout in LAYOUT_NAMES:
        row = [cell(scores(layout, m, cooking, horizon, args.seeds)) for m in MOTIONS]
        print(f"{layout:24s} {REFERENCE_SCORES[layout]:9d} " + " ".join(f"{c:>20s}" for c in row))


if __name__ == "__main__":
    main()
