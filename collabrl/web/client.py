"""A small client of the human-seat protocol (``docs/human-seat-protocol.md``): play a seat of a
``collabrl serve`` server from Python, for tests, bots and a lab's own front end.

    seats = start_episode("http://127.0.0.1:8000", token)      # seat -> page URL
    with SeatClient(seats["Alice"]) as seat:
        final = seat.play(lambda state: (state["observation"]["actions"][0]["action"], ""))

Decisions are action texts (as offered), never letters; the server checks each one as it checks
a page's, and a refusal comes back as :class:`DecisionRefused` with the server's reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from collabrl.engines.retry import Backoff
from collabrl.errors import CollabrlError
from collabrl.web.session import EPISODE_FIELDS, PROTOCOL

RATE_BACKOFF = Backoff(base_s=0.05, cap_s=1.0)  # the server's decision bucket refills in ms
State = dict[str, Any]
Chooser = Callable[[State], tuple[str, str]]  # state -> (action, message)


class ProtocolError(CollabrlError):
    """The server speaks another protocol version, or sent something this client cannot read."""


class DecisionRefused(CollabrlError):
    """The server refused a decision (not this seat's turn, unknown action, ...); ``code`` is the
    protocol's error code."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code


class AlreadyTaken(DecisionRefused):
    """The server had taken this decision already (a resend): nothing more happened."""


def start_episode(base_url: str, token: str, timeout: float = 30.0) -> dict[str, str]:
    """Start a new episode on the server at ``base_url``; its human seats' page URLs by seat."""
    import httpx

    reply = httpx.post(
        f"{base_url.rstrip('/')}/api/sessions", params={"token": token}, timeout=timeout
    )
    if reply.status_code != 200:
        raise ProtocolError(
            f"starting an episode failed: HTTP {reply.status_code} {reply.text.strip()}"
        )
    data = reply.json()
    _check_version(data.get("protocol"))
    return {seat: urljoin(base_url, path) for seat, path in data["seats"].items()}


def socket_url(page_url: str) -> str:
    """The WebSocket URL of a seat from its page URL (``/play/<sid>/<seat>`` -> ``/ws/...``)."""
    parts = urlsplit(page_url)
    if not parts.path.startswith("/play/"):
        raise ProtocolError(f"not a seat page URL: {page_url}")
    scheme = "wss" if parts.scheme == "https" else "ws"
    path = "/ws/" + parts.path.removeprefix("/play/")
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


class SeatClient:
    """One seat's connection: the states the server pushes, the decisions this side takes."""

    def __init__(self, page_url: str, timeout: float = 30.0, retries: int = 50) -> None:
        from websockets.sync.client import connect

        self.timeout = timeout
        self.retries = retries  # attempts of a decision the server refused as too fast
        self._open = ExitStack()
        self.socket = self._open.enter_context(connect(socket_url(page_url), open_timeout=timeout))
        self.state: State | None = None  # the latest state received, with the episode's setup
        self.setup: State = {}  # the episode's fields (EPISODE_FIELDS) as last sent
        self.chat: list[dict[str, Any]] = []  # every message so far (states send new ones)

    def __enter__(self) -> SeatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._open.close()

    def next_state(self) -> State:
        """The next state the server pushes, with the episode's setup the server sent once and
        the whole chat (so every state reads whole); raises :class:`DecisionRefused` on an error
        reply."""
        try:
            message = json.loads(self.socket.recv(timeout=self.timeout))
        except (json.JSONDecodeError, TypeError) as exc:
            raise ProtocolError(f"the server sent a message that is not JSON: {exc}") from None
        if message.get("type") == "error":
            raise DecisionRefused(str(message.get("message")), str(message.get("code")))
        if message.get("type") != "state":
            raise ProtocolError(f"unknown message type {message.get('type')!r}")
        _check_version(message.get("protocol"))
        self.setup.update((key, message[key]) for key in EPISODE_FIELDS if key in message)
        self.chat += message["chat"]
        self.state = {**self.setup, **message, "chat": list(self.chat)}
        return self.state

    def wait_for_turn(self) -> State:
        """States until this seat is owed a decision or the episode is over."""
        state = self.state if self.state is not None else self.next_state()
        while not (state["your_turn"] or state["done"]):
            state = self.next_state()
        return state

    def decide(self, action: str, message: str = "") -> State:
        """Take a decision on the observation of the latest state; the first state after it
        (or :class:`DecisionRefused`). The decision names the observation's tick, so the server
        refuses it if that observation is gone, and states pushed before it was taken are
        skipped."""
        if self.state is None or self.state["observation"] is None:
            raise DecisionRefused("no observation to decide on: wait for your turn first")
        tick = self.state["observation"]["tick"]
        decision = json.dumps(
            {"type": "decide", "action": action, "message": message, "tick": tick}
        )
        try:
            state = self._send(decision)
        except AlreadyTaken:
            return self.state  # the state that followed it was received (or is on its way)
        while state["your_turn"] and state["observation"]["tick"] == tick and not state["done"]:
            state = self.next_state()
        return state

    def _send(self, decision: str) -> State:
        """Send a decision and read the reply, waiting and resending while the server says the
        seat decides too fast (up to ``retries`` attempts)."""
        for attempt in range(self.retries):
            self.socket.send(decision)
            try:
                return self.next_state()
            except DecisionRefused as refused:
                if refused.code == "duplicate":  # a resend of a decision already taken
                    raise AlreadyTaken(str(refused), refused.code) from None
                if refused.code != "rate" or attempt == self.retries - 1:
                    raise
                time.sleep(RATE_BACKOFF.delay(attempt))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def play(self, choose: Chooser) -> State:
        """Play to the end of the episode, ``choose`` deciding from each state; the final state."""
        state = self.wait_for_turn()
        while not state["done"]:
            action, message = choose(state)
            self.decide(action, message)
            state = self.wait_for_turn()
        return state


def _check_version(version: object) -> None:
    if version != PROTOCOL:
        raise ProtocolError(
            f"the server speaks human-seat protocol {version!r}; this client speaks {PROTOCOL} "
            "(install the collabrl version the server runs)"
        )
