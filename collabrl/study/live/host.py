"""What the running study's collaborators need of the runtime that holds them: a small protocol
in place of the whole :class:`~collabrl.study.live.runtime.StudyRuntime`.

Why: the rounds, the rooms, the page views, the state variables and the workers each get the
runtime; typed as the runtime class they would import the module that imports them, a circle.
:class:`StudyHost` names what they share (the study, its database, timers and participants, and
the few moves any of them makes); each collaborator's own protocol adds what it alone calls, so
what a collaborator may touch is written down, and mypy checks that the runtime provides it.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Literal, Protocol

from collabrl.factory import EngineCache
from collabrl.study.live.signals import Deadlines
from collabrl.study.spec.compile import Flow
from collabrl.study.spec.load import LoadedStudy
from collabrl.study.spec.schema import Study
from collabrl.study.store.db import ParticipantChange, ParticipantRow, StudyDB

if TYPE_CHECKING:
    from typing_extensions import Unpack

ReleaseReason = Literal["idle", "page", "match"]
"""Why a participant's session ends early: idle in a round, too long on a page, no match."""


class StudyHost(Protocol):
    """The runtime as its collaborators see it."""

    @property
    def study(self) -> Study: ...

    @property
    def loaded(self) -> LoadedStudy: ...

    @property
    def flow(self) -> Flow: ...

    @property
    def db(self) -> StudyDB: ...

    @property
    def engines(self) -> EngineCache: ...

    @property
    def deadlines(self) -> Deadlines: ...

    @property
    def people(self) -> dict[str, ParticipantRow]: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None: ...

    def node(self, pid: str) -> str: ...

    def is_active(self, pid: str) -> bool: ...

    def notify(self, pid: str) -> None: ...

    def move(self, pid: str, **fields: Unpack[ParticipantChange]) -> None: ...
