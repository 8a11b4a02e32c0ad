"""Defaults that follow the paper where it states a value, else the released code, each with the
other source's value as a named option (issue 32)."""

from __future__ import annotations

import pytest

from collabrl.config import load_recipe
from collabrl.config.training import VERL_WEIGHT_DECAY, AlgoSpec


def test_weight_decay_is_verls_since_the_paper_states_none() -> None:
    assert VERL_WEIGHT_DECAY == 0.01
    assert AlgoSpec().weight_decay == VERL_WEIGHT_DECAY
    assert load_recipe("cwah_gigpo").algo.weight_decay == VERL_WEIGHT_DECAY
    doc = AlgoSpec.model_fields["weight_decay"].description or ""
    assert "paper states none" in doc and "verl" in doc
    assert load_recipe("cwah_gigpo", ["algo.weight_decay=0"]).algo.weight_decay == 0.0


EVAL_RECIPE = "household_experts"  # a recipe whose eval section is the defaults
LLM_POLICY = ["eval.policy.kind=llm", "eval.policy.engine={backend: openai, model: m}"]
LLM_PARTNER = ["eval.partner.kind=llm", "eval.partner.engine={backend: openai, model: p}"]


def test_evaluation_caps_replies_at_the_training_and_released_code_value() -> None:
    from collabrl.config.evaluation import EVAL_MAX_NEW_TOKENS

    spec = load_recipe(EVAL_RECIPE, LLM_POLICY + LLM_PARTNER).eval
    assert EVAL_MAX_NEW_TOKENS == 4096 == load_recipe("cwah_gigpo").policy.sampling.max_new_tokens
    assert spec.max_new_tokens == EVAL_MAX_NEW_TOKENS
    assert spec.policy.sampling.max_new_tokens == spec.partner.sampling.max_new_tokens == 4096
    assert spec.judge.sampling.max_new_tokens == 900  # the judges keep their own (released) cap
    # the named option moves both; a role's own sampling wins; a copy of the section keeps them
    spec = load_recipe(EVAL_RECIPE, [*LLM_POLICY, *LLM_PARTNER, "eval.max_new_tokens=512"]).eval
    assert spec.policy.sampling.max_new_tokens == spec.partner.sampling.max_new_tokens == 512
    spec = load_recipe(
        EVAL_RECIPE, [*LLM_POLICY, *LLM_PARTNER, "eval.policy.sampling.max_new_tokens=64"]
    ).eval
    assert (spec.policy.sampling.max_new_tokens, spec.partner.sampling.max_new_tokens) == (64, 4096)
    again = type(spec).model_validate({**spec.model_dump(), "max_new_tokens": 100})
    assert (again.policy.sampling.max_new_tokens, again.partner.sampling.max_new_tokens) == (
        64,
        4096,
    )


def test_policy_and_partner_replies_are_single_pass_by_default() -> None:
    from collabrl.envs.registry import get_game
    from collabrl.eval.players import partner_factory, policy_factory
    from collabrl.factory import EngineCache
    from collabrl.profiles import load_profiles

    class Cache(EngineCache):
        def get(self, spec):  # no server: the players are only built
            return object()

    spec = load_recipe(EVAL_RECIPE, LLM_POLICY + LLM_PARTNER).eval
    assert spec.policy_retries == 0 and spec.partner.retries == 0
    assert load_recipe("cwah_gigpo").partner.retries == 0  # training partners alike
    section = get_game("household").model_validate({"name": "household"})
    game, profile = section.make_game(), load_profiles(game="household", split="test")[0]
    policies = policy_factory(spec.policy, Cache(), spec.policy_retries)
    policy = policies(game, section, 0)
    partner = partner_factory(spec.partner, Cache(), policies)(profile, game, section, 0)
    assert policy.retries == 0 and partner.retries == 0
    retried = load_recipe(
        EVAL_RECIPE, [*LLM_POLICY, *LLM_PARTNER, "eval.partner.retries=1", "eval.policy_retries=2"]
    ).eval
    partner = partner_factory(retried.partner, Cache(), policies)(profile, game, section, 0)
    assert partner.retries == 1 and retried.policy_retries == 2


