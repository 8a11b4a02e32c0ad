"""What a room's chat, document and agents need of the rooms that hold them
(:class:`~collabrl.study.live.rooms.RoomHub`), as a protocol: a module of its own, so the agents'
actions and the chat can both name it without importing each other."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from collabrl.factory import EngineCache
from collabrl.study.spec.chat_agent import ChatAgent
from collabrl.study.spec.schema import Study
from collabrl.study.store.room import Room


class RoomHost(Protocol):
    """What a room's chat and document need of the rooms that hold them
    (:class:`~collabrl.study.live.rooms.RoomHub`): its events, locks, names and texts."""

    @property
    def study(self) -> Study: ...

    @property
    def engines(self) -> EngineCache: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None: ...

    def lock(self, key: str) -> asyncio.Lock: ...

    def filled(self, room: Room, text: str) -> str: ...

    def prompted(self, room: Room, agent: ChatAgent) -> ChatAgent: ...

    def names(self, room: Room, viewer: str | None = None) -> dict[str, str]: ...

    def record_only(
        self, name: str, room: Room, pid: str | None = None, /, **data: Any
    ) -> None: ...

    def record(self, name: str, room: Room, pid: str | None = None, /, **data: Any) -> None: ...

    def failed(self, room: Room, agent: ChatAgent, error: str) -> None: ...

    def notify(self, room: Room) -> None: ...

    def values(self, pid: str) -> dict[str, Any]: ...

    def agent_sets(self, room: Room, name: str, value: str) -> str | None: ...

    async def close(self, key: str, reason: str) -> None: ...

    def quiet_timer(self, room: Room, agent: ChatAgent) -> None: ...
