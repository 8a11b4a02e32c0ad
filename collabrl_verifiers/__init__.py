"""collabrl's verifiers (v1) taskset and env under a top-level name, the form verifiers loads a
taskset id by (``vf-eval collabrl-verifiers ...``); they live in
:mod:`collabrl.interop.verifiers_env`."""

from collabrl.interop.verifiers_env import CollabEnv, CollabTaskset

__all__ = ["CollabEnv", "CollabTaskset"]