def test_the_best_policy_is_chosen_on_held_out_training_data_by_default() -> None:
    from collabrl.config import partner_profiles
    from collabrl.config.recipe import held_out_profiles, validation_profiles, validation_tasks
    from collabrl.envs.registry import get_game
    from collabrl.profiles import get_profile

    recipe = load_recipe("cwah_gigpo_cpu", ["train.validation.every=5"])
    assert recipe.train.validation.split == "validation"
    tasks, held = validation_tasks(recipe), validation_profiles(recipe)
    assert tasks == ["1_read_book", "25_prepare_food"]
    assert not set(tasks) & set(get_game("household").tasks("test"))
    assert held and {get_profile(p).split for p in held} == {"train"}
    assert {get_profile(p).task for p in held} == set(tasks)
    drawn = {p.id for p in partner_profiles(recipe)}
    assert held_out_profiles(recipe) == set(held) and not drawn & set(held)
    # not validating, or validating on test data (the released code's choice): nothing held out
    for extra in ([], ["train.validation.every=5", "train.validation.split=test"]):
        other = load_recipe("cwah_gigpo_cpu", extra)
        assert {p.id for p in partner_profiles(other)} == drawn | set(held)
    test = load_recipe(
        "cwah_gigpo_cpu", ["train.validation.every=5", "train.validation.split=test"]
    )
    assert validation_tasks(test) == ["0_read_book", "26_prepare_food"]
    assert validation_profiles(test) is None
    # a task is never left without a training profile: with one task, one profile stays
    one = load_recipe("cwah_gigpo_cpu", ["train.validation.every=5", "rollout.tasks=[1_read_book]"])
    assert [p.task for p in partner_profiles(one)] == ["1_read_book"]


ARMS = {
    "household": ("cwah_gigpo", "cwah_gigpo_no_affective", "cwah_gigpo_no_personality"),
    "kitchen": ("cook_gigpo", "cook_gigpo_no_affective", "cook_gigpo_no_personality"),
}


@pytest.mark.parametrize("game", list(ARMS))
def test_validation_removes_no_training_task_and_every_arm_draws_the_same(game) -> None:
    """Issue 48: the paper recipes validate on held-out training profiles, one per player type,
    yet train on every training task and every training profile not held out; each ablation arm
    draws the same tasks (and the profiled ones the same profiles)."""
    from collabrl.config.recipe import training_set
    from collabrl.envs.registry import get_game
    from collabrl.profiles import PLAYER_TYPES, get_profile, load_profiles

    library = {p.id for p in load_profiles(game=game, split="train")}
    records = {name: training_set(load_recipe(name)) for name in ARMS[game]}
    full = records[ARMS[game][0]]
    assert full["tasks"] == sorted(get_game(game).tasks("train"))
    held = full["held_out_profiles"]
    assert sorted(get_profile(p).player_type for p in held) == sorted(PLAYER_TYPES)
    assert set(full["partner_profiles"]) == library - set(held)
    assert full["validation"]["profiles"] and set(full["validation"]["profiles"]) == set(held)
    if game == "household":
        assert len(full["tasks"]) == 40 and len(full["partner_profiles"]) == 94 - 5
    for name, record in records.items():
        assert record["tasks"] == full["tasks"], name
        assert record["held_out_profiles"] == held, name
        if record["partner_profiles"]:
            assert record["partner_profiles"] == full["partner_profiles"], name
        # every arm validates against the same partner and judge: the run's LLM ones
        assert (record["validation"]["partner"], record["validation"]["judge"]) == ("llm", "llm")


def test_training_length_is_the_released_scripts_since_the_paper_states_none() -> None:
    # the released CWAH script's total_epochs=1000; the kitchen and ablation arms inherit it
    for name in ("cwah_gigpo", "cook_gigpo", "cwah_gigpo_no_personality", "cwah_gigpo_qwen3_8b"):
        assert load_recipe(name).train.iterations == 1000, name
    assert load_recipe("cwah_gigpo", ["train.iterations=150"]).train.iterations == 150


def test_table_11_qwen3_runs_in_its_thinking_mode_and_can_switch_it_off() -> None:
    recipe = load_recipe("cwah_gigpo_qwen3_8b")
    assert recipe.policy.chat_template_kwargs == {"enable_thinking": True}
    assert "Qwen3-8B" in recipe.policy.model
    off = load_recipe("cwah_gigpo_qwen3_8b", ["policy.chat_template_kwargs.enable_thinking=false"])
    assert off.policy.chat_template_kwargs == {"enable_thinking": False}
