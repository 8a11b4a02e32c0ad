"""OpenAI-compatible engine against the in-process fake server: bound, retries, faults, cache."""

from __future__ import annotations

import logging

import pytest

from collabrl.engines import SamplingParams, make_engine
from collabrl.engines.cache import ResponseCache, cache_key
from collabrl.engines.openai_compat import OpenAIEngine, OpenAIOptions
from collabrl.testing.fake_openai import DROP, LINE_BREAKS, FakeOpenAIServer, Fault

SECRET = "sk-test-DO-NOT-LEAK-123"
FAST = {"backoff_base_s": 0.01, "backoff_cap_s": 0.05, "timeout_s": 2.0}


@pytest.fixture
def server(monkeypatch):
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("COLLABRL_OPENAI_API_KEY", SECRET)
        yield srv


def convs(*texts: str) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": t}] for t in texts]


def engine(**options) -> OpenAIEngine:
    return OpenAIEngine("fake-model", OpenAIOptions(**{**FAST, **options}))


def test_reply_shape_and_stop_kept(server):
    (r,) = engine().generate(convs("hello"), SamplingParams(temperature=0))
    assert r.ok and not r.cached
    assert r.text == "<think>ok</think>\n<message>heard: hello</message>\n<action>wait</action>"
    assert r.completions[0].finish_reason == "stop"
    assert r.completions[0].token_ids is None and r.prompt_tokens == 1
    assert server.auth_headers == [f"Bearer {SECRET}"]


def test_length_and_n(server):
    (r,) = engine().generate(convs("hi"), SamplingParams(max_new_tokens=1, n=3, stop=()))
    assert len(r.completions) == 3
    assert all(
        c.finish_reason == "length" and c.text == "<think>ok</think>\n<message>heard:"
        for c in r.completions
    )


def test_concurrency_bound_respected(server):
    server.latency_s = 0.05
    results = engine(concurrency=4).generate(convs(*[f"q{i}" for i in range(20)]), SamplingParams())
    assert all(r.ok for r in results)
    assert [r.text.split("heard: ")[1][:3] for r in results] == [f"q{i}<"[:3] for i in range(20)]
    assert server.max_in_flight == 4


def test_transient_faults_are_retried(server):
    server.inject(
        "flaky",
        Fault.http(429, retry_after=0.01),
        Fault.http(500),
        Fault.http(503),
        Fault.malformed(),
    )
    server.inject("slow", Fault.delay(3.0))  # longer than the client timeout: one timeout, then ok
    results = engine(timeout_s=0.5).generate(convs("flaky", "slow", "fine"), SamplingParams())
    assert [r.error for r in results] == [None, None, None]
    assert server.requests == 5 + 2 + 1


def test_permanent_faults_recorded_per_request(server):
    server.inject("dead", *[Fault.http(503)] * 3)
    server.inject("bad", Fault.http(400))
    server.inject("junk", *[Fault.malformed()] * 3)
    results = engine(max_retries=2).generate(
        convs("dead", "ok1", "bad", "junk", "ok2"), SamplingParams()
    )
    dead, ok1, bad, junk, ok2 = results
    assert ok1.ok and ok2.ok
    assert dead.error.startswith("HTTP 503") and "gave up after 3 attempts" in dead.error
    assert bad.error.startswith("HTTP 400") and "attempts" not in bad.error  # not retried
    assert junk.error.startswith("malformed response")
    assert not dead.completions and dead.text == ""


