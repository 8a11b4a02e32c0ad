"""What one seat believes: explored rooms, known fixtures, object locations, teammates' state.

Beliefs change only through the seat's own eyes (its room, containers open there) and through
teammates' messages; objects a teammate moves elsewhere stay where the seat last saw them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from collabrl.envs.household.messages import MessageInfo


@dataclass
class PartnerView:
    """A teammate as this seat knows it: last sighting and the plans it last announced."""

    room: int | None = None
    holding: tuple[int, ...] = ()
    seen_tick: int | None = None
    claims: tuple[tuple[str, int], ...] = ()
    claim_tick: int | None = None


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

    def hear(self, speaker: str, info: MessageInfo, tick: int) -> None:
        """Take in a teammate's message (already parsed into ids)."""
        for fixture in info.fixtures:
            self.fixtures.setdefault(fixture, None)
        for obj, fixture in info.locations:
            self.where[obj] = fixture
        for obj in info.held:
            self.where[obj] = speaker
        claims = info.claims
        if claims:
            view = self.partners[speaker]
            view.claims, view.claim_tick = tuple(claims), tick
