"""Server latency of ``collabrl serve`` under N concurrent scripted human seats.

Each client is a scripted "person" on loopback: it starts an episode over HTTP
(``POST /api/sessions``), connects the seat's WebSocket and plays the household expert's choice at
every decision beside a persona partner, at a human-like pace cap (``--rate`` decisions per
second). Latency per decision = from sending the decision to receiving the next state in which
it is this seat's turn again (or the episode is over): the partner's turn, the game steps and
the push included. At the end every finished episode's record is read back: each decision the
clients sent must be there. Goal: p95 under 50 ms at 20 concurrent sessions on a 2-core machine.

    python benchmarks/serve_latency.py [--sessions 20] [--episodes 1] [--rate 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import websockets

from collabrl.agents.protocol import parse_observed
from collabrl.config import load_recipe
from collabrl.envs.household.expert import HouseholdExpert
from collabrl.web.serve_app import Limits, make_serve_app
from collabrl.web.server import background

TOKEN = "bench"
PARTNERS = [
    "cwah-0_read_book-test-01",
    "cwah-0_read_book-test-02",
    "cwah-0_read_book-test-03",
    "cwah-0_read_book-test-04",
]
GOAL_P95_MS = 50.0


async def client(base: str, app, rate: float, latencies: list[float]) -> tuple[str, int]:
    """Play one episode as the human seat; returns (session id, decisions sent)."""
    async with httpx.AsyncClient() as http:
        data = (await http.post(f"{base}/api/sessions?token={TOKEN}")).json()
    sid, (seat, path) = data["session"], next(iter(data["seats"].items()))
    session = app.state.sessions.by_id[sid]
    me = HouseholdExpert()
    me.reset(seat, session.seed)
    sent = 0
    url = base.replace("http", "ws") + path.replace("/play/", "/ws/")
    async with websockets.connect(url) as ws:
        state = json.loads(await ws.recv())
        while not state["done"]:
            if not state["your_turn"]:
                state = json.loads(await ws.recv())
                continue
            obs = session.seats[seat].obs
            parsed = parse_observed(me.act(obs), obs)
            await asyncio.sleep(1 / rate)  # the person's thinking time (not measured)
            t0, before = time.perf_counter(), state["version"]
            decision = {"type": "decide", "action": parsed.action, "message": parsed.message}
            await ws.send(json.dumps(decision))
            while True:
                state = json.loads(await ws.recv())
                if state["type"] == "error":
                    raise RuntimeError(state["message"])
                if state["version"] > before and (state["your_turn"] or state["done"]):
                    break
            latencies.append(time.perf_counter() - t0)
            sent += 1
    return sid, sent


async def run(sessions: int, episodes: int, rate: float, out: Path) -> dict:
    recipe = load_recipe("household_human", ["players.1.profile=" + PARTNERS[0]])
    app = make_serve_app(recipe, out, TOKEN, Limits(episode_burst=sessions * episodes + 1))
    latencies: list[float] = []
    with background(app) as base:
        t0 = time.perf_counter()
        results = []
        for _ in range(episodes):
            results += await asyncio.gather(
                *(client(base, app, rate, latencies) for _ in range(sessions))
            )
        wall = time.perf_counter() - t0
    recorded = {}
    for line in (out / "trajectories.jsonl").read_text().splitlines():
        record = json.loads(line)
        recorded[record["stamp"]["session"]] = sum(t["player"] == "human" for t in record["turns"])
    lost = sum(sent - recorded.get(sid, 0) for sid, sent in results)
    ms = np.array(latencies) * 1000
    return {
        "sessions": sessions,
        "episodes": len(results),
        "decisions": len(latencies),
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "max_ms": float(ms.max()),
        "lost": lost,
        "wall_s": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--episodes", type=int, default=1, help="episodes per client")
    parser.add_argument("--rate", type=float, default=10.0, help="max decisions/s per client")
    args = parser.parse_args()
    print("| sessions | episodes | decisions | p50 ms | p95 ms | max ms | lost | wall s |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    ok = True
    for n in args.sessions:
        with tempfile.TemporaryDirectory() as tmp:
            r = asyncio.run(run(n, args.episodes, args.rate, Path(tmp)))
        print(
            f"| {r['sessions']} | {r['episodes']} | {r['decisions']} | {r['p50_ms']:.1f} | "
            f"{r['p95_ms']:.1f} | {r['max_ms']:.1f} | {r['lost']} | {r['wall_s']:.1f} |",
            flush=True,
        )
        ok &= r["lost"] == 0 and (n < 20 or r["p95_ms"] < GOAL_P95_MS)
    print(
        f"goal (p95 < {GOAL_P95_MS:.0f} ms at 20 sessions, nothing lost): "
        f"{'met' if ok else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
