"""Collaboration structures the games share: group memory, approval gates, the process trace.

See :mod:`.layer` for the four structures (``default``, ``memory``, ``gates``, ``scaffolded``)
and how a game plugs them in, :mod:`.board` and :mod:`.gates` for their rules, :mod:`.trace` for
what games record for process metrics, :mod:`.scripted` for what scripted players read.
"""

from collabrl.envs.structures.board import SECTIONS, Board, Entry
from collabrl.envs.structures.gates import (
    REQUEST_TICKS,
    WAIT_TICKS,
    Gates,
    Request,
    check_gate_owners,
)
from collabrl.envs.structures.layer import (
    BOARD_TICKS,
    DECIDE_TICKS,
    EMPTY_ENTRY,
    STRUCTURES,
    Structure,
    Structures,
    Vocabulary,
    default_owner,
    replay_options,
)
from collabrl.envs.structures.scripted import StructureView, organises, pick_owner
from collabrl.envs.structures.trace import EVENT_KINDS, Speech, Trace, TraceEvent

__all__ = [
    "BOARD_TICKS",
    "DECIDE_TICKS",
    "EMPTY_ENTRY",
    "EVENT_KINDS",
    "REQUEST_TICKS",
    "SECTIONS",
    "STRUCTURES",
    "WAIT_TICKS",
    "Board",
    "Entry",
    "Gates",
    "Request",
    "Speech",
    "Structure",
    "StructureView",
    "Structures",
    "Trace",
    "TraceEvent",
    "Vocabulary",
    "check_gate_owners",
    "default_owner",
    "organises",
    "pick_owner",
    "replay_options",
]
