"""Load on ``collabrl study serve``: N concurrent scripted participants through a whole study.

The server is ``collabrl study serve`` in a process of its own (``--workers`` of them), as a
lab runs it; the clients run in ``--client-processes`` other processes (2 by default, each its
own event loop, so that a busy client loop is not counted as server latency). Each client is a scripted person on loopback
speaking only HTTP and WebSocket, like a browser: it joins (``POST /api/join``, following the
redirect to the worker that takes it, and again after a 429 of the join rate limit), follows
its study page socket (consent, intake survey, instructions; a ``moved`` page reconnects to the
worker that hosts its group), plays each round on the game socket (the first offered action, a
short message every fifth decision), rates each round and reads its completion code, at a
person's pace: before each decision and each page it submits it thinks for a random 50-150% of
``1/--rate`` seconds (2 s on average), so that people who joined together drift apart as they
would. Latency per decision = from sending it
to the next game state in which it is this seat's turn again or the round is over (the agent's
move, the game step, the database writes and the push included); latency per page = from
submitting a page to the next page.

At the end the study is exported and every client's count is checked against ``events.jsonl``:
each decision, message, rating and intake answer the clients sent must be there (nothing lost),
and every participant must have completed.

``--db postgres`` starts a throwaway PostgreSQL server in a temporary folder
(:mod:`collabrl.study.store.pgcluster`, PostgreSQL's durable defaults) and stops it at the end.

    python benchmarks/study_load.py [--participants 50] [--rate 0.5] [--ticks 100]
        [--db sqlite|postgres] [--workers 1] [--fast-writes] [--profile DIR]
        [--client-processes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, cast

import httpx
import numpy as np
import websockets

from collabrl.study.results.export import export_study
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database
from collabrl.study.store.pgcluster import ThrowawayCluster

STUDY = "paper_user_study_cpu"
ITEMS = ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")
ADMIN = "load-benchmark-admin"


class Moved(Exception):
    """The participant's page was told to go on at another worker (its ``base`` address)."""

    def __init__(self, base: str) -> None:
        self.base = base


class Page:
    """The latest page pushed on a participant's study socket (read by a background task)."""

    def __init__(self, ws) -> None:
        self.ws, self.view, self.changed = ws, None, asyncio.Condition()
        self.moved: str | None = None

    async def read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if msg["type"] == "error":
                raise RuntimeError(msg["message"])
            if msg["type"] == "moved":
                self.moved = msg["base"]
                msg = {"kind": "moved", "node": None}  # wakes the waiting client
            async with self.changed:
                self.view = msg
                self.changed.notify_all()

    async def until(self, test) -> dict:
        async with self.changed:
            await self.changed.wait_for(lambda: self.view is not None and test(self.view))
            assert self.view is not None
            return self.view


async def think(rate: float) -> None:
    """A person's time to decide: 50-150% of ``1/rate`` seconds."""
    await asyncio.sleep(random.uniform(0.5, 1.5) / rate)


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
            await think(rate)  # not measured
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


async def join(base: str, key: str) -> tuple[dict, str]:
    """Join (again after a 429: the server lets so many in per second); (the join's answer,
    the address of the worker that took it)."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=60) as http:
        while True:
            response = await http.post(f"{base}/api/join?key={key}")
            if response.status_code != 429:
                response.raise_for_status()
                return response.json(), f"{response.url.scheme}://{response.url.netloc.decode()}"
            await asyncio.sleep(1.0)


async def participant(base: str, key: str, rate: float, lat: dict) -> tuple[str, Counter]:
    """One scripted participant through the whole study; (participant id, what it sent)."""
    me, base = await join(base, key)
    sent: Counter = Counter()
    view: dict = {"kind": ""}
    while view["kind"] != "end":
        try:
            view = await pages(base, me, rate, lat, sent)
        except Moved as moved:
            base = moved.base
    assert view["code"], "no completion code"
    return me["participant"], sent


async def pages(base: str, me: dict, rate: float, lat: dict, sent: Counter) -> dict:
    """The participant's pages at worker ``base`` until the end page (raises Moved)."""
    async with websockets.connect(base.replace("http", "ws") + me["socket"]) as ws:
        page = Page(ws)
        reader = asyncio.create_task(page.read())
        try:
            view = await page.until(lambda v: True)
            while True:
                if page.moved:
                    raise Moved(page.moved)
                if view["kind"] == "end":
                    return view
                node, payload = view["node"], cast("dict[str, Any] | None", None)
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
                if payload is not None:
                    await think(rate)  # reading the page (not measured)
                t0 = time.perf_counter()
                if payload is not None:
                    await ws.send(json.dumps({"type": "submit", "node": node, **payload}))
                view = await page.until(lambda v, node=node: v["node"] != node)
                if payload is not None and not page.moved:
                    lat["page"].append(time.perf_counter() - t0)
        finally:
            reader.cancel()


