"""The exports on every built-in game and partner kind: an episode of the household, kitchen and
analysis games played through the OpenEnv environment and through the verifiers env scores what
collabrl's own rollout scores for the same replies; :func:`with_partner` seats each partner kind
the game has (the kitchen's motion partners from the tiny population and proxy the kitchen tests
train; the LLM partner answered by the fake OpenAI-compatible server)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from collabrl.config import load_recipe
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.envs.kitchen.population import train_selfplay
from collabrl.envs.kitchen.ppo import PPOSettings
from collabrl.errors import CollabrlError
from collabrl.interop.partners import with_partner
from collabrl.interop.session import CollabSession, episode_specs
from collabrl.testing.fake_openai import FakeOpenAIServer
from tests.interop.conftest import LLM_PARTNER, ExpertReplies, collabrl_reward

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"
TINY = PPOSettings(updates=1, envs=1, horizon=20, hidden=8, minibatch=64, epochs=1)
KITCHEN = ["rollout.tasks=[cramped_room]"]  # the layout the tiny population and proxy know

CASES = [
    ("cwah_gigpo_cpu", "persona", ["game.max_decisions=6"]),
    ("cwah_gigpo_cpu", "expert", ["game.max_decisions=6"]),
    ("cwah_gigpo_cpu", "llm", ["game.max_decisions=6", LLM_PARTNER]),
    ("cook_gigpo_cpu", "persona", KITCHEN),
    ("cook_gigpo_cpu", "expert", KITCHEN),
    ("cook_gigpo_cpu", "population", KITCHEN),
    ("cook_gigpo_cpu", "human_proxy", KITCHEN),
    ("cook_gigpo_cpu", "llm", [*KITCHEN, LLM_PARTNER]),
    ("analysis_gigpo_cpu", "expert", []),
    ("analysis_gigpo_cpu", "persona", []),
    ("analysis_gigpo_cpu", "llm", [LLM_PARTNER]),
]
"""(recipe, partner kind, overrides): every partner kind each built-in game fields."""


@pytest.fixture
def partner_server(request, kind: str) -> FakeOpenAIServer | None:
    """The fake OpenAI-compatible server, started for the LLM partner's cases only."""
    return request.getfixturevalue("fake_partner_server") if kind == "llm" else None


def _asked(server: FakeOpenAIServer | None) -> bool:
    """Whether an LLM partner's server, if any, was asked (the partner played)."""
    return server is None or server.requests > 0


@pytest.fixture(scope="module")
def motion_partners(tmp_path_factory) -> list[str]:
    """Overrides pointing at a tiny self-play population and human proxy of cramped_room."""
    root = tmp_path_factory.mktemp("partners")
    train_selfplay("cramped_room", seed=0, settings=TINY, folder=root / "pop")
    trials = [
        t for t in trials_of(read_frame("test", FIXTURE), "test") if t.layout == "cramped_room"
    ]
    save_proxy(train_proxy("cramped_room", trials, epochs=5, hidden=8), root / "proxies")
    return [f"partner.population={root / 'pop'}", f"partner.proxies={root / 'proxies'}"]


def _recipe(name: str, kind: str, overrides: list[str], motion_partners: list[str]):
    extra = motion_partners if name.startswith("cook") else []
    return with_partner(load_recipe(name, [*overrides, *extra]), kind)


def test_motion_partners_fill_the_partner_seats_as_motion_seats():
    recipe = with_partner(load_recipe("cook_gigpo_cpu", KITCHEN), "population")
    assert recipe.partner.kind == "population"
    assert recipe.game.model_dump()["motion_seats"] == ["Player 1"]
    persona = with_partner(recipe, "persona")
    assert persona.partner.population == recipe.partner.population


def test_a_kind_no_export_or_game_seats_is_a_one_line_error():
    recipe = load_recipe("cwah_gigpo_cpu")
    with pytest.raises(CollabrlError, match=r"partner kind 'self': an export seats one of"):
        with_partner(recipe, "self")
    with pytest.raises(CollabrlError, match="no human proxies") as err:
        with_partner(recipe, "human_proxy")
    assert "\n" not in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "kind", "overrides"), CASES)
def test_openenv_episode_reward_equals_collabrls_own(
    name, kind, overrides, motion_partners, partner_server
):
    pytest.importorskip("openenv", reason="pip install 'collabrl[openenv]'")
    from collabrl.interop.openenv_server import CollabAction, CollabEnvironment

    recipe = _recipe(name, kind, overrides, motion_partners)
    spec = episode_specs(recipe, 1)[0]
    env = CollabEnvironment(recipe)
    result = env.reset(task=spec.task, profile=spec.profile, seed=spec.seed)
    local = CollabSession(recipe)  # the expert reads the structured observation: a local copy
    local.reset(spec)
    reply = ExpertReplies(recipe, local.slot.policy_seat)
    while not result.done:
        text = reply(local.slot.running.pending[local.slot.policy_seat])
        local.act(text)
        result = env.step(CollabAction(reply=text))
    own, summary = collabrl_reward(recipe, spec, reply.replies)
    assert result.reward == pytest.approx(own)
    assert result.summary == summary
    assert set(result.reward_parts) >= {"efficiency", "format", "judge"}
    assert env.session.slot.game.name == recipe.game.name
    assert _asked(partner_server)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "kind", "overrides"), CASES)
def test_verifiers_episode_reward_equals_collabrls_own(
    name, kind, overrides, motion_partners, partner_server
):
    pytest.importorskip("verifiers", reason="pip install 'collabrl[verifiers]'")
    from collabrl.interop.verifiers_env import (
        CollabEnv,
        CollabEnvConfig,
        CollabTaskset,
        CollabTasksetConfig,
    )
    from tests.interop.vf_players import Agents, ExpertPlayer

    extra = motion_partners if name.startswith("cook") else []
    taskset = CollabTasksetConfig(
        id="collabrl-verifiers",
        recipe=name,
        overrides=[*overrides, *extra],
        partner=kind,
        episodes=1,
    )
    recipe = taskset.collab_recipe()
    task = next(iter(CollabTaskset(taskset)))
    spec = episode_specs(recipe, 1)[0]
    player = ExpertPlayer(recipe, spec)
    asyncio.run(CollabEnv(CollabEnvConfig(taskset=taskset)).run(task, Agents(player)))
    own, summary = collabrl_reward(recipe, spec, player.reply.replies)
    assert player.trace.reward == pytest.approx(own)
    assert player.trace.info["summary"] == summary
    assert _asked(partner_server)
