"""What one seat knows: explored rooms, seen fixtures, object locations, teammates it has met.

Beliefs change only through the seat's own eyes (its room, containers open there). Messages are
dialogue and never enter these beliefs: a seat may act only on what it has seen, as in CWAH, so
objects a teammate moves elsewhere stay where the seat last saw them until it looks again.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PartnerView:
    """A teammate as this seat last saw it (same room): where, what it carried, when."""

    room: int | None = None
    holding: tuple[int, ...] = ()
    seen_tick: int | None = None


@dataclass
class SeatMind:
    """One seat's beliefs about the world, built from its own observations only."""

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
        """A teammate in the same room: remember where it was and what it carried."""
        view = self.partners[name]
        view.room, view.holding, view.seen_tick = room, holding, tick
        for obj in holding:
            self.where[obj] = name