def start_server(folder: Path, args: argparse.Namespace, env: dict[str, str]):
    """``collabrl study serve`` in its own process(es); (the process, worker 0's address, the
    join key) once every worker has printed its participant link."""
    cmd = [sys.executable, "-m", "collabrl", "study", "serve", STUDY]
    cmd += [f"game.max_ticks={args.ticks}", f"output_dir={folder}", "--workers", str(args.workers)]
    cmd += ["--joins-per-s", str(args.joins_per_s)] + ["--fast-writes"] * args.fast_writes
    log = folder / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    pattern = re.compile(r"participant link: open (http://[^/]+)\S*/join\?key=(\S+)")
    while len(links := pattern.findall(log.read_text())) < args.workers:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped before it served: {log.read_text()[-2000:]}")
        time.sleep(0.1)
    return server, links[0][0], links[0][1]


async def wait_for(base: str) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(200):
            try:
                await http.get(f"{base}/join")
                return
            except httpx.TransportError:
                await asyncio.sleep(0.1)


async def drive(base: str, key: str, participants: int, rate: float) -> tuple[list, dict]:
    """``participants`` clients at once in this process; (what each sent, latencies)."""
    lat: dict[str, list[float]] = {"decision": [], "page": []}
    results = await asyncio.gather(
        *(participant(base, key, rate, lat) for _ in range(participants))
    )
    return results, lat


def client_process(base: str, key: str, participants: int, rate: float, seed: int):
    """One client process's share of the participants (its own thinking times)."""
    random.seed(seed)
    return asyncio.run(drive(base, key, participants, rate))


def drive_all(args: argparse.Namespace, base: str, key: str) -> tuple[list, dict, float]:
    """Every participant, spread over ``--client-processes`` processes of their own, so that
    one client event loop's backlog is not measured as the server's latency."""
    asyncio.run(wait_for(base))
    time.sleep(1.0)  # every worker up
    k = max(1, min(args.client_processes, args.participants))
    shares = [args.participants // k + (i < args.participants % k) for i in range(k)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(k, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(client_process, [base] * k, [key] * k, shares, [args.rate] * k,
                              range(k)))  # fmt: skip
    wall = time.perf_counter() - t0
    results = [r for part, _ in parts for r in part]
    lat = {kind: [x for _, part in parts for x in part[kind]] for kind in ("decision", "page")}
    return results, lat, wall


def profile(server: subprocess.Popen, folder: Path, stack: ExitStack) -> None:
    """py-spy records every server process (the workers are the server's children)."""
    pids = [server.pid, *map(int, subprocess.run(
        ["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split())]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    for pid in pids:
        spy = subprocess.Popen(
            ["py-spy", "record", "-p", str(pid), "-f", "speedscope", "-r", "50",
             "-o", str(folder / f"server-{pid}.json")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        stack.callback(spy.wait, 60)
        stack.callback(spy.send_signal, signal.SIGINT)


def run(args: argparse.Namespace, folder: Path) -> dict:
    compiled = compile_study(
        load_study(STUDY, [f"game.max_ticks={args.ticks}", f"output_dir={folder}"])
    )
    env = {**os.environ, "COLLABRL_ADMIN_TOKEN": ADMIN}
    with ExitStack() as stack:
        if args.db == "postgres":
            pg_folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="collabrl-pg-"))
            cluster = stack.enter_context(ThrowawayCluster(Path(pg_folder)))
            env["COLLABRL_STUDY_DB"] = cluster.new_database()
        location = env.get("COLLABRL_STUDY_DB") or folder / "study.sqlite"
        server, base, key = start_server(folder, args, env)
        try:
            if args.profile:
                profile(server, Path(args.profile), stack)
            results, lat, wall = drive_all(args, base, key)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
        db = open_database(compiled.loaded, location, writing=False)
        info = export_study(compiled.loaded, db, folder / "export")
        db.close()
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
    ms = {k: np.array(v) * 1000 for k, v in lat.items()}
    return {
        "participants": args.participants,
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
    parser.add_argument(
        "--rate", type=float, default=0.5, help="decisions/s per client (0.5: one every 2 s)"
    )
    parser.add_argument("--ticks", type=int, default=100, help="game.max_ticks of every round")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite",
                        help="postgres: a throwaway PostgreSQL server started for the run")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, help="serve --workers")
    parser.add_argument("--joins-per-s", type=float, default=50.0, help="serve --joins-per-s")
    parser.add_argument("--fast-writes", action="store_true", help="serve --fast-writes (SQLite)")
    parser.add_argument("--profile", default=None, help="py-spy profiles of the server into DIR")
    parser.add_argument("--client-processes", type=int, default=2,
                        help="processes the clients are spread over (each its own event loop)")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = run(args, Path(tmp))
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
