"""Transformers policy engine on a tiny offline model: batching, logprobs, stops, n, seeds."""

from __future__ import annotations

import pytest
import torch

from collabrl.engines import SamplingParams, make_engine
from collabrl.engines.hf import TransformersEngine
from collabrl.models.tiny import make_tiny_model

CONVS = [
    [{"role": "user", "content": "You are in the kitchen."}],
    [
        {"role": "system", "content": "Play the cooking game with your partner."},
        {"role": "user", "content": "Observation: you see an onion and a plate in the garden."},
    ],
    [{"role": "user", "content": "hi"}],
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> TransformersEngine:
    path = make_tiny_model(tmp_path_factory.mktemp("tiny"), seed=0)
    return make_engine({"backend": "transformers", "model": str(path), "batch_size": 8})


def forward_logprobs(
    engine: TransformersEngine, prompt: list[int], response: list[int], temperature: float
) -> torch.Tensor:
    ids = torch.tensor([prompt + response])
    with torch.no_grad():
        logits = engine.model(ids).logits[0, len(prompt) - 1 : -1]
    logp = torch.log_softmax(logits / temperature, dim=-1)
    return logp.gather(1, torch.tensor(response)[:, None]).squeeze(1)


def test_greedy_batched_equals_unbatched(engine):
    params = SamplingParams(temperature=0, max_new_tokens=24, stop=())
    batched = engine.generate(CONVS, params)
    for conv, b in zip(CONVS, batched, strict=True):
        (u,) = engine.generate([conv], params)
        assert b.completions[0].token_ids == u.completions[0].token_ids
        assert b.text == u.text
        assert b.completions[0].logprobs == pytest.approx(u.completions[0].logprobs, abs=1e-4)
        assert b.prompt_token_ids == u.prompt_token_ids == engine.encode(conv)


@pytest.mark.parametrize("temperature", [0.0, 0.7, 1.3])
def test_logprobs_match_forward_pass(engine, temperature):
    params = SamplingParams(temperature=temperature, max_new_tokens=20, seed=5, stop=())
    for r in engine.generate(CONVS, params):
        c = r.completions[0]
        assert len(c.logprobs) == len(c.token_ids) == r.completion_tokens > 0
        direct = forward_logprobs(engine, r.prompt_token_ids, c.token_ids, temperature or 1.0)
        assert torch.allclose(direct, torch.tensor(c.logprobs), atol=1e-4)


def find_stop(engine) -> str:
    """A stop string the tiny model is sure to produce: a piece of its own greedy output."""
    (r,) = engine.generate(CONVS[:1], SamplingParams(temperature=0, max_new_tokens=12, stop=()))
    text = r.text
    assert len(text) > 8
    return text[5:8]


def test_stop_string_inclusive_and_tokens_cut(engine):
    stop = find_stop(engine)
    (r,) = engine.generate(
        CONVS[:1], SamplingParams(temperature=0, max_new_tokens=12, stop=(stop,))
    )
    c = r.completions[0]
    assert c.finish_reason == "stop" and c.text.endswith(stop) and c.text.count(stop) == 1
    assert len(c.token_ids) < 12 and len(c.logprobs) == len(c.token_ids)
    decoded = engine.tokenizer.decode(c.token_ids, skip_special_tokens=True)
    assert decoded.startswith(c.text)  # the last token may run past the stop string


@pytest.mark.slow
def test_length_finish_and_eos_masking(engine):
    (r,) = engine.generate(CONVS[:1], SamplingParams(temperature=0, max_new_tokens=5, stop=()))
    assert r.completions[0].finish_reason == "length" and len(r.completions[0].token_ids) == 5
    # rows that end early are padded with pad == eos; their length stops at the first eos
    eos = engine.tokenizer.eos_token_id
    results = engine.generate(
        CONVS * 4, SamplingParams(temperature=1.5, max_new_tokens=40, seed=0, stop=())
    )
    for r in results:
        ids = r.completions[0].token_ids
        assert eos not in ids[:-1]
        assert (ids[-1] == eos) == (r.completions[0].finish_reason == "stop")


@pytest.mark.slow
def test_n_samples_and_seed_reproducibility(engine):
    params = SamplingParams(temperature=1.0, max_new_tokens=16, n=3, seed=11, stop=())
    a = engine.generate(CONVS, params)
    b = engine.generate(CONVS, params)
    assert [len(r.completions) for r in a] == [3, 3, 3]
    assert [[c.token_ids for c in r.completions] for r in a] == [
        [c.token_ids for c in r.completions] for r in b
    ]
    assert len({tuple(c.token_ids) for c in a[0].completions}) > 1
    c = engine.generate(
        CONVS, SamplingParams(temperature=1.0, max_new_tokens=16, n=3, seed=12, stop=())
    )
    assert [x.completions[0].token_ids for x in a] != [x.completions[0].token_ids for x in c]
    assert a[0].completion_tokens == sum(len(x.token_ids) for x in a[0].completions)


def test_seeded_call_leaves_global_rng_alone(engine):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    engine.generate(CONVS[:1], SamplingParams(max_new_tokens=4, seed=9))
    assert torch.equal(torch.rand(3), expected)


def test_bad_requests_are_errors_not_exceptions(engine):
    too_long = [{"role": "user", "content": "onion " * 9000}]  # past the 4,096-token context
    broken = [{"content": "no role"}]
    results = engine.generate(
        [CONVS[0], too_long, broken], SamplingParams(temperature=0, max_new_tokens=4)
    )
    assert results[0].ok and results[0].completions
    assert "prompt too long" in results[1].error and not results[1].completions
    assert "chat template failed" in results[2].error


def test_weights_updated_in_place_change_outputs(engine):
    params = SamplingParams(temperature=0, max_new_tokens=8, stop=())
    before = engine.generate(CONVS[:1], params)[0].completions[0].token_ids
    lm_head = engine.model.get_output_embeddings().weight
    saved = lm_head.detach().clone()
    try:
        with torch.no_grad():
            lm_head[before[0]] *= -10.0  # an in-place update, as an optimizer step makes
        after = engine.generate(CONVS[:1], params)[0].completions[0].token_ids
        assert after[0] != before[0]
    finally:
        with torch.no_grad():
            lm_head.copy_(saved)
