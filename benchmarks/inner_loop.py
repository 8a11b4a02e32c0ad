"""CPU seconds of the inner test loop (``python -m pytest``, the not-slow tests), and its heaviest
tests: the figures by which a test gets ``@pytest.mark.slow``.

Why CPU and not wall time: the goal (under 60 seconds of wall time on a quiet 2-core machine)
is usually checked on a busy one, where wall time measures the other jobs. CPU time does not:
each test is charged what this process and the subprocesses it waited for spent in it, so the
ranking holds under any load. The run is serial (``-n 0``); pytest-xdist's workers each collect
every test module, so two workers take about ``collection + tests / 2`` of wall time, plus their
start-up.

    python benchmarks/inner_loop.py [--top 40] [pytest arguments, e.g. tests/envs]
"""

from __future__ import annotations

import argparse
import resource
from collections.abc import Generator
from dataclasses import dataclass, field

import pytest

GOAL_WALL_S = 60.0
"""The inner loop's goal on a quiet 2-core machine (issue 45)."""


def cpu_seconds() -> float:
    """User + system seconds of this process and of the subprocesses it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@dataclass
class CpuRecorder:
    """A pytest plugin: the CPU seconds up to the end of collection (the interpreter's start-up
    and the imports of every test module), and of each test (setup to teardown)."""

    collection: float = 0.0
    selected: int = 0
    per_test: dict[str, float] = field(default_factory=dict)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collection = cpu_seconds()
        self.selected = len(session.items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, None]:
        start = cpu_seconds()
        yield
        self.per_test[item.nodeid] = cpu_seconds() - start


def main() -> int:
    parser = argparse.ArgumentParser(description="CPU seconds of the inner test loop.")
    parser.add_argument("--top", type=int, default=40, help="how many of the heaviest to list")
    args, pytest_args = parser.parse_known_args()
    recorder = CpuRecorder()
    code = pytest.main(["-n", "0", "-p", "no:cacheprovider", *pytest_args], plugins=[recorder])
    tests = sum(recorder.per_test.values())
    print(f"\n{recorder.selected} tests selected; CPU seconds (user + sys, with subprocesses):")
    print(f"  start-up and collection {recorder.collection:.1f}, tests {tests:.1f}")
    two_workers = 2 * recorder.collection + tests
    wall = recorder.collection + tests / 2
    print(
        f"  two xdist workers: about {two_workers:.0f} s of CPU, {wall:.0f} s of wall time on a "
        f"quiet 2-core machine (goal {GOAL_WALL_S:.0f} s) plus their start-up"
    )
    print(f"\nthe {args.top} heaviest tests (CPU seconds):")
    heaviest = sorted(recorder.per_test.items(), key=lambda kv: kv[1], reverse=True)
    for nodeid, seconds in heaviest[: args.top]:
        print(f"  {seconds:6.2f}  {nodeid}")
    return int(code)


if __name__ == "__main__":
    raise SystemExit(main())
