"""The released code's reading of an unusable reply (``game.unusable_reply: released``).

The paper's protocol is strict: a reply without a usable action idles the seat one tick and the
step is flagged invalid (``idle``, collabrl's default). The released CWAH parser instead salvages
such a reply: an action that shares a word with what the reply's ``<action>`` (or, without one,
the whole reply) says is executed, and failing that a random listed action is. The step stays
flagged invalid either way, so the format penalty and the invalid counts are unchanged; only
what the seat does differs. The random pick is seeded by the episode, the seat and the decision,
so a run is reproducible.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from collabrl.agents.protocol import Parsed, is_template, normalise
from collabrl.envs.base import Observation
from collabrl.envs.registry import UnusableReply as UnusableReply

_ACTION_RE = re.compile(r"<\s*action\s*>(.*?)(?:<\s*/\s*action\s*>|$)", re.IGNORECASE | re.DOTALL)
MAX_WORDS = 200  # words of the reply compared with the actions (a bounded cost per reply)


def _concrete(obs: Observation, message: str) -> list[str]:
    """The listed actions a seat can execute as written: templates such as ``wait(x)`` are
    left out, and the message action when there is no message to send."""
    usable = [a for a in obs.actions if not is_template(a)]
    if obs.message_action and not message.strip():
        usable = [a for a in usable if a != obs.message_action]
    return usable


def salvage(parsed: Parsed, response: str, obs: Observation, rng: random.Random) -> Parsed:
    """``parsed`` with the released code's action when it has none: the listed action sharing
    the most words with the reply's ``<action>`` text (the whole reply without one; the first
    listed wins a tie), else a random listed action; still invalid, with a note in ``errors``."""
    if parsed.action is not None:
        return parsed
    candidates = _concrete(obs, parsed.message)
    if not candidates:
        return parsed
    tagged = _ACTION_RE.search(response)
    words = set(normalise(tagged.group(1) if tagged else response).split()[:MAX_WORDS])
    shared = [len(words & set(normalise(a).split())) for a in candidates]
    best = max(shared)
    if best:
        chosen, how = candidates[shared.index(best)], "a word match"
    else:
        chosen, how = rng.choice(candidates), "a random listed action"
    note = f"unusable reply: {chosen!r} executed ({how}, game.unusable_reply=released)"
    return replace(parsed, action=chosen, valid=False, errors=[*parsed.errors, note])
