"""The verifiers (v1) export: verifiers' own loaders find the taskset and its env, the tasks are
the episodes collabrl's trainer draws, and an episode played through the env's ``run`` records
collabrl's own reward on the trace."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("verifiers", reason="pip install 'collabrl[verifiers]'")


from collabrl.config import load_recipe  # noqa: E402
from collabrl.interop.session import EpisodeSpec, episode_specs  # noqa: E402
from tests.interop.conftest import RECIPE, collabrl_reward  # noqa: E402

MODULE = "collabrl-verifiers"  # the top-level name verifiers loads (collabrl_verifiers)
OVERRIDES = ["game.max_decisions=6"]


def _config(episodes: int = 2):
    from collabrl.interop.verifiers_env import CollabEnvConfig, CollabTasksetConfig

    taskset = CollabTasksetConfig(id=MODULE, recipe=RECIPE, overrides=OVERRIDES, episodes=episodes)
    return CollabEnvConfig(taskset=taskset)


@pytest.mark.slow
def test_verifiers_loads_the_taskset_and_plays_an_episode_with_collabrls_reward():
    from verifiers.v1.utils.loaders import environment_class, load_taskset

    from collabrl.interop.verifiers_env import CollabEnv, CollabTaskset
    from tests.interop.vf_players import Agents, ExpertPlayer

    assert environment_class(MODULE) is CollabEnv
    config = _config()
    taskset = load_taskset(config.taskset)
    assert isinstance(taskset, CollabTaskset)
    tasks = list(taskset)
    recipe = load_recipe(RECIPE, OVERRIDES)
    specs = episode_specs(recipe, 2)
    assert [EpisodeSpec(**t.data.info) for t in tasks] == specs
    assert tasks[0].data.system_prompt and tasks[0].data.prompt

    env = CollabEnv(config)
    player = ExpertPlayer(recipe, specs[0])
    asyncio.run(env.run(tasks[0], Agents(player)))
    own, summary = collabrl_reward(recipe, specs[0], player.reply.replies)
    rewards = player.trace.rewards
    assert set(rewards) == {
        f"collabrl_{n}" for n in ("efficiency", "format", "communication", "judge", "progress")
    }
    assert player.trace.reward == pytest.approx(own)
    assert player.trace.info["summary"] == summary
    assert player.turns[0] is None  # the task's prompt is the first observation
