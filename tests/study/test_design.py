"""Counterbalancing: Latin squares, Williams designs, and balanced order x task assignment."""

from __future__ import annotations

from collections import Counter

import pytest

from collabrl.study.spec.design import Assigner, latin_square, williams
from collabrl.study.spec.schema import Design


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_each_condition_once_per_position(n: int) -> None:
    for rows in (latin_square(n), williams(n)):
        for position in range(n):
            column = Counter(row[position] for row in rows)
            assert set(column) == set(range(n)) and len(set(column.values())) == 1
        assert all(sorted(row) == list(range(n)) for row in rows)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_williams_balances_which_condition_follows_which(n: int) -> None:
    rows = williams(n)
    pairs = Counter((row[i], row[i + 1]) for row in rows for i in range(n - 1))
    assert len(pairs) == n * (n - 1) and len(set(pairs.values())) == 1
    assert len(rows) == (n if n % 2 == 0 else 2 * n)


@pytest.mark.parametrize(
    ("conditions", "tasks", "design"),
    [
        (3, 3, Design()),
        (3, 3, Design(counterbalance="williams")),
        (2, 3, Design(shuffle=True)),
        (4, 6, Design(shuffle=True)),
        (3, 1, Design(kind="between", shuffle=True)),
    ],
)
def test_every_block_balances_orders_and_tasks(conditions, tasks, design) -> None:
    ids = [f"c{i}" for i in range(conditions)]
    assigner = Assigner(design, ids, [f"t{i}" for i in range(tasks)], seed=7)
    block = assigner.block
    units = [assigner(u) for u in range(block * tasks)]
    for start in range(0, len(units), block):
        chunk = units[start : start + block]
        assert len(set(Counter(tuple(a.order) for a in chunk).values())) == 1
        assert len(set(Counter(a.task for a in chunk).values())) == 1
        assert len({tuple(a.order) for a in chunk}) == len(assigner.orders)
    crossed = Counter((tuple(a.order), a.task) for a in units)
    assert len(crossed) == len(assigner.orders) * tasks and len(set(crossed.values())) == 1
    assert [assigner(u) for u in range(block)] == units[:block]  # deterministic


def test_the_paper_design_gives_three_participants_three_orders_and_tasks() -> None:
    assigner = Assigner(Design(), ["base", "no_affective", "full"], ["t0", "t20", "t40"], 0)
    first = [assigner(u) for u in range(3)]
    assert [a.order for a in first] == [
        ["base", "no_affective", "full"],
        ["no_affective", "full", "base"],
        ["full", "base", "no_affective"],
    ]
    assert sorted(a.task for a in first) == ["t0", "t20", "t40"]
    fifteen = Counter(assigner(u).task for u in range(15))
    assert set(fifteen.values()) == {5}
