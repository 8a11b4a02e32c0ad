"""The OpenEnv server plays and scores an episode as collabrl's own rollout does."""

from __future__ import annotations

import pytest

pytest.importorskip("openenv", reason="pip install 'collabrl[openenv]'")

from collabrl.config import load_recipe  # noqa: E402
from collabrl.interop.session import CollabSession, EpisodeSpec, episode_specs  # noqa: E402
from collabrl.web.server import background  # noqa: E402
from tests.interop.conftest import RECIPE, ExpertReplies, collabrl_reward  # noqa: E402


def _pending(spec: EpisodeSpec, recipe, replies: list[str]):
    """The trained seat's observation now, by replaying ``replies`` on a local copy of the game
    (the expert needs the structured observation; the server sends text)."""
    local = CollabSession(recipe)
    local.reset(spec)
    for reply in replies:
        local.act(reply)
    return local.slot.running.pending[local.slot.policy_seat]


@pytest.mark.slow
def test_server_episode_reward_equals_collabrls_own():
    from collabrl.interop.openenv_server import CollabAction, CollabClient, make_app

    recipe = load_recipe(RECIPE, ["game.max_decisions=8"])
    spec = episode_specs(recipe, 1)[0]
    with background(make_app(recipe)) as url, CollabClient(base_url=url).sync() as client:
        result = client.reset(task=spec.task, profile=spec.profile, seed=spec.seed)
        first = _pending(spec, recipe, [])
        assert first.text in result.observation.prompt
        assert result.observation.rules and not result.done
        reply = ExpertReplies(recipe, recipe.game.seats[0])
        rewards = []
        while not result.done:
            result = client.step(CollabAction(reply=reply(_pending(spec, recipe, reply.replies))))
            rewards.append(result.reward)
        state = client.state()
    own, summary = collabrl_reward(recipe, spec, reply.replies)
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == pytest.approx(own)
    assert result.observation.summary == summary
    assert sum(result.observation.reward_parts.values()) == pytest.approx(own)
    assert (state.task, state.seed, state.step_count) == (spec.task, spec.seed, len(rewards))


@pytest.mark.slow  # importing the OpenEnv server (FastAPI, Gradio) costs 3 s
def test_reset_without_a_task_plays_the_trainers_draw():
    from collabrl.interop.openenv_server import CollabEnvironment

    recipe = load_recipe(RECIPE)
    env = CollabEnvironment(recipe)
    env.reset(seed=2)
    spec = episode_specs(recipe, 3)[2]
    assert (env.state.task, env.state.profile, env.state.seed) == (
        spec.task,
        spec.profile,
        spec.seed,
    )
    assert env.session.slot.game.name == recipe.game.name
