"""Build :class:`StepView` records for one seat from what it observed and what it answered.

Why here: training rollouts and evaluation both hold, per seat, the observations it was given and
the parsed decisions it made; turning those into judge inputs (new partner lines, the seat's own
news, its earlier messages) must happen the same way in both, or rewards and metrics disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from collabrl.envs.base import Observation, sends_message
from collabrl.rewards.judges.records import StepView
from collabrl.rewards.judges.signals import dialogue, own_events


class Decided(Protocol):
    """The parsed parts of a decision (``collabrl.episode.Turn`` fits)."""

    think: str
    message: str
    action: str | None
    valid: bool


def step_views(
    game: str,
    observations: Sequence[Observation],
    decisions: Sequence[Decided],
    *,
    message_action: str,
    partner_profile: str = "",
) -> list[StepView]:
    """One view per decision of a single seat, in time order (``observations[i]`` led to
    ``decisions[i]``)."""
    if len(observations) != len(decisions):
        raise ValueError(f"{len(observations)} observations but {len(decisions)} decisions")
    views: list[StepView] = []
    seen: set[tuple[int, str, str]] = set()
    sent: list[str] = []
    prev_state, prev_action = None, None
    for obs, dec in zip(observations, decisions, strict=True):
        lines = dialogue(obs.state)
        new = [line for line in lines if line not in seen]
        heard = tuple((who, text) for _, who, text in new if who != obs.seat)
        seen.update(lines)
        sent_now = sends_message(dec.action, dec.message, message_action)
        views.append(
            StepView(
                game=game,
                seat=obs.seat,
                tick=obs.tick,
                observation=obs.text,
                think=dec.think,
                message=dec.message,
                action=dec.action,
                valid=dec.valid,
                sent_message=sent_now,
                partner_profile=partner_profile,
                heard=heard,
                events=tuple(own_events(game, prev_state, obs.state, prev_action)),
                own_messages_before=tuple(sent),
                state=obs.state,
            )
        )
        if sent_now:
            sent.append(dec.message)
        prev_state, prev_action = obs.state, dec.action
    return views
