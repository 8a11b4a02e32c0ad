"""Tiny offline models: a locally trained byte-level BPE tokenizer and a seeded random
Llama-style model, saved as a normal HF folder that every backend loads by path.

Why: tests, benchmarks and CPU smoke runs must work with no network and in seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    models,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from collabrl.models.corpus import corpus_lines
from collabrl.models.game_tokenizer import game_corpus_lines

BOS, EOS, IM_START = "<|endoftext|>", "<|im_end|>", "<|im_start|>"
SPECIAL_TOKENS = (BOS, IM_START, EOS)

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(frozen=True)
class TinySize:
    """Shape of a tiny Llama. Head dim 64 keeps it within every attention backend's sizes."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int


SIZES: dict[str, TinySize] = {
    "tiny": TinySize(hidden=128, layers=2, heads=2, kv_heads=1, intermediate=256),
    "small": TinySize(hidden=256, layers=4, heads=4, kv_heads=2, intermediate=768),
}


@dataclass(frozen=True)
class TokenizerCorpus:
    """What a tiny tokenizer is trained on and how it may merge."""

    lines: Callable[[], list[str]]
    vocab_size: int
    whole_words: bool  # merge up to whole space-separated words ("<fridge>", "(162).")
    reply_tags: tuple[str, ...] = ()  # kept whole and apart from the words around them


CORPORA = {
    "builtin": TokenizerCorpus(corpus_lines, 2048, whole_words=False),
    "game": TokenizerCorpus(
        game_corpus_lines,
        4096,
        whole_words=True,
        reply_tags=tuple(f"<{s}{t}>" for t in ("think", "message", "action") for s in ("", "/")),
    ),
}
"""``builtin``: a few lines of generic game talk, split like GPT-2 (words from punctuation); the
tokenizer every pinned test number was measured with. ``game``: the built-in games' own recorded
text (:mod:`collabrl.models.game_tokenizer`), merged up to whole space-separated words, so an
object with its id or a whole reply tag with its action letter is one token: a household prompt
costs about 3.4 times fewer tokens than with ``builtin`` and a reply 3.5 times fewer (the
splitting GPT-2 does would stop at 1.6 times; merging across spaces learns whole furniture lists
of the recorded apartments as single tokens, which a model cannot read). Its reply tags are
tokens of their own: merged into words ("place.</think>") a tag took many spellings and a small
model closed 40% of its replies wrongly."""


def make_tiny_tokenizer(corpus: str = "builtin") -> PreTrainedTokenizerFast:
    """Byte-level BPE trained on ``corpus`` (see :data:`CORPORA`), with ChatML special tokens and
    template. Like SmolLM2, pad == eos == ``<|im_end|>``, so callers must mask by attention, not
    pad id."""
    source = CORPORA[corpus]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if source.whole_words:  # split at spaces only (a word keeps its leading space), then bytes
        tok.add_tokens([AddedToken(t, normalized=False, special=False) for t in source.reply_tags])
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(r" ?\S+|\s+"), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=source.vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(source.lines(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=EOS, unk_token=None
    )
    fast.add_special_tokens({"additional_special_tokens": [IM_START]})
    fast.chat_template = CHATML_TEMPLATE
    return fast


def make_tiny_model(
    directory: str | Path,
    seed: int = 0,
    size: str = "tiny",
    init_std: float = 0.1,
    corpus: str = "builtin",
) -> Path:
    """Write tokenizer (trained on ``corpus``) + randomly initialised Llama (seeded) to
    ``directory``; return the path.

    ``init_std`` is larger than the usual 0.02 so the next-token distribution is peaked enough
    that greedy decoding is not decided by float rounding.
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, got {size!r}")
    if corpus not in CORPORA:
        raise ValueError(f"corpus must be one of {sorted(CORPORA)}, got {corpus!r}")
    shape = SIZES[size]
    directory = Path(directory)
    tokenizer = make_tiny_tokenizer(corpus)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden,
        intermediate_size=shape.intermediate,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        max_position_embeddings=4096,  # household prompts reach ~2,000 tiny-tokenizer tokens
        initializer_range=init_std,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
