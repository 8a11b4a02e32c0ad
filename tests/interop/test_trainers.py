"""The entry points prime-rl and SkyRL call reach collabrl's environments: prime-rl's
configuration narrowing, taskset and env loading (verifiers' own functions, which prime-rl's
orchestrator and env server call), and SkyRL-Gym's ``make`` / ``init`` / ``step``; each plays an
episode whose reward is collabrl's own."""

from __future__ import annotations

import asyncio

import pytest

from collabrl.config import load_recipe
from collabrl.interop.session import CollabSession, episode_specs
from tests.interop.conftest import ExpertReplies, collabrl_reward

OVERRIDES = ["game.max_decisions=6"]


@pytest.mark.slow
def test_prime_rl_loads_the_taskset_and_env_from_its_config():
    pytest.importorskip("verifiers", reason="pip install 'collabrl[verifiers]'")
    import verifiers.v1 as vf
    from verifiers.v1.serve.pool import env_config_data
    from verifiers.v1.utils.loaders import load_environment, resolve_env_config

    from collabrl.interop.verifiers_env import CollabEnv, CollabEnvConfig
    from tests.interop.vf_players import Agents, ExpertPlayer

    # prime-rl's [orchestrator.train.source.env] table, as its config validator narrows it
    taskset = {"id": "collabrl-verifiers", "recipe": "cook_gigpo_cpu", "partner": "expert"}
    taskset |= {"overrides": ["rollout.tasks=[cramped_room]"], "episodes": 2}
    env_config = vf.resolve_env_field({"env": {"taskset": taskset}})["env"]
    assert isinstance(env_config, CollabEnvConfig)
    # the orchestrator loads the tasks; the env server rebuilds the config from the wire
    tasks = list(vf.load_taskset(env_config.taskset))
    served = resolve_env_config(env_config_data(env_config))
    env = load_environment(served)
    assert isinstance(env, CollabEnv) and len(tasks) == 2

    recipe = served.taskset.collab_recipe()
    spec = episode_specs(recipe, 1)[0]
    player = ExpertPlayer(recipe, spec)
    asyncio.run(env.run(tasks[0], Agents(player)))
    own, _ = collabrl_reward(recipe, spec, player.reply.replies)
    assert player.trace.reward == pytest.approx(own)


def _skyrl():
    skyrl_gym = pytest.importorskip("skyrl_gym", reason="pip install 'collabrl[skyrl]'")
    from collabrl.interop import skyrl_env

    skyrl_env.register_env()
    return skyrl_gym, skyrl_env


@pytest.mark.slow
def test_skyrl_plays_a_row_with_collabrls_reward():
    skyrl_gym, skyrl_env = _skyrl()
    env_config = {"recipe": "cwah_gigpo_cpu", "overrides": OVERRIDES, "partner": "persona"}
    recipe = skyrl_env.recipe_of(env_config)
    row = skyrl_env.dataset_rows(recipe, 1)[0]
    spec = episode_specs(recipe, 1)[0]
    assert row["episode"] == spec.to_dict() and row["env_class"] == skyrl_env.ENV_ID

    extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
    env = skyrl_gym.make(row["env_class"], env_config=env_config, extras=extras)
    chat, _ = env.init(row["prompt"])
    assert chat == row["prompt"]
    local = CollabSession(recipe)  # the expert reads the structured observation: a local copy
    local.reset(spec)
    reply = ExpertReplies(recipe, local.slot.policy_seat)
    rewards, out = [], {"done": False}
    while not out["done"]:
        text = reply(local.slot.running.pending[local.slot.policy_seat])
        local.act(text)
        out = env.step(text)
        rewards.append(out["reward"])
    env.close()
    own, summary = collabrl_reward(recipe, spec, reply.replies)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == pytest.approx(own)
    assert out["metadata"]["summary"] == summary


@pytest.mark.slow
def test_skyrl_turn_budget_plays_the_rest_out():
    skyrl_gym, skyrl_env = _skyrl()
    recipe = load_recipe("cwah_gigpo_cpu", OVERRIDES)
    row = skyrl_env.dataset_rows(recipe, 1)[0]
    env = skyrl_gym.make(
        skyrl_env.ENV_ID,
        env_config={"overrides": OVERRIDES},
        extras={"episode": row["episode"], "max_turns": 1},
    )
    env.init(row["prompt"])
    out = env.step("no tags at all")
    own, _ = collabrl_reward(recipe, episode_specs(recipe, 1)[0], ["no tags at all"])
    assert out["done"] and out["reward"] == pytest.approx(own)


def test_a_skyrl_row_without_its_episode_is_a_one_line_error():
    skyrl_gym, skyrl_env = _skyrl()
    from collabrl.errors import CollabrlError

    with pytest.raises(CollabrlError, match="needs an 'episode' column") as err:
        skyrl_gym.make(skyrl_env.ENV_ID, env_config={}, extras={"max_turns": 3})
    assert "\n" not in str(err.value)
