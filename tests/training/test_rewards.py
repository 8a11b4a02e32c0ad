"""The training signal as the paper defines it: what GiGPO compares at each level, and one
definition of a sent message from the game to the reward."""

import numpy as np
import pytest

from collabrl.config import load_recipe, shipped_recipes
from collabrl.engines.types import Completion, GenerationResult, SamplingParams
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.expert import KitchenExpert
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.training.lockstep import EpisodeSlot, Sample, run_rollout
from collabrl.training.rewards import (
    advantage_parts,
    compute_advantages,
    informative,
    score_rollout,
)

TRAINING_RECIPES = [name for name in shipped_recipes() if "gigpo" in name]


def _episode(episode: int, decisions: int, chatty: bool, summary: dict) -> EpisodeSlot:
    """One episode of group 0 whose decisions all reach different states (distinct anchors)."""
    slot = EpisodeSlot(0, episode, None, {}, "Alice", None, None, 0, summary=summary)
    slot.samples = [
        Sample(
            0,
            episode,
            k,
            k,
            [1],
            [2],
            [0.0],
            ("state", episode, k),
            True,
            chatty and k % 2 == 0,
            "",
            "",
        )
        for k in range(decisions)
    ]
    return slot


def _quick_success_and_chatty_failure(game: str) -> list[EpisodeSlot]:
    if game == "household":  # a 15-decision success at tick 50 (efficiency 0.78) vs 50 decisions
        won, lost = {"success": True, "steps": 50}, {"success": False, "steps": 250}
    else:  # kitchen: two soups in 15 decisions vs nothing served in 50 chatty decisions
        won, lost = {"score": 40}, {"score": 0}
    return [_episode(0, 15, False, won), _episode(1, 50, True, lost)]


@pytest.mark.parametrize("recipe_name", TRAINING_RECIPES)
@pytest.mark.parametrize("episode_level", ["efficiency", "efficiency_plus_step"])
def test_quick_success_outranks_long_chatty_failure(recipe_name: str, episode_level: str) -> None:
    recipe = load_recipe(recipe_name, [f"reward.episode_level={episode_level}"])
    slots = _quick_success_and_chatty_failure(recipe.game.name)
    judged_alike = {(0, s.episode, s.decision): 0.5 for slot in slots for s in slot.samples}
    scored = score_rollout(slots, judged_alike, recipe.reward, recipe.game)
    advantages = compute_advantages(scored, recipe.algo)
    success = np.array([s.episode == 0 for s in scored.samples])
    assert advantages[success].mean() > 0 > advantages[~success].mean()
    assert advantages[success].min() > advantages[~success].max()


def test_efficiency_never_enters_step_rewards() -> None:
    recipe = load_recipe("cwah_gigpo", ["reward.judge.kind=none"])
    slots = _quick_success_and_chatty_failure("household")
    scored = score_rollout(slots, {}, recipe.reward, recipe.game)
    # the success's steps earn nothing at step level; its efficiency (0.78) is episode-level only
    assert scored.step_rewards[:15] == [0.0] * 15
    assert scored.step_rewards[15:] == pytest.approx([0.01, 0.0] * 25)
    assert slots[0].efficiency == pytest.approx(np.exp(-0.25))
    assert scored.episode_scores == pytest.approx([np.exp(-0.25)] * 15 + [0.0] * 50)
    assert all("efficiency" not in s.rewards for s in scored.samples)


def test_efficiency_weight_scales_the_episode_level_score() -> None:
    recipe = load_recipe("cwah_gigpo", ["reward.judge.kind=none", "reward.efficiency=0.5"])
    slots = _quick_success_and_chatty_failure("household")
    scored = score_rollout(slots, {}, recipe.reward, recipe.game)
    assert slots[0].efficiency == pytest.approx(0.5 * np.exp(-0.25))
    assert scored.episode_scores[:15] == pytest.approx([0.5 * np.exp(-0.25)] * 15)
    assert scored.step_rewards[15:] == pytest.approx([0.01, 0.0] * 25)  # step terms unweighted


def test_samples_without_response_tokens_are_scored_but_not_trained_on() -> None:
    recipe = load_recipe("cwah_gigpo_cpu", ["reward.judge.kind=none"])
    slot = _episode(0, 3, True, {"success": False, "steps": 250})
    failed = slot.samples[1]
    failed.response_ids, failed.rollout_logprobs = [], []  # the engine produced no completion
    scored = score_rollout([slot], {}, recipe.reward, recipe.game)
    assert [s.decision for s in scored.samples] == [0, 2]
    assert len(scored.step_rewards) == len(scored.episode_scores) == 2
    assert failed.rewards["format"] == 0.0  # still scored: its terms are logged


