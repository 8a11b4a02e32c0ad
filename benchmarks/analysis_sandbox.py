"""Analysis game steps: the analysis language's microseconds per step (goal: at most 300 on
average, so that the game reaches 2,000 decisions/s with scripted seats) and the pandas
sandbox's start-up cost per cell (no goal: it is an opt-in for LLM seats, whose own latency is
seconds).

The language is timed over a mix of every operation on tables of 12, 40 and 60 rows (a task's
sizes), the mean of the best of several repeats, one core; the sandbox over ``--cells`` runs of
a trivial cell (``1 + 1``), wall time from the call to the result: a fresh interpreter,
importing pandas, loading the tables, the limits and guards. Usage:
``python benchmarks/analysis_sandbox.py [--rounds 200] [--cells 10]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import pandas as pd

from collabrl.envs.analysis.language import Workspace
from collabrl.envs.analysis.sandbox import run_code

GOAL_US = 300.0  # language: mean microseconds per step, at most
MIX = (
    "show(samples)",
    "select(samples, site, count)",
    'r1 = filter(samples, site != "C")',
    "r2 = sort(r1, year_bce, desc)",
    "group(samples, site, count, mean)",
    "bin(samples, year_bce, 500)",
    "diff(r2, count)",
    "rolling(samples, pollen, 3, mean)",
    "extrema(samples, pollen, period, max)",
    "event(samples, count, >, 6, period, 2)",
    "plateau(samples, pollen, period, 0.5)",
    "corr(samples, count, pollen)",
    "count(r1)",
)


def samples(rows: int) -> pd.DataFrame:
    """A deterministic task-like table: periods, sites, counts, years BCE, a measure."""
    return pd.DataFrame(
        {
            "period": range(1, rows + 1),
            "site": [("A", "B", "C", "A", "B")[i % 5] for i in range(rows)],
            "count": [(i * 7) % 11 for i in range(rows)],
            "year_bce": [4000 - 37 * i for i in range(rows)],
            "pollen": [round(2 + ((i * 13) % 17) / 4, 2) for i in range(rows)],
        }
    )


def language_us(rows: int, rounds: int, repeats: int = 3) -> tuple[float, float, dict[str, float]]:
    """Mean microseconds per step over the mix, each step's own mean, and what reading a table
    result's DataFrame adds (a sort's, read once per outcome)."""
    ws = Workspace({"samples": samples(rows)})
    for step in MIX:
        assert ws.run(step).error is None, step
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(rounds):
            for step in MIX:
                ws.run(step)
        best = min(best, (time.perf_counter() - start) / (rounds * len(MIX)))
    each = {}
    for step in MIX:
        start = time.perf_counter()
        for _ in range(rounds):
            ws.run(step)
        each[step] = (time.perf_counter() - start) / rounds * 1e6
    start = time.perf_counter()
    for _ in range(rounds):
        _ = ws.run(MIX[3]).table
    table = (time.perf_counter() - start) / rounds * 1e6 - each[MIX[3]]
    return best * 1e6, table, each


def sandbox_seconds(cells: int) -> list[float]:
    """Wall seconds of ``cells`` trivial cells on a 40-row table."""
    tables = {"samples": samples(40)}
    times = []
    for _ in range(cells):
        result = run_code("1 + 1", tables)
        assert result.error is None and result.text == "2", result
        times.append(result.seconds)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="passes over the mix per repeat")
    parser.add_argument("--cells", type=int, default=10, help="sandbox cells to time")
    args = parser.parse_args()
    print(f"{'measure':<44}{'value':>10}{'goal':>8}{'ratio':>7}")
    per_op: dict[str, float] = {}
    for rows in (12, 40, 60):
        mean, table, per_op = language_us(rows, args.rounds)
        print(
            f"{f'language, {rows} rows (us/step)':<44}{mean:>10.1f}{GOAL_US:>8.0f}{mean / GOAL_US:>7.2f}"
        )
        print(f"{f'  + first read of .table, {rows} rows (us)':<44}{table:>10.1f}")
    times = sorted(sandbox_seconds(args.cells))
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1]
    print(f"{'sandbox start-up per cell, median (s)':<44}{statistics.median(times):>10.3f}")
    print(f"{'sandbox start-up per cell, p95 (s)':<44}{p95:>10.3f}")
    print("\nper step, 60 rows (us):")
    for step, us in per_op.items():
        print(f"  {us:8.1f}  {step}")


if __name__ == "__main__":
    main()
