"""The Std. column as CollabBench computes it: per task, then Overall, by the game's declared rule.

The paper's tables use two definitions, each reproduced from its own printed rows by
``tests/eval/test_std.py``:

- a task's Std. is the spread of its efficiency across partner profiles (each profile's mean over
  seeds first), with the degrees of freedom the game declares (``task_std_ddof``): population
  (0) for CWAH's Table 6 rows, sample (1) for Cook's Table 7 rows;
- the Overall Std. either pools every (task, profile) mean into one std with the same degrees of
  freedom (``pooled``: CWAH's Table 1, 22.26 and 25.01 from Table 6's Oracle rows) or is the mean of the per-task stds
  (``task_mean``: Cook's Table 1, 53.02 for Oracle Agent 1 from Table 7's five layouts);
- the non-LLM baselines' "Total" Std. (Tables 4-5) is the mean of the per-task stds in both games
  (MHP 8.44 and 11.34 from Table 4's ten tasks).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from collabrl.envs.registry import OverallStd


def task_std(profile_means: Sequence[float], ddof: int) -> float | None:
    """The std of one task's profile means with ``ddof`` degrees of freedom; None when there are
    no more than ``ddof`` of them (a sample std of one profile is undefined)."""
    if len(profile_means) <= ddof:
        return None
    return statistics.stdev(profile_means) if ddof else statistics.pstdev(profile_means)


def mean_of_task_stds(task_stds: Sequence[float | None]) -> float | None:
    """The mean of the per-task stds that are defined (Cook's Overall, Tables 4-5's Total)."""
    defined = [s for s in task_stds if s is not None]
    return sum(defined) / len(defined) if defined else None


def efficiency_std(
    profile_means: dict[str, list[float]], ddof: int, rule: OverallStd
) -> float | None:
    """The Std. of the episodes behind ``profile_means`` (task -> its profiles' mean efficiency):
    one task's :func:`task_std`, or over several the Overall by ``rule`` (``pooled``: the std of
    every (task, profile) mean; ``task_mean``: the mean of the per-task stds). One task gives the
    same value under either rule."""
    if rule == "task_mean":
        return mean_of_task_stds([task_std(means, ddof) for means in profile_means.values()])
    return task_std([m for means in profile_means.values() for m in means], ddof)
