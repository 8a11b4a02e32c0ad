"""Chat-template variables reach the template: a model whose template has its own thinking switch
(as Qwen3's does) is run with ``policy.chat_template_kwargs={enable_thinking: false}``, so its
thinking mode stays out of our ``<think>`` tag."""

from __future__ import annotations

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from collabrl.config import load_recipe
from collabrl.engines import SamplingParams
from collabrl.engines.hf import TransformersEngine
from collabrl.models.tiny import make_tiny_model
from collabrl.sft.data import prompt_ids, tokenize_demos
from collabrl.training.loop import _rollout_engine

# Qwen3's switch, in short: with enable_thinking=false the assistant turn opens with an empty
# thinking block, which tells the model not to think in its own tags.
THINKING_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n"
    "{% endif %}{% endif %}"
)
CONV = [{"role": "user", "content": "You are in the kitchen."}]
OPENED = "<|im_start|>user\nYou are in the kitchen.<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = make_tiny_model(tmp_path_factory.mktemp("thinking"), seed=0)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.chat_template = THINKING_TEMPLATE
    tokenizer.save_pretrained(path)
    return path


def ids(tokenizer, text: str) -> list[int]:
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def test_template_variables_switch_thinking_off(model_dir):
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    default = TransformersEngine(model, tokenizer)
    off = TransformersEngine(model, tokenizer, chat_template_kwargs={"enable_thinking": False})
    assert default.encode(CONV) == ids(tokenizer, OPENED)
    assert off.encode(CONV) == ids(tokenizer, OPENED + "<think>\n\n</think>\n\n")
    (result,) = off.generate([CONV], SamplingParams(max_new_tokens=4, seed=0))
    assert result.ok and result.prompt_token_ids == off.encode(CONV)  # what the trainer sees


def test_the_recipe_knob_reaches_the_rollout_engine(model_dir):
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [f"policy.model={model_dir}", "policy.chat_template_kwargs.enable_thinking=false"],
    )
    assert recipe.policy.chat_template_kwargs == {"enable_thinking": False}
    engine = _rollout_engine(recipe, model, tokenizer, str(model_dir))
    assert engine.encode(CONV) == ids(tokenizer, OPENED + "<think>\n\n</think>\n\n")
    plain = load_recipe("cwah_gigpo_cpu", [f"policy.model={model_dir}"])
    assert _rollout_engine(plain, model, tokenizer, str(model_dir)).encode(CONV) == ids(
        tokenizer, OPENED
    )


def test_sft_prompts_use_the_same_template_variables_as_rollouts(model_dir):
    """SFT must train on the prompts the policy sees in rollouts, thinking switch included."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    off = {"enable_thinking": False}
    rows = [
        {"prompt": CONV, "completion": [{"role": "assistant", "content": "<action>wait</action>"}]}
    ]
    (example,) = tokenize_demos(rows, tokenizer, 4096, "skip", off).examples
    assert example.prompt_ids == TransformersEngine(
        model, tokenizer, chat_template_kwargs=off
    ).encode(CONV)
    assert example.prompt_ids == prompt_ids(tokenizer, CONV, off) != prompt_ids(tokenizer, CONV)
