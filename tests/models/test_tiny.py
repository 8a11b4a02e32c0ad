"""Tiny offline tokenizer + model: fast, seeded, loadable by path."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from collabrl.models.tiny import make_tiny_model, make_tiny_tokenizer


def test_tokenizer_fits_agent_format():
    tok = make_tiny_tokenizer()
    assert 256 < len(tok) <= 4096
    text = "<think>go</think><message>hi</message><action>[goexplore] <kitchen> (11)</action> pickup(onion)"
    assert tok.decode(tok(text)["input_ids"]) == text
    assert len(tok(text)["input_ids"]) < len(text) / 2  # merges learned from the corpus
    chat = tok.apply_chat_template(
        [{"role": "user", "content": "hi"}], add_generation_prompt=True, tokenize=False
    )
    assert chat == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert tok.pad_token_id == tok.eos_token_id == tok.convert_tokens_to_ids("<|im_end|>")
    assert len(tok.tokenize("<|im_start|>")) == 1


def test_model_saved_seeded_and_loadable(tmp_path):
    a = make_tiny_model(tmp_path / "a", seed=1)
    b = make_tiny_model(tmp_path / "b", seed=1)
    c = make_tiny_model(tmp_path / "c", seed=2)
    load = AutoModelForCausalLM.from_pretrained
    wa, wb, wc = (load(p).model.embed_tokens.weight for p in (a, b, c))
    assert torch.equal(wa, wb) and not torch.equal(wa, wc)
    tok = AutoTokenizer.from_pretrained(a)
    assert tok.chat_template and tok.eos_token == "<|im_end|>"
    assert load(a).config.vocab_size == len(tok)


def test_unknown_size_rejected(tmp_path):
    with pytest.raises(ValueError, match="size must be one of"):
        make_tiny_model(tmp_path, size="huge")
