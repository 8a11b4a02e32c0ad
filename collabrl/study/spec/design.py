"""Counterbalancing: which conditions a session plays, in which order, on which task.

The unit of assignment is a *session group* (one participant in a one-person study; the matched
participants of a group study), numbered 0, 1, 2, ... as groups form. Group ``u`` gets the
condition order ``orders[u mod R]`` and the task ``tasks[(u mod T + u div L) mod T]`` with
``L = lcm(R, T)``: every block of ``L`` consecutive groups holds each order ``L/R`` times and
each task ``L/T`` times, and the shifted task index crosses orders with tasks (after ``L*T``
groups every order has met every task equally often). With R = T = 3 (the paper's three
variants and tasks 0/20/40), every three participants hold the three orders and the three tasks.

``shuffle`` permutes the assignments inside each block of ``L`` with a seeded generator: still
balanced per block, no longer predictable from arrival order (between-subject studies want it).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from collabrl.study.spec.factors import cells
from collabrl.study.spec.schema import Design


def latin_square(n: int) -> list[list[int]]:
    """The cyclic Latin square: row r is r, r+1, ..., r+n-1 (mod n); each condition appears
    once in every row and once in every position."""
    return [[(r + j) % n for j in range(n)] for r in range(n)]


def williams(n: int) -> list[list[int]]:
    """A Williams design: a Latin square in which every condition follows every other equally
    often (first-order carry-over balanced). Even n: n rows; odd n: 2n rows (the square and its
    mirror), since no single square balances carry-over for odd n."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(c + r) % n for c in first] for r in range(n)]
    return rows if n % 2 == 0 else rows + [row[::-1] for row in rows]


def condition_orders(design: Design, conditions: list[str]) -> list[list[str]]:
    """The orders groups cycle through: Latin-square rows (within) or one condition each
    (between)."""
    if design.factors:
        return factor_orders(design)
    n = len(conditions)
    if design.kind == "between":
        return [[c] for c in conditions]
    rows = williams(n) if design.counterbalance == "williams" else latin_square(n)
    return [[conditions[i] for i in row] for row in rows]


def factor_orders(design: Design) -> list[list[str]]:
    """A multi-factor design's orders: per between-subject cell
    (:func:`collabrl.study.spec.factors.cells`), the counterbalanced orders of its within-subject
    conditions; cells in turn, so every block holds every cell x order once."""
    square = williams if design.counterbalance == "williams" else latin_square
    return [[cell[i] for i in row] for cell in cells(design.factors) for row in square(len(cell))]


def block_size(orders: int, tasks: int) -> int:
    """Groups per balanced block: lcm(orders, tasks)."""
    return math.lcm(orders, tasks)


@dataclass(frozen=True)
class Assignment:
    """What one session group plays."""

    unit: int
    order: list[str]
    task: str


class Assigner:
    """Assignments for groups 0, 1, 2, ...: deterministic given the study seed."""

    def __init__(self, design: Design, conditions: list[str], tasks: list[str], seed: int):
        self.orders = condition_orders(design, conditions) or [[]]  # no conditions: one order
        self.tasks = list(tasks)
        self.block = block_size(len(self.orders), len(self.tasks))
        self.shuffle, self.seed = design.shuffle, seed

    def _slot(self, unit: int) -> int:
        """Where group ``unit`` sits in the crossing sequence (permuted within its block)."""
        block, offset = divmod(unit, self.block)
        if not self.shuffle:
            return unit
        slots = list(range(self.block))
        random.Random(f"{self.seed}:{block}").shuffle(slots)
        return block * self.block + slots[offset]

    def __call__(self, unit: int) -> Assignment:
        slot = self._slot(unit)
        r, t = len(self.orders), len(self.tasks)
        task = self.tasks[(slot % t + slot // self.block) % t]
        return Assignment(unit, list(self.orders[slot % r]), task)