def test_missing_server_url_is_an_error_per_request(monkeypatch):
    monkeypatch.delenv("COLLABRL_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    results = engine().generate(convs("a", "b"), SamplingParams())
    assert all("no server URL" in r.error for r in results)


def test_cache_hits_avoid_server_and_keep_no_secret(server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    server.inject("flaky", Fault.http(500))
    params = SamplingParams(temperature=0.7, seed=3)
    first = engine(cache_dir=str(tmp_path)).generate(convs("a", "flaky"), params)
    calls = server.requests
    again = engine(cache_dir=str(tmp_path)).generate(convs("a", "flaky"), params)
    assert server.requests == calls == 3
    assert all(r.cached for r in again) and [r.text for r in again] == [r.text for r in first]
    other = engine(cache_dir=str(tmp_path)).generate(
        convs("a"), SamplingParams(temperature=0.5, seed=3)
    )
    assert not other[0].cached and server.requests == calls + 1
    cache_bytes = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert SECRET.encode() not in cache_bytes
    assert "retry" in caplog.text and SECRET not in caplog.text


def test_cache_round_trips_any_python_string(tmp_path):
    hostile = "line\u2028separator, nul\x00, lone \ud800 surrogate"
    request = {"model": "fake-model", "messages": [{"role": "user", "content": hostile}]}
    key = cache_key(request)
    other = {"model": "fake-model", "messages": [{"role": "user", "content": hostile[:-12]}]}
    assert key != cache_key(other) and key == cache_key(dict(reversed(request.items())))
    cache = ResponseCache(tmp_path / "responses.sqlite")
    cache.put(key, {"text": hostile})
    cache.close()
    reopened = ResponseCache(tmp_path / "responses.sqlite")
    assert reopened.get(key) == {"text": hostile} and len(reopened) == 1
    reopened.close()


def test_secret_not_in_repr_and_async_inside_loop(server):
    import asyncio

    eng = engine()
    assert SECRET not in repr(eng) and SECRET not in repr(vars(eng))

    async def main():
        sync_inside_loop = eng.generate(convs("x"), SamplingParams())
        awaited = await eng.agenerate(convs("y"), SamplingParams())
        return sync_inside_loop + awaited

    assert all(r.ok for r in asyncio.run(main()))


def test_make_engine_openai(server):
    eng = make_engine({"backend": "openai", "model": "fake-model", "concurrency": 2, **FAST})
    assert eng.generate(convs("z"), SamplingParams())[0].ok


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault.wrong_types(), "usage.prompt_tokens: Input should be a valid integer"),
        (Fault.patch(usage={"prompt_tokens": -3}), "usage.prompt_tokens: Input should be greater"),
        (Fault.content(123), "choices.0.message.content: Input should be a valid string"),
        (Fault.content(None), "choices.0.message.content: Input should be a valid string"),
        (Fault.content(["a", "b"]), "choices.0.message.content: Input should be a valid string"),
        (Fault.patch(choices=DROP), "missing field 'choices'"),
        (Fault.patch(choices=[]), "choices: List should have at least 1 item"),
        (Fault.patch(choices=[{"finish_reason": "stop"}]), "missing field 'choices.0.message'"),
        (Fault.html(), "Invalid JSON: expected value at line 1 column 1"),
        (Fault.html(502), "HTTP 502: <html> <head><title>502 Bad Gateway</title>"),
        (Fault.line_breaks(503), r'HTTP 503: {"error": {"message": "rejected ( \u001c\r): try'),
    ],
)
def test_odd_but_well_formed_replies_are_recorded_failures(server, fault, error):
    server.inject("odd", fault)
    odd, fine = engine(max_retries=0).generate(convs("odd", "fine"), SamplingParams())
    assert fine.ok and not odd.completions and odd.text == ""
    assert error in odd.error and "gave up after 1 attempts" in odd.error
    assert len(odd.error.splitlines()) == 1 and not set(LINE_BREAKS) & set(odd.error)


def test_unicode_line_breaks_in_content_are_kept_as_text(server):
    server.inject("breaks", Fault.line_breaks())
    (r,) = engine().generate(convs("breaks"), SamplingParams())
    assert r.ok and r.text.startswith(f"<think>ok</think>{LINE_BREAKS}<message>heard: breaks")


def test_keys_quoted_back_by_the_server_are_redacted(server, monkeypatch, tmp_path, caplog):
    other = "sk-proj-abcdefghijklmnopqrstuvwx"  # not configured, but shaped like a key
    monkeypatch.setenv("OPENAI_API_KEY", other)  # a second configured name: also a secret
    server.inject("in-content", Fault.echo_headers(200))
    server.inject("in-error", Fault.echo_headers(500), Fault.echo_headers(401))
    server.responder = lambda messages: f"Authorization: Bearer tok_0123456789 and {other}"
    content, error = engine(max_retries=1, cache_dir=str(tmp_path)).generate(
        convs("in-content", "in-error"), SamplingParams()
    )
    assert server.auth_headers[0] == f"Bearer {SECRET}"  # the key really went out and came back
    assert content.ok and content.text.count("[redacted]") == 3
    assert "Authorization: Bearer [redacted] and [redacted]" in content.text
    assert error.error.startswith("HTTP 401: {") and "[redacted]" in error.error
    logged = caplog.text + "".join(p.read_text("latin-1") for p in tmp_path.iterdir())
    assert "HTTP 500" in caplog.text and "[redacted]" in logged
    for leak in (SECRET, other, "tok_0123456789"):
        assert leak not in content.text + error.error + logged
