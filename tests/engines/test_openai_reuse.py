"""The OpenAI-compatible engine keeps one event loop and one HTTP client for its life: connections
opened by one call serve the next ones (counted on the fake server's side)."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from collabrl.engines import SamplingParams
from collabrl.engines.openai_compat import OpenAIEngine, OpenAIOptions
from collabrl.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def server(monkeypatch):
    with FakeOpenAIServer(latency_s=0.02) as srv:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", srv.base_url)
        yield srv


def convs(n: int, tag: str = "q") -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": f"{tag}{i}"}] for i in range(n)]


@pytest.mark.parametrize("concurrency", [1, 4, 16])
def test_calls_reuse_the_connections_of_earlier_calls(server, concurrency):
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=concurrency))
    for round_ in range(3):  # rollout rounds, judge batches: one engine, many calls
        results = engine.generate(convs(3 * concurrency, f"r{round_}-"), SamplingParams())
        assert all(r.ok for r in results)
    assert server.requests == 9 * concurrency
    assert server.max_in_flight == concurrency
    assert server.connections == concurrency  # opened once, by the first call
    engine.close()


def test_close_then_generate_opens_a_new_client(server):
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=2))
    assert all(r.ok for r in engine.generate(convs(4), SamplingParams()))
    engine.close()
    assert all(r.ok for r in engine.generate(convs(4), SamplingParams()))
    assert server.connections == 4
    engine.close()


def test_a_new_server_url_gets_a_new_client(server, monkeypatch):
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=2))
    engine.generate(convs(2), SamplingParams())
    with FakeOpenAIServer() as other:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", other.base_url)
        assert all(r.ok for r in engine.generate(convs(3), SamplingParams()))
        assert other.requests == 3 and server.requests == 2
    engine.close()


def test_threads_and_running_loops_share_the_engine(server):
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=4))
    results: dict[int, list] = {}

    def call(k: int) -> None:  # the training judge calls from worker threads
        results[k] = engine.generate(convs(6, f"t{k}-"), SamplingParams())

    threads = [threading.Thread(target=call, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    async def inside_a_loop():  # a notebook or an async caller
        return await engine.agenerate(convs(2), SamplingParams())

    awaited = asyncio.run(inside_a_loop())
    assert all(r.ok for batch in [*results.values(), awaited] for r in batch)
    assert [r.text.split("heard: ")[1][:4] for r in results[1]] == [f"t1-{i}" for i in range(6)]
    assert server.max_in_flight <= 3 * 4  # each call bounds its own requests in flight
    engine.close()


def test_an_engine_dropped_without_close_releases_its_loop_and_connections(server, recwarn):
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=2))
    assert all(r.ok for r in engine.generate(convs(2), SamplingParams()))
    name = engine._loop.name
    assert any(t.name == name for t in threading.enumerate())
    del engine
    gc.collect()
    assert not any(t.name == name for t in threading.enumerate())
    assert not [w for w in recwarn if "nclosed" in str(w.message)]


@pytest.fixture
def no_proxy_env(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


def test_requests_go_through_the_proxy_the_environment_names(server, no_proxy_env):
    """A cluster's egress proxy: the fake server answers proxied requests for any host."""
    no_proxy_env.setenv("COLLABRL_OPENAI_BASE_URL", "http://models.example.invalid/v1")
    no_proxy_env.setenv("http_proxy", server.base_url.removesuffix("/v1"))
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=2, max_retries=0))
    assert all(r.ok for r in engine.generate(convs(3), SamplingParams()))
    assert server.requests == 3
    engine.close()


def test_hosts_in_no_proxy_are_reached_directly(server, no_proxy_env):
    no_proxy_env.setenv("http_proxy", "http://127.0.0.1:9")  # nothing listens there
    no_proxy_env.setenv("no_proxy", "127.0.0.1")
    engine = OpenAIEngine("fake", OpenAIOptions(concurrency=2, max_retries=0))
    assert all(r.ok for r in engine.generate(convs(3), SamplingParams()))
    assert server.requests == 3
    engine.close()
