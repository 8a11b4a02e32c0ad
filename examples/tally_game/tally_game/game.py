"""Tally: seats take turns adding to one shared counter that must end exactly on a hidden total.

The smallest complete collabrl game, written from ``docs/game-contract.md`` alone.

Each seat holds a secret number; the total is the sum of all secrets. The seats take turns, one
decision per tick (seat 0, seat 1, ...). On its turn a seat may add 1 or 2 to the tally, say
``finish`` (the team claims the tally is right), or send a message (it costs the turn). Nobody
can know the total without hearing the others' secrets, so the team must talk before it counts.

- Action space: ``add(1)``, ``add(2)``, ``finish``, ``[send_message]``; all four are offered on
  every turn, lettered A-D.
- Observation: the goal, the seat's secret, the tally, the clock, the last messages, the actions.
  ``state`` holds the same as data: ``seats``, ``secret``, ``tally``, ``dialogue``.
- Reward: 0 every step (collabrl's trainer scores episodes through the section's ``efficiency``).
- Episode end: ``finish`` with the tally equal to the total (success), ``finish`` on a wrong
  tally or a tally past the total (failure: "wrong total"), or ``max_ticks`` ticks ("time up").
- Summary: ``task``, ``success``, ``steps`` (the success tick, else ``max_ticks``), ``ticks``,
  ``outcome``, per-seat ``decisions`` / ``invalid`` / ``messages``, and the process ``trace``.
- Arguments: ``task`` (a task name, see :mod:`tally_game.tasks`), ``seats``, ``max_ticks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from collabrl.envs.base import (
    Decision,
    Observation,
    StepResult,
    lettered,
    message_text,
    sends_message,
)
from collabrl.envs.structures import Trace
from tally_game.tasks import get_task

VERSION = 1
TIME_LIMIT = 30  # ticks per episode
ADD_ONE, ADD_TWO, FINISH, MESSAGE = "add(1)", "add(2)", "finish", "[send_message]"
ACTIONS = [ADD_ONE, ADD_TWO, FINISH, MESSAGE]
STEP_OF = {ADD_ONE: 1, ADD_TWO: 2}
SHOWN_MESSAGES = 5  # the observation shows the last five messages
SUCCESS, WRONG, TIME_UP = "success", "wrong total", "time up"


class TallyGame:
    """One episode of tally (see the module docstring for the rules)."""

    name = "tally"
    message_action = MESSAGE

    def __init__(self, task: str, seats: Sequence[str], max_ticks: int = TIME_LIMIT) -> None:
        self.task = get_task(task)
        if len(seats) != len(self.task.secrets):
            raise ValueError(f"tally task {task!r} takes {len(self.task.secrets)} seats")
        self.agents = list(seats)
        self.max_ticks = max_ticks
        self.reset()

    # ------------------------------------------------------------------ the Game protocol
    def reset(self, seed: int | None = None) -> dict[str, Observation]:
        """Start over; the game has no randomness, so ``seed`` changes nothing."""
        self.tick = 0
        self.tally = 0
        self.outcome: str | None = None
        self.success_tick: int | None = None
        self.dialogue: list[tuple[int, str, str]] = []
        self.counts = {
            key: dict.fromkeys(self.agents, 0) for key in ("decisions", "invalid", "messages")
        }
        self.trace = Trace()
        return {self.turn: self.observe(self.turn)}

    @property
    def turn(self) -> str:
        return self.agents[self.tick % len(self.agents)]

    @property
    def done(self) -> bool:
        return self.outcome is not None

    @property
    def progress(self) -> int:
        """Units counted so far that still fit under the total."""
        return min(self.tally, self.task.total)

    def intro(self, seat: str) -> str:
        return (
            f"You are {seat} in a game of tally with {', '.join(a for a in self.agents if a != seat)}. "
            "Each player holds a secret number; together you must bring the shared tally to "
            "exactly the sum of all secrets, then finish. Players take turns; on your turn add 1 "
            "or 2, say finish, or send a message (it uses your turn). Finishing on a wrong tally, "
            f"or going past the total, loses; so does running out of the {self.max_ticks} ticks."
        )

    def step(self, decisions: Mapping[str, Decision]) -> StepResult:
        if self.done:
            raise RuntimeError("the episode is over; call reset first")
        seat = self.turn
        decision = decisions.get(seat, Decision(None, valid=False))
        info = self._apply(seat, decision)
        self.tick += 1
        if not self.done and self.tick >= self.max_ticks:
            self.outcome = TIME_UP
        done = self.done
        return StepResult(
            observations={} if done else {self.turn: self.observe(self.turn)},
            rewards=dict.fromkeys(self.agents, 0.0),
            terminations=dict.fromkeys(self.agents, done and self.outcome != TIME_UP),
            truncations=dict.fromkeys(self.agents, done and self.outcome == TIME_UP),
            infos={a: (info if a == seat else {}) for a in self.agents},
        )

    def summary(self) -> dict[str, Any]:
        success = self.outcome == SUCCESS
        return {
            "task": self.task.name,
            "success": success,
            "steps": self.success_tick if self.success_tick is not None else self.max_ticks,
            "ticks": self.tick,
            "outcome": self.outcome or "running",
            **{key: dict(counts) for key, counts in self.counts.items()},
            "trace": self.trace.records(),
        }

    # ------------------------------------------------------------------ rules
    def _apply(self, seat: str, decision: Decision) -> dict[str, Any]:
        self.counts["decisions"][seat] += 1
        action = decision.action
        usable = action in ACTIONS and (action != MESSAGE or bool(message_text(decision.message)))
        if not usable:
            self.counts["invalid"][seat] += 1
            self.trace.add(self.tick, seat, "invalid")
            return {"invalid": True, "action": None, "reason": "not an offered action"}
        if not decision.valid:
            self.counts["invalid"][seat] += 1
        if sends_message(action, decision.message, MESSAGE):
            text = message_text(decision.message)
            self.counts["messages"][seat] += 1
            self.dialogue.append((self.tick, seat, text))
            self.trace.add(self.tick, seat, "message", text=text)
        elif action == FINISH:
            right = self.tally == self.task.total
            self.outcome = SUCCESS if right else WRONG
            self.success_tick = self.tick + 1 if right else None
        else:
            self.tally += STEP_OF[action]
            self.trace.work(
                self.tick, seat, f"count:{self.tally}", wasted=self.tally > self.task.total
            )
            if self.tally > self.task.total:
                self.outcome = WRONG
        return {"invalid": not decision.valid, "action": action}

    def observe(self, seat: str) -> Observation:
        secret = self.task.secrets[self.agents.index(seat)]
        recent = self.dialogue[-SHOWN_MESSAGES:]
        lines = [
            "Goal: bring the tally to exactly the sum of everyone's secret numbers, then finish.",
            f"Your secret number: {secret}",
            f"Tally: {self.tally} (tick {self.tick} of {self.max_ticks})",
            f"Messages (last {SHOWN_MESSAGES}):",
            *([f"- {who} (tick {t}): {text}" for t, who, text in recent] or ["- none yet"]),
            "Available actions:",
            lettered(ACTIONS),
        ]
        heard = tuple(sorted({who for _, who, _ in self.dialogue if who != seat}))
        return Observation(
            seat=seat,
            tick=self.tick,
            text="\n".join(lines),
            actions=list(ACTIONS),
            anchor=(seat, secret, self.tally, heard),
            state={
                "seats": list(self.agents),
                "secret": secret,
                "tally": self.tally,
                "dialogue": [
                    {"tick": t, "seat": who, "text": text} for t, who, text in self.dialogue
                ],
            },
            message_action=MESSAGE,
        )
