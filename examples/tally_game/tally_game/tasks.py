"""Tally tasks: the two seats' secret numbers, written into the name ("s3-5": secrets 3 and 5)."""

from __future__ import annotations

from dataclasses import dataclass

TRAIN_TASKS = ("s1-2", "s2-3", "s3-1", "s4-2", "s2-5", "s5-4", "s1-1", "s3-3")
TEST_TASKS = ("s3-5", "s6-2", "s4-4")
DEFAULT_TASK = TRAIN_TASKS[0]


@dataclass(frozen=True)
class TallyTask:
    name: str
    secrets: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.secrets)


def get_task(name: str) -> TallyTask:
    """The task called ``name``; KeyError naming the known tasks when there is none."""
    if name not in TRAIN_TASKS + TEST_TASKS:
        known = ", ".join(TRAIN_TASKS + TEST_TASKS)
        raise KeyError(f"unknown tally task {name!r}; choose from {known}")
    return TallyTask(name, tuple(int(n) for n in name[1:].split("-")))
