"""Household game (CWAH-MultiPlayer): a pure-Python engine, its task set and a rule-based expert."""

from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.household.tasks import TEST_TASK_NAMES, Predicate, Task, get_task, load_tasks

__all__ = [
    "TEST_TASK_NAMES",
    "HouseholdExpert",
    "HouseholdGame",
    "Predicate",
    "Task",
    "get_task",
    "load_tasks",
]
