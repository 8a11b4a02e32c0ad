"""Cut a trajectory into windows of K consecutive decisions of the profiled seat.

Why: a window (K = 3 in CollabBench C.1) is long enough to show a reasoning pattern and short
enough to embed, cluster and judge; a shorter tail is dropped, as in the paper.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from collabrl.pipeline.players import Trajectory


@dataclass
class Window:
    """K decisions (think, message, sent, action) of one seat, with where they came from."""

    id: str
    trajectory: str
    game: str
    task: str
    source: str
    index: int
    steps: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Window:
        return cls(**record)

    def embedding_text(self) -> str:
        """Reasoning, message and action of each decision, joined (the text that is embedded)."""
        return "\n".join(
            f"{s['think']} {s['message']} {s['action'] or 'no valid action'}" for s in self.steps
        )

    def prompt_text(self) -> str:
        """The window laid out for an LLM reader (summariser or judge)."""
        blocks = []
        for n, s in enumerate(self.steps, 1):
            said = "sent" if s["sent"] else "written but not sent"
            blocks.append(
                f"Decision {n}\n"
                f"  Reasoning: {s['think'] or '(none)'}\n"
                f"  Message ({said}): {s['message'] or '(none)'}\n"
                f"  Action: {s['action'] or '(invalid reply, no action)'}"
            )
        return "\n".join(blocks)


def segment(traj: Trajectory, size: int) -> list[Window]:
    """Non-overlapping windows of ``size`` decisions of ``traj.seat``; the short tail is dropped."""
    keys = ("think", "message", "sent", "action")
    own = [{k: t[k] for k in keys} for t in traj.turns if t["seat"] == traj.seat]
    return [
        Window(
            f"{traj.id}-w{i // size}",
            traj.id,
            traj.game,
            traj.task,
            traj.source,
            i // size,
            own[i : i + size],
        )
        for i in range(0, len(own) - size + 1, size)
    ]
