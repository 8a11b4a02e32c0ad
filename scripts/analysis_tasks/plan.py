"""How many tasks of each family and variant the test and train splits hold."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from analysis_tasks.bce import bce_order
from analysis_tasks.bins import unit_or_bin
from analysis_tasks.combos import combo
from analysis_tasks.draft import Draft
from analysis_tasks.filters import required_filter
from analysis_tasks.plain import plain
from analysis_tasks.rises_and_peaks import first_vs_second, peak_vs_plateau
from analysis_tasks.smoothing import smoothed_column
from collabrl.envs.registry import Split


@dataclass(frozen=True)
class Family:
    builder: Callable[[random.Random, str], Draft]
    variants: tuple[str, ...]  # taken in turn
    test: int  # tasks in the test split
    train: int

    def count(self, split: Split) -> int:
        return self.test if split == "test" else self.train


PLAN = {
    "first_vs_second": Family(first_vs_second, ("rise", "decline"), 5, 6),
    "peak_vs_plateau": Family(peak_vs_plateau, ("periods", "slices"), 5, 6),
    "bce_order": Family(bce_order, ("earliest", "event", "latest"), 5, 6),
    "smoothed_column": Family(smoothed_column, ("peak", "event"), 5, 6),
    "required_filter": Family(required_filter, ("site", "context", "small", "corr"), 5, 6),
    "unit_or_bin": Family(unit_or_bin, ("bins", "per100"), 5, 6),
    "combo": Family(combo, ("bce_first", "bce_smoothed", "filter_bin", "filter_plateau"), 4, 6),
    "plain": Family(plain, ("peak", "corr", "count", "group", "event"), 4, 6),
}
