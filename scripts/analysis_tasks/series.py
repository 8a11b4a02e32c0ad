"""Shapes of a time series (excursions, plateaus, gaps, smoothing, first crossings) drawn so
that the family's answer is unambiguous.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from analysis_tasks.draft import Redraw
from analysis_tasks.pieces import draw
from analysis_tasks.vocabulary import Scale


def runs_of(states: Sequence[bool]) -> list[int]:
    """Start indices of the runs of True."""
    return [i for i, s in enumerate(states) if s and (i == 0 or not states[i - 1])]


def two_excursions(rng: random.Random) -> list[bool]:
    """Slice states: a brief first excursion (1-2 slices), then a long second one (4-7)."""
    parts = [
        (False, rng.randint(2, 5)),
        (True, rng.randint(1, 2)),
        (False, rng.randint(2, 4)),
        (True, rng.randint(4, 7)),
        (False, rng.randint(2, 5)),
    ]
    return [state for state, length in parts for _ in range(length)]


def one_excursion(rng: random.Random) -> list[bool]:
    """Slice states with one excursion of 3-6 slices."""
    pre, length, post = rng.randint(3, 6), rng.randint(3, 6), rng.randint(3, 6)
    return [False] * pre + [True] * length + [False] * post


def excursion_values(rng: random.Random, scale: Scale, states: list[bool], rise: bool) -> list:
    """Values beyond the levels where a state is True (above for a rise, below for a fall)."""
    above, below = scale.high, (scale.low[0], scale.mid[1])
    return [draw(rng, above if s == rise else below, scale.decimals) for s in states]


def jumpy_baseline(rng: random.Random, scale: Scale, n: int) -> list[float]:
    """Ordinary values alternating between the low and mid bands, so that no two neighbours
    hold steady: the only long level stretch of a series is the one a task puts there."""
    start = rng.randint(0, 1)
    return [
        draw(rng, scale.low if (i + start) % 2 else scale.mid, scale.decimals) for i in range(n)
    ]


def level_run(values: Sequence[float], tolerance: float) -> tuple[int, int]:
    """(start, length) of the longest run staying within ``tolerance`` of its first value,
    the earlier of equal runs."""
    best = (0, 0)
    for i, first in enumerate(values):
        j = i
        while j < len(values) and abs(values[j] - first) <= tolerance:
            j += 1
        if j - i > best[1]:
            best = (i, j - i)
    return best


def robust_plateau(values: Sequence[float], tolerance: float) -> int:
    """Start of the longest level run, which must be the same at 80% and 120% of the tolerance
    and strictly longer than any run outside it: every reading of "within" finds it."""
    start, length = level_run(values, tolerance)
    for factor in (0.8, 1.2):
        if level_run(values, tolerance * factor) != (start, length):
            raise Redraw
    outside = [values[:start], values[start + length :]]
    if any(part and level_run(part, tolerance * 1.2)[1] >= length for part in outside):
        raise Redraw
    return start


def plateau_series(rng: random.Random, scale: Scale, n: int) -> tuple[list[float], range, int]:
    """A jumpy series with one long level stretch of high values and, elsewhere, one higher
    single spike: (values, the stretch's indices, the spike's index)."""
    values = jumpy_baseline(rng, scale, n)
    length = rng.randint(4, 7)
    start = rng.randint(1, n - length - 1)
    level = rng.uniform(*scale.high)
    jitter = scale.tolerance * 0.3
    for i in range(start, start + length):
        values[i] = draw(rng, (level - jitter, level + jitter), scale.decimals)
    spike = rng.choice([i for i in range(n) if i < start - 1 or i > start + length])
    values[spike] = draw(rng, scale.spike, scale.decimals)
    if robust_plateau(values, scale.tolerance) != start:
        raise Redraw
    return values, range(start, start + length), spike


def interpolated(values: Sequence[float | None], decimals: int) -> list[float]:
    """Gaps (None) filled linearly from their neighbours, as the data cards' ``_inter`` columns."""
    filled: list[float] = []
    for i, v in enumerate(values):
        if v is None:
            left = max(j for j in range(i) if values[j] is not None)
            right = min(j for j in range(i + 1, len(values)) if values[j] is not None)
            a, b = values[left], values[right]
            assert a is not None and b is not None
            v = round(a + (i - left) / (right - left) * (b - a), decimals)
        filled.append(v)
    return filled


def trailing_mean(values: Sequence[float], window: int, decimals: int) -> list[float]:
    """Mean of each value and the ``window - 1`` before it (fewer at the start)."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(round(sum(part) / len(part), decimals))
    return out


def with_gaps(rng: random.Random, values: list[float], allowed: Sequence[int]) -> list:
    """The raw series with two slices not sampled, chosen among ``allowed`` (never neighbours,
    never the ends, so the interpolated column is defined everywhere)."""
    pairs = [
        (a, b)
        for a, b in itertools.combinations([i for i in allowed if 0 < i < len(values) - 1], 2)
        if b - a > 1
    ]
    if not pairs:
        raise Redraw
    gaps = rng.choice(pairs)
    return [None if i in gaps else v for i, v in enumerate(values)]


def first_crossing(values: Sequence[float], level: float, margin: float) -> int:
    """Index of the first value above ``level``; every value must keep ``margin`` from it."""
    if any(abs(v - level) < margin for v in values):
        raise Redraw
    above = [i for i, v in enumerate(values) if v > level]
    if not above:
        raise Redraw
    return above[0]
