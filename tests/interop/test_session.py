"""The export's episode session plays and scores as collabrl's trainer does."""

from __future__ import annotations

import pytest

from collabrl.config import load_recipe
from collabrl.errors import CollabrlError
from collabrl.factory import make_expert
from collabrl.interop.session import CollabSession, episode_specs
from collabrl.training.groups import partner_profiles, plan_groups
from tests.interop.conftest import collabrl_reward

RECIPE = "cwah_gigpo_cpu"


def _play(session: CollabSession, every_bad: int) -> list[str]:
    """Play the episode with the expert's replies, every ``every_bad``-th one unparsable."""
    expert = make_expert(session.recipe.game)
    seat = session.slot.policy_seat
    expert.reset(seat, 0)
    replies = []
    while not session.done:
        obs = session.slot.running.pending[seat]
        reply = "no tags at all" if len(replies) % every_bad == every_bad - 1 else expert.act(obs)
        replies.append(reply)
        session.act(reply)
    return replies


@pytest.mark.parametrize("plan_index", [0, 1])
def test_session_reward_equals_collabrls_own_rollout(plan_index):
    recipe = load_recipe(RECIPE, ["game.max_decisions=12"])
    session = CollabSession(recipe)
    session.reset(episode_specs(recipe, 2)[plan_index])
    replies = _play(session, every_bad=4)
    parts = session.reward_parts()
    own, summary = collabrl_reward(recipe, plan_index, replies)
    assert session.record().summary == summary
    assert parts["format"] == pytest.approx(-0.1 * sum(1 for r in replies if "<" not in r))
    assert parts["judge"] > 0  # the heuristic judge scored the valid steps
    assert session.reward() == pytest.approx(own)


def test_unfinished_episode_is_played_out_with_empty_replies():
    recipe = load_recipe(RECIPE, ["game.max_decisions=6", "reward.judge.kind=none"])
    session = CollabSession(recipe)
    first = session.reset(episode_specs(recipe, 1)[0])
    assert first == session.observation() and not session.done
    reward = session.reward()
    own, _ = collabrl_reward(recipe, 0, [])
    assert reward == pytest.approx(own)
    assert session.done
    with pytest.raises(CollabrlError, match="episode is over"):
        session.act("<action>A</action>")


def test_specs_follow_the_trainers_group_plans():
    recipe = load_recipe(RECIPE)
    plans = plan_groups(recipe, partner_profiles(recipe), 0) + plan_groups(
        recipe, partner_profiles(recipe), 1
    )
    specs = episode_specs(recipe, 3)
    assert [(s.task, s.profile, s.seed) for s in specs] == [
        (p.task, p.profile.id, p.seed) for p in plans[:3]
    ]


def test_self_play_partner_is_refused():
    with pytest.raises(CollabrlError, match="partner.kind=self"):
        CollabSession(load_recipe(RECIPE, ["partner.kind=self"]))
