"""Load on ``collabrl study serve``: N concurrent scripted participants through a whole study.

Each client is a scripted person on loopback speaking only HTTP and WebSocket, like a browser:
it joins (``POST /api/join``), follows its study page socket (consent, intake survey,
instructions), plays each round on the game socket (the first offered action, a short message
every fifth decision, at most ``--rate`` decisions per second), rates each round and reads its
completion code. Latency per decision = from sending it to the next game state in which it is
this seat's turn again or the round is over (the agent's move, the game step, the database
writes and the push included); latency per page = from submitting a page to the next page.

At the end the study is exported and every client's count is checked against ``events.jsonl``:
each decision, message, rating and intake answer the clients sent must be there (nothing lost),
and every participant must have completed.

    python benchmarks/study_load.py [--participants 50] [--rate 5] [--ticks 100] [--fast-writes]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np
import websockets

from collabrl.study.app import Limits, make_study_app
from collabrl.study.compile import compile_study
from collabrl.study.db import open_database
from collabrl.study.export import export_study
from collabrl.study.load import load_study
from collabrl.study.runtime import StudyRuntime
from collabrl.web.server import background

STUDY = "paper_user_study_cpu"
ITEMS = ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")


class Page:
    """The latest page pushed on a participant's study socket (read by a background task)."""

    def __init__(self, ws) -> None:
        self.ws, self.view, self.changed = ws, None, asyncio.Condition()

    async def read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if msg["type"] == "error":
                raise RuntimeError(msg["message"])
            async with self.changed:
                self.view = msg
                self.changed.notify_all()

    async def until(self, test) -> dict:
        async with self.changed:
            await self.changed.wait_for(lambda: self.view is not None and test(self.view))
            return self.view


async def play(base: str, token: str, view: dict, rate: float, latencies: list, sent: Counter):
    """One round on the game socket, until the round is over."""
    path = "/" + view["game"]["url"].replace("play/", "ws/", 1)  # the page's socket
    url = base.replace("http", "ws") + f"{path}?token={token}"
    async with websockets.connect(url) as ws:
        state = json.loads(await ws.recv())
        while not state["done"]:
            if not state["your_turn"]:
                state = json.loads(await ws.recv())
                continue
            await asyncio.sleep(1 / rate)  # the person's thinking time (not measured)
            talk = sent["decision"] % 5 == 4
            action = (
                state["observation"]["message_action"]
                if talk
                else state["observation"]["actions"][0]["action"]
            )
            message = f"step {sent['decision']}: heading on" if talk else ""
            t0, before = time.perf_counter(), state["version"]
            await ws.send(json.dumps({"type": "decide", "action": action, "message": message}))
            while True:
                state = json.loads(await ws.recv())
                if state["type"] == "error":
                    raise RuntimeError(state["message"])
                if state["version"] > before and (state["your_turn"] or state["done"]):
                    break
            latencies.append(time.perf_counter() - t0)
            sent["decision"] += 1
            sent["message"] += talk


async def participant(base: str, key: str, rate: float, lat: dict) -> tuple[str, Counter]:
    """One scripted participant through the whole study; (participant id, what it sent)."""
    async with httpx.AsyncClient() as http:
        me = (await http.post(f"{base}/api/join?key={key}")).json()
    sent: Counter = Counter()
    async with websockets.connect(base.replace("http", "ws") + me["socket"]) as ws:
        page = Page(ws)
        reader = asyncio.create_task(page.read())
        view = await page.until(lambda v: True)
        while view["kind"] != "end":
            node, payload = view["node"], None
            if view["kind"] == "consent":
                payload = {"agree": True}
            elif view["kind"] == "survey":
                payload = {"answers": {"gaming": "weekly", "ai_familiarity": 4}}
                sent["answers"] += 1
            elif view["kind"] == "text":
                payload = {}
            elif view.get("phase") == "play":
                await play(base, me["token"], view, rate, lat["decision"], sent)
            elif view.get("phase") == "rate":
                payload = {"ratings": dict.fromkeys(ITEMS, 4), "free_text": "fine"}
                sent["questionnaire"] += 1
            t0 = time.perf_counter()
            if payload is not None:
                await ws.send(json.dumps({"type": "submit", "node": node, **payload}))
            view = await page.until(lambda v, node=node: v["node"] != node)
            if payload is not None:
                lat["page"].append(time.perf_counter() - t0)
        reader.cancel()
    assert view["code"], "no completion code"
    return me["participant"], sent


async def run(participants: int, rate: float, ticks: int, durable: bool, folder: Path) -> dict:
    compiled = compile_study(load_study(STUDY, [f"game.max_ticks={ticks}"]))
    db = open_database(compiled.loaded, folder / "study.sqlite", durable)
    app = make_study_app(StudyRuntime(compiled, db), "admin", Limits(join_burst=participants))
    lat: dict[str, list[float]] = {"decision": [], "page": []}
    with background(app) as base:
        t0 = time.perf_counter()
        results = await asyncio.gather(
            *(participant(base, app.state.join_key, rate, lat) for _ in range(participants))
        )
        wall = time.perf_counter() - t0
    info = export_study(compiled.loaded, db, folder / "export")
    events = [json.loads(line) for line in (folder / "export" / "events.jsonl").open()]
    recorded: dict[str, Counter] = {}
    for e in events:
        by_participant = e["kind"] != "decision" or e["data"]["by"] == "participant"
        if e["pid"] and by_participant and (e["kind"] != "message" or e["data"]["by"] == "human"):
            recorded.setdefault(e["pid"], Counter())[e["kind"]] += 1
    lost = sum(
        max(0, n - recorded.get(pid, Counter())[kind])
        for pid, sent in results
        for kind, n in sent.items()
    )
    db.close()
    ms = {k: np.array(v) * 1000 for k, v in lat.items()}
    return {
        "participants": participants,
        "completed": info["counts"]["completed"],
        "decisions": len(lat["decision"]),
        "events": len(events),
        "p50_ms": float(np.percentile(ms["decision"], 50)),
        "p95_ms": float(np.percentile(ms["decision"], 95)),
        "page_p95_ms": float(np.percentile(ms["page"], 95)),
        "max_ms": float(ms["decision"].max()),
        "lost": lost,
        "wall_s": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=50)
    parser.add_argument("--rate", type=float, default=5.0, help="max decisions/s per client")
    parser.add_argument("--ticks", type=int, default=100, help="game.max_ticks of every round")
    parser.add_argument(
        "--fast-writes", action="store_true", help="SQLite synchronous=NORMAL (serve's flag)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(
            run(args.participants, args.rate, args.ticks, not args.fast_writes, Path(tmp))
        )
    print(
        "| participants | completed | decisions | events | decision p50 ms | decision p95 ms "
        "| decision max ms | page p95 ms | lost | wall s |"
    )
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    print(
        f"| {r['participants']} | {r['completed']} | {r['decisions']} | {r['events']} | "
        f"{r['p50_ms']:.1f} | {r['p95_ms']:.1f} | {r['max_ms']:.1f} | {r['page_p95_ms']:.1f} | "
        f"{r['lost']} | {r['wall_s']:.1f} |"
    )
    ok = r["lost"] == 0 and r["completed"] == r["participants"]
    print(f"every event in the export, every participant completed: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
