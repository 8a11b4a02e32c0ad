"""What one seat believes: explored rooms, known fixtures, object locations, teammates' state.

Beliefs change only through the seat's own eyes (its room, containers open there) and through
teammates' messages; objects a teammate moves elsewhere stay where the seat last saw them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from collabrl.envs.household.messages import MessageInfo


@dataclass
class PartnerView:
    """A teammate as this seat knows it: last sighting, the plans it announced, what it asked of us."""

    room: int | None = None
    holding: tuple[int, ...] = ()
    seen_tick: int | None = None
    claims: tuple[tuple[str, int], ...] = ()
    claim_tick: int | None = None
    requests: tuple[tuple[str, int], ...] = ()  # (explore|check|grab|put, id) asked of the listener
    request_tick: int | None = None


@dataclass
class SeatMind:
    """One seat's beliefs about the world."""

    explored: set[int] = field(default_factory=set)
    fixtures: dict[int, bool | None] = field(default_factory=dict)  # id -> open (None: unknown)
    checked: set[int] = field(default_factory=set)  # containers whose inside was seen
    where: dict[int, int | str] = field(default_factory=dict)  # object -> fixture id or holder
    partners: dict[str, PartnerView] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)

    def see_fixture(self, fixture: int, is_open: bool | None, contents: set[int] | None) -> None:
        """Record a fixture; when its inside is visible, replace beliefs about what it holds."""
        self.fixtures[fixture] = is_open
        if contents is None:
            return
        stale = [o for o, at in self.where.items() if at == fixture and o not in contents]
        for obj in stale:
            del self.where[obj]
        for obj in contents:
            self.where[obj] = fixture

    def see_partner(self, name: str, room: int, holding: tuple[int, ...], tick: int) -> None:
        view = self.partners[name]
        view.room, view.holding, view.seen_tick = room, holding, tick
        for obj in holding:
            self.where[obj] = name

    def holds(self, obj: int) -> bool:
        """Whether this seat itself carries ``obj`` (held by a seat that is not a teammate)."""
        at = self.where.get(obj)
        return isinstance(at, str) and at not in self.partners

    def hear(self, speaker: str, info: MessageInfo, tick: int) -> None:
        """Take in a teammate's message (already parsed into ids)."""
        for fixture in info.fixtures:
            self.fixtures.setdefault(fixture, None)
        for obj, fixture in info.locations:
            if not self.holds(obj):  # a stale report never overrides what is in our own hands
                self.where[obj] = fixture
        for obj in info.held:
            self.where[obj] = speaker
        view = self.partners[speaker]
        if info.claims:
            view.claims, view.claim_tick = tuple(info.claims), tick
        if info.requests:
            view.requests, view.request_tick = tuple(info.requests), tick
