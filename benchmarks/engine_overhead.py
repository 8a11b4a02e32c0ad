"""Engine overhead: transformers engine vs bare ``model.generate`` on the same prompts (goal:
ratio <= 1.05), and OpenAI engine throughput vs its concurrency bound on a fixed-latency fake
server, at each concurrency asked for (goal: ratio >= 0.95 at 16 and 64).

The fake server runs in a process of its own, as a real model server does: in this process its
threads would compete with the client for one interpreter lock and measure both at once. Each
concurrency level reports the TCP connections the server accepted over all its calls: an engine
that keeps its client between calls opens about ``concurrency`` of them once.

Run: ``python benchmarks/engine_overhead.py [--model DIR] [--concurrency 16 64]`` (default model:
a fresh tiny "small" one). Times are the best of several interleaved repeats, to resist noise from
other processes.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

from collabrl.engines import GenerationResult, SamplingParams, make_engine
from collabrl.engines.hf import TransformersEngine
from collabrl.models.tiny import make_tiny_model
from collabrl.testing.fake_openai import FakeOpenAIServer


def best_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def prompts(count: int) -> list[list[dict[str, str]]]:
    rooms = ["kitchen", "garden", "hallway", "bedroom"]
    return [
        [
            {"role": "system", "content": "You play a cooperative cooking game with a partner."},
            {"role": "user", "content": f"Step {i}: you are in the {rooms[i % 4]}. " * (1 + i % 3)},
        ]
        for i in range(count)
    ]


def transformers_ratio(model_dir: str, batch: int, new_tokens: int, repeats: int) -> float:
    engine = TransformersEngine.from_pretrained(model_dir)
    convs = prompts(batch)
    params = SamplingParams(temperature=0, max_new_tokens=new_tokens)
    tok = engine.tokenizer
    enc = tok.pad(
        {"input_ids": [engine.encode(c) for c in convs]}, padding=True, return_tensors="pt"
    )

    def bare() -> torch.Tensor:
        out = engine.model.generate(
            **enc,
            max_new_tokens=new_tokens,
            do_sample=False,
            stop_strings=list(params.stop),
            tokenizer=tok,
            pad_token_id=tok.pad_token_id,
        )
        assert isinstance(out, torch.Tensor)  # the token ids alone: no return_dict_in_generate
        return out

    def ours() -> list[GenerationResult]:
        return engine.generate(convs, params)

    same = bare()[:, enc["input_ids"].shape[1] :].tolist()
    got = [r.completions[0].token_ids or [] for r in ours()]  # a policy engine fills them
    assert all(row[: len(g)] == g for row, g in zip(same, got, strict=True)), "outputs differ"
    t_bare = t_ours = float("inf")
    for _ in range(repeats):  # interleave so drifting machine load hits both alike
        t_bare = min(t_bare, best_time(bare, 1))
        t_ours = min(t_ours, best_time(ours, 1))
    tokens = sum(len(g) for g in got)
    print(
        f"transformers: batch {batch}, {tokens} new tokens: bare {t_bare:.3f}s, engine {t_ours:.3f}s"
    )
    return t_ours / t_bare


def _serve(latency_s: float, address: multiprocessing.Queue, stats: multiprocessing.Queue) -> None:
    """The fake server's process: sends its URL, serves until told to stop, sends its counts."""
    with FakeOpenAIServer(latency_s=latency_s) as server:
        address.put(server.base_url)
        address.get()  # blocks until the benchmark is done
        stats.put({"connections": server.connections, "max_in_flight": server.max_in_flight})


@contextmanager
def fake_server(latency_s: float) -> Iterator[dict[str, int]]:
    """A fake server in its own process, its URL in the environment; yields a dict that holds
    the server's counts once the block ends."""
    spawn = multiprocessing.get_context("spawn")
    address, stats = spawn.Queue(), spawn.Queue()
    process = spawn.Process(target=_serve, args=(latency_s, address, stats), daemon=True)
    process.start()
    os.environ["COLLABRL_OPENAI_BASE_URL"] = address.get(timeout=60)
    counts: dict[str, int] = {}
    try:
        yield counts
    finally:
        address.put("stop")
        counts.update(stats.get(timeout=60))
        process.join(timeout=10)


def openai_ratio(requests: int, concurrency: int, latency_s: float, repeats: int) -> float:
    with fake_server(latency_s) as server:
        engine = make_engine({"backend": "openai", "model": "fake", "concurrency": concurrency})
        convs = prompts(requests)
        engine.generate(convs[:concurrency], SamplingParams())  # warm up
        wall = best_time(lambda: engine.generate(convs, SamplingParams()), repeats)
        engine.close()
    bound = concurrency / latency_s
    rate = requests / wall
    print(
        f"openai: {requests} requests x {repeats + 1} calls, concurrency {concurrency}, latency "
        f"{latency_s}s: {rate:.1f} req/s vs bound {bound:.1f} req/s (max in flight "
        f"{server['max_in_flight']}, {server['connections']} connections opened)"
    )
    return rate / bound


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="HF model folder (default: fresh tiny 'small' model)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--new-tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--requests-per-slot", type=int, default=16, help="requests / concurrency")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--latency", type=float, default=0.1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model or str(make_tiny_model(tmp, seed=0, size="small"))
        hf = transformers_ratio(model_dir, args.batch, args.new_tokens, args.repeats)
    oa = {c: openai_ratio(c * args.requests_per_slot, c, args.latency, 3) for c in args.concurrency}
    print(f"transformers engine / bare generate wall time: {hf:.3f} (goal <= 1.05)")
    for c, ratio in oa.items():
        print(f"openai throughput / concurrency bound at {c:>3}:  {ratio:.3f} (goal >= 0.95)")


if __name__ == "__main__":
    main()
