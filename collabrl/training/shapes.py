"""Shapes of the decoder models a recipe trains (parameter counts, layer widths), for
``collabrl plan``: from a local config.json (no weights read), the tiny test models, or a table of
published shapes for hub ids with no local folder."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError


@dataclass(frozen=True)
class ModelShape:
    """A Llama/Qwen-style decoder: RMSNorm, grouped-query attention, SwiGLU MLP."""

    name: str
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    vocab: int
    tied: bool
    head_dim: int = 0  # 0: hidden // heads
    qkv_bias: bool = False
    source: str = ""

    @property
    def head(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def q_width(self) -> int:
        return self.heads * self.head

    @property
    def kv_width(self) -> int:
        """Width of the K (and of the V) projection."""
        return self.kv_heads * self.head

    def linears(self) -> dict[str, tuple[int, int]]:
        """(in, out) of each linear layer of one decoder layer, by module name."""
        h, i = self.hidden, self.intermediate
        return {
            "q_proj": (h, self.q_width),
            "k_proj": (h, self.kv_width),
            "v_proj": (h, self.kv_width),
            "o_proj": (self.q_width, h),
            "gate_proj": (h, i),
            "up_proj": (h, i),
            "down_proj": (i, h),
        }

    def layer_params(self) -> int:
        weights = sum(a * b for a, b in self.linears().values())
        bias = self.q_width + 2 * self.kv_width if self.qkv_bias else 0
        return weights + bias + 2 * self.hidden  # two RMSNorm weights

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    def params(self) -> int:
        head = 0 if self.tied else self.embedding_params()
        return self.embedding_params() + head + self.layers * self.layer_params() + self.hidden

    def lora_params(self, rank: int, targets: list[str] | str) -> int:
        """Adapter parameters PEFT adds: r x (in + out) per adapted linear (``all-linear``: every
        linear of the decoder layers, not the output head)."""
        chosen = self.linears()
        if targets != "all-linear":
            names = [targets] if isinstance(targets, str) else targets
            chosen = {k: v for k, v in chosen.items() if k in names}
        return self.layers * sum(rank * (a + b) for a, b in chosen.values())

    def kv_bytes_per_token(self, dtype_bytes: int) -> int:
        """KV cache of one token over all layers."""
        return 2 * self.layers * self.kv_width * dtype_bytes


def _qwen(name: str, h: int, i: int, layers: int, heads: int, kv: int, tied: bool) -> ModelShape:
    vocab = 151936 if tied else 152064
    return ModelShape(name, h, i, layers, heads, kv, vocab, tied, qkv_bias=True)


# Published config.json shapes (the -Instruct releases share their base model's shape).
KNOWN_SHAPES: dict[str, ModelShape] = {
    s.name.lower(): s
    for s in (
        _qwen("Qwen2.5-0.5B", 896, 4864, 24, 14, 2, tied=True),
        _qwen("Qwen2.5-1.5B", 1536, 8960, 28, 12, 2, tied=True),
        _qwen("Qwen2.5-3B", 2048, 11008, 36, 16, 2, tied=True),
        _qwen("Qwen2.5-7B", 3584, 18944, 28, 28, 4, tied=False),
        _qwen("Qwen2.5-14B", 5120, 13824, 48, 40, 8, tied=False),
        _qwen("Qwen2.5-32B", 5120, 27648, 64, 40, 8, tied=False),
        _qwen("Qwen2.5-72B", 8192, 29568, 80, 64, 8, tied=False),
        ModelShape("Qwen3-4B", 2560, 9728, 36, 32, 8, 151936, True, head_dim=128),
        ModelShape("Qwen3-8B", 4096, 12288, 36, 32, 8, 151936, False, head_dim=128),
        ModelShape("Llama-3.1-8B", 4096, 14336, 32, 32, 8, 128256, False),
        ModelShape("SmolLM2-135M", 576, 1536, 30, 9, 3, 49152, True),
    )
}
TINY_VOCAB = 1114  # len(make_tiny_tokenizer()); a test keeps it equal


def tiny_shape(size: str) -> ModelShape:
    """The shape :func:`collabrl.models.tiny.make_tiny_model` builds (no tokenizer training)."""
    from collabrl.models.tiny import SIZES

    s = SIZES[size]
    return ModelShape(
        "tiny" if size == "tiny" else f"tiny-{size}",
        s.hidden,
        s.intermediate,
        s.layers,
        s.heads,
        s.kv_heads,
        TINY_VOCAB,
        tied=True,
        source="collabrl.models.tiny",
    )


def shape_from_config(config: dict[str, Any], name: str, source: str) -> ModelShape:
    """A shape from a HF config.json's fields (Llama, Qwen2, Qwen3, Mistral, SmolLM2 ...)."""
    try:
        return ModelShape(
            name=name,
            hidden=int(config["hidden_size"]),
            intermediate=int(config["intermediate_size"]),
            layers=int(config["num_hidden_layers"]),
            heads=int(config["num_attention_heads"]),
            kv_heads=int(config.get("num_key_value_heads") or config["num_attention_heads"]),
            vocab=int(config["vocab_size"]),
            tied=bool(config.get("tie_word_embeddings", False)),
            head_dim=int(config.get("head_dim") or 0),
            qkv_bias=bool(config.get("attention_bias", config.get("model_type") == "qwen2")),
            source=source,
        )
    except KeyError as exc:
        raise CollabrlError(
            f"{source}: no {exc.args[0]!r}; collabrl plan knows Llama/Qwen-style decoders"
        ) from None


def resolve_shape(model: str) -> ModelShape:
    """The shape of ``policy.model``: a tiny model, a local folder's config.json (no weights are
    read), or the table of published shapes matched by the folder's or hub id's last part."""
    if model in ("tiny", "tiny-small"):
        return tiny_shape("tiny" if model == "tiny" else "small")
    folder = Path(model).expanduser()
    config = folder / "config.json"
    if config.is_file():
        data = json.loads(config.read_text(encoding="utf-8"))
        return shape_from_config(data, folder.name, f"{config}")
    key = re.sub(r"-instruct$", "", folder.name.lower())
    if key in KNOWN_SHAPES:
        return replace(
            KNOWN_SHAPES[key], source=f"shape table ({folder.name}: no local config.json)"
        )
    known = ", ".join(s.name for s in KNOWN_SHAPES.values())
    raise CollabrlError(
        f"policy.model {model!r}: no config.json there and not a known shape; give a folder with "
        f"a config.json (the weights are not needed) or one of: {known}"
    )