def test_grpo_has_no_step_level() -> None:
    """GRPO is GiGPO without the anchor-state level: its step part is zero, GiGPO's is not."""
    parts = {}
    for name in ("gigpo", "grpo"):
        recipe = load_recipe("cwah_gigpo", ["reward.judge.kind=none", f"algo.name={name}"])
        slots = _quick_success_and_chatty_failure("household")
        for s in slots[1].samples:  # the failure's steps share anchors with the success's
            s.anchor = ("state", 0, s.decision % 15)
        parts[name] = advantage_parts(
            score_rollout(slots, {}, recipe.reward, recipe.game), recipe.algo
        )
    assert np.abs(parts["gigpo"].step).max() > 0
    assert np.abs(parts["grpo"].step).max() == 0
    assert parts["grpo"].episode == pytest.approx(parts["gigpo"].episode)


class ScriptedEngine:
    """A policy engine that always writes the same reply (one token, logprob 0)."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def generate(self, conversations, params):
        return [
            GenerationResult([Completion(self.reply, "stop", [7], [0.0])], [1, 2])
            for _ in conversations
        ]


@pytest.mark.parametrize("game_name", ["household", "kitchen"])
def test_empty_message_is_an_invalid_step_in_game_reward_and_metrics(game_name: str) -> None:
    if game_name == "household":
        game, partner = HouseholdGame("0_read_book", max_ticks=30), HouseholdExpert()
    else:
        game, partner = KitchenGame("cramped_room", horizon=20), KitchenExpert()
    seat, other = game.agents
    reply = f"<think>tell them</think><message>   </message><action>{game.message_action}</action>"
    slot = EpisodeSlot(0, 0, game, {other: partner}, seat, None, None, 3)
    run_rollout([slot], ScriptedEngine(reply), SamplingParams(seed=0))
    summary = slot.summary
    assert summary["messages"][seat] == 0
    assert summary["invalid"][seat] == summary["decisions"][seat] == len(slot.samples) > 1
    assert not any(s.valid or s.sent_message for s in slot.samples)
    recipe_name = "cwah_gigpo_cpu" if game_name == "household" else "cook_gigpo_cpu"
    recipe = load_recipe(recipe_name, ["reward.judge.kind=heuristic"])
    score_rollout([slot], {}, recipe.reward, recipe.game)
    for s in slot.samples:
        assert s.rewards == {"format": -0.1, "communication": 0.0, "judge": 0.0, "progress": 0.0}


def test_progress_reward_pays_goal_units_completed_until_the_next_decision() -> None:
    recipe = load_recipe("cwah_gigpo_cpu", ["reward.judge.kind=none", "reward.progress=0.2"])
    slot = _episode(0, 3, False, {"success": False, "steps": 250})
    for s, at in zip(slot.samples, [0, 0, 1], strict=True):
        s.progress_at = at
    slot.final_progress = 3
    scored = score_rollout([slot], {}, recipe.reward, recipe.game)
    assert scored.step_rewards == pytest.approx([0.0, 0.2, 0.4])
    off_recipe = load_recipe("cwah_gigpo_cpu", ["reward.judge.kind=none"])
    off = score_rollout([slot], {}, off_recipe.reward, off_recipe.game)
    assert off.step_rewards == [0.0, 0.0, 0.0]  # off by default, as in the paper


def test_dynamic_sampling_keeps_only_groups_with_signal() -> None:
    recipe = load_recipe(
        "cwah_gigpo_cpu", ["reward.judge.kind=none", "algo.drop_uniform_groups=true"]
    )
    informative_group = _quick_success_and_chatty_failure("household")
    flat = [_episode(e, 3, False, {"success": False, "steps": 250}) for e in range(2)]
    for slot in flat:
        slot.group = 1
        for s in slot.samples:
            s.group, s.anchor = 1, ("same",)
    scored = score_rollout(informative_group + flat, {}, recipe.reward, recipe.game)
    advantages = compute_advantages(scored, recipe.algo)
    kept = informative(scored, advantages, recipe.algo.drop_uniform_groups)
    assert {scored.samples[i].group for i in kept} == {0}
    assert len(kept) == 65
    assert informative(scored, advantages, False) == list(range(71))
