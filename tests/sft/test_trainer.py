"""SFT: tokenisation, response-only loss, LoRA export, and a tiny end-to-end run."""

from __future__ import annotations

import json

import pytest
import torch

from collabrl.config import LoraSpec, load_recipe
from collabrl.config.sft import DemoSpec, SFTSpec
from collabrl.sft.data import (
    Example,
    collate_examples,
    prompt_ids,
    response_nll,
    tokenize_demos,
)
from collabrl.sft.demos import record_demos, write_demos
from collabrl.sft.trainer import train_sft
from collabrl.training.policy import save_policy


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from collabrl.models.tiny import make_tiny_model

    return str(make_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0))


@pytest.fixture(scope="module")
def rows():
    recipe = load_recipe(
        "cwah_gigpo_cpu", ["players=[{kind: expert}, {kind: expert}]", "game.max_decisions=50"]
    )
    return list(record_demos(recipe, DemoSpec(episodes=1), progress=False))[:8]


def test_tokenize_matches_the_engine_prompt_and_ends_with_eos(tiny, rows) -> None:
    from collabrl.engines.hf import TransformersEngine

    engine = TransformersEngine.from_pretrained(tiny)
    tok = engine.tokenizer
    data = tokenize_demos(rows, tok, max_length=4096, overlong="skip")
    assert len(data.examples) == len(rows) and data.skipped == data.truncated == 0
    first = data.examples[0]
    assert (
        first.prompt_ids == engine.encode(rows[0]["prompt"]) == prompt_ids(tok, rows[0]["prompt"])
    )
    assert first.response_ids[-1] == tok.eos_token_id
    assert tok.decode(first.response_ids[:-1]) == rows[0]["completion"][0]["content"]

    cut = tokenize_demos(rows, tok, max_length=300, overlong="truncate")
    assert cut.truncated == len(rows)
    assert all(len(e.prompt_ids) + len(e.response_ids) == 300 for e in cut.examples)
    assert cut.examples[0].prompt_ids == first.prompt_ids[-len(cut.examples[0].prompt_ids) :]
    assert tokenize_demos(rows, tok, max_length=300, overlong="skip").skipped == len(rows)


class Bigram(torch.nn.Module):
    """Logits at position t depend on token t only, so prompt-token effects are easy to isolate."""

    def __init__(self, vocab: int = 11) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.table = torch.nn.Embedding(vocab, vocab)

    def forward(self, input_ids, attention_mask, logits_to_keep=0):
        logits = self.table(input_ids)
        return type(
            "Out", (), {"logits": logits[:, -logits_to_keep:] if logits_to_keep else logits}
        )


def _loss(model, examples) -> float:
    with torch.no_grad():
        nll, tokens = response_nll(model, collate_examples(examples, pad_id=0))
    return float(nll / tokens)


def test_loss_counts_response_tokens_only() -> None:
    model = Bigram()
    base = [Example([1, 2, 3, 4], [5, 6, 7]), Example([3, 3], [8, 9, 1, 2])]
    loss = _loss(model, base)
    # manual: -log p(next) at each position whose next token is a response token
    logp = torch.log_softmax(model.table.weight, dim=-1)
    terms = [logp[4, 5], logp[5, 6], logp[6, 7], logp[3, 8], logp[8, 9], logp[9, 1], logp[1, 2]]
    assert loss == pytest.approx(float(-sum(terms) / len(terms)), rel=1e-5)
    # changing prompt tokens (other than the last, which predicts the first response token)
    # changes no target: same loss
    other_prompt = [Example([9, 9, 9, 4], [5, 6, 7]), Example([0, 3], [8, 9, 1, 2])]
    assert _loss(model, other_prompt) == pytest.approx(loss, rel=1e-6)
    # a response token changes it
    other_response = [Example([1, 2, 3, 4], [5, 6, 10]), Example([3, 3], [8, 9, 1, 2])]
    assert _loss(model, other_response) != pytest.approx(loss, rel=1e-6)


def test_lora_export_is_a_plain_model_with_the_merged_weights(tiny, tmp_path) -> None:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = AutoModelForCausalLM.from_pretrained(tiny)
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    expected = model(input_ids=ids).logits
    save_policy(model, AutoTokenizer.from_pretrained(tiny), tmp_path / "policy")
    assert not (tmp_path / "policy" / "adapter_config.json").exists()
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path / "policy")
    torch.testing.assert_close(loaded(input_ids=ids).logits, expected, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(model(input_ids=ids).logits, expected)  # adapters unmerged again


@pytest.mark.slow
@pytest.mark.parametrize("lora", [False, True])
def test_tiny_sft_lowers_the_loss_and_writes_a_loadable_policy(tiny, rows, tmp_path, lora) -> None:
    from transformers import AutoModelForCausalLM

    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [f"output_dir={tmp_path}", f"policy.model={tiny}", "train.wandb=disabled", "seed=3"],
    )
    if lora:
        recipe.policy.lora = LoraSpec(rank=8, alpha=16)
    spec = SFTSpec(
        demos=DemoSpec(path=str(tmp_path / "demos.jsonl")),
        epochs=3,
        lr=3e-3,
        batch_size=4,
        micro_batch=2,
        max_length=200,  # short prompts keep the test fast
        overlong="truncate",
    )
    write_demos(rows, tmp_path / "demos.jsonl")
    policy = train_sft(recipe, spec)
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    first, last = lines[0]["loss"], lines[-1]["loss"]
    assert last < first - 0.5
    assert (policy / "config.json").is_file() and (policy / "tokenizer.json").is_file()
    assert AutoModelForCausalLM.from_pretrained(policy) is not None


@pytest.mark.slow  # a minute or more of CPU: only the full suite (.ci/run) runs it
def test_demos_then_sft_commands_produce_a_policy(tmp_path, tiny) -> None:
    from click.testing import CliRunner

    from collabrl.cli import cli

    common = [
        "cwah_sft_cpu",
        f"output_dir={tmp_path}",
        f"policy.model={tiny}",
        "train.wandb=disabled",
        "sft.demos.episodes=1",
        "game.max_decisions=50",
    ]
    demos = CliRunner().invoke(cli, ["demos", *common, "--quiet"])
    assert demos.exit_code == 0, demos.output
    assert "HF dataset:" in demos.output and (tmp_path / "demos.jsonl").is_file()
    sft = CliRunner().invoke(
        cli, ["sft", *common, "sft.epochs=1", "sft.max_length=200", "sft.overlong=truncate"]
    )
    assert sft.exit_code == 0, sft.output
    assert list(tmp_path.glob("checkpoints/iter_*/policy/model.safetensors"))
