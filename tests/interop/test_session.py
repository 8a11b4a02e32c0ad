"""The export's episode session plays and scores as collabrl's trainer does."""

from __future__ import annotations

import pytest

from collabrl.config import load_recipe
from collabrl.errors import CollabrlError
from collabrl.interop.session import CollabSession, episode_specs
from collabrl.training.groups import partner_profiles, plan_groups
from tests.interop.conftest import RECIPE, ExpertReplies, collabrl_reward


@pytest.mark.parametrize("episode", [0, 1])
def test_session_reward_equals_collabrls_own_rollout(episode):
    recipe = load_recipe(RECIPE, ["game.max_decisions=12"])
    spec = episode_specs(recipe, 2)[episode]
    session = CollabSession(recipe)
    session.reset(spec)
    seat = session.slot.policy_seat
    reply = ExpertReplies(recipe, seat)
    while not session.done:
        session.act(reply(session.slot.running.pending[seat]))
    parts = session.reward_parts()
    own, summary = collabrl_reward(recipe, spec, reply.replies)
    assert session.record().summary == summary
    assert parts["format"] == pytest.approx(-0.1 * sum("<" not in r for r in reply.replies))
    assert parts["judge"] > 0  # the heuristic judge scored the valid steps
    assert session.reward() == pytest.approx(own)


def test_unfinished_episode_is_played_out_with_empty_replies():
    recipe = load_recipe(RECIPE, ["game.max_decisions=6", "reward.judge.kind=none"])
    spec = episode_specs(recipe, 1)[0]
    session = CollabSession(recipe)
    first = session.reset(spec)
    assert first == session.observation() and not session.done
    reward = session.reward()
    own, _ = collabrl_reward(recipe, spec, [])
    assert reward == pytest.approx(own)
    assert session.done
    with pytest.raises(CollabrlError, match="episode is over"):
        session.act("<action>A</action>")


def test_specs_follow_the_trainers_group_plans():
    recipe = load_recipe(RECIPE)
    profiles = partner_profiles(recipe)
    plans = plan_groups(recipe, profiles, 0) + plan_groups(recipe, profiles, 1)
    specs = episode_specs(recipe, 3)
    assert [(s.task, s.profile, s.seed) for s in specs] == [
        (p.task, p.profile.id, p.seed) for p in plans[:3]
    ]


def test_self_play_partner_is_refused():
    with pytest.raises(CollabrlError, match="partner.kind=self"):
        CollabSession(load_recipe(RECIPE, ["partner.kind=self"]))
