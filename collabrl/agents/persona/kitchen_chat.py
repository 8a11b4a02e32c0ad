"""Read kitchen chat: which job (onions or dishes) a teammate asks of the listener or claims.

The kitchen has two jobs worth dividing: supplying onions and handling dishes (fetch, fill,
serve). A request ("could you bring a dish?", "you handle the onions") asks the listener to take a
job; a claim ("I'll do the dishes") takes one, which leaves the other job to the listener.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from collabrl.envs.structures import Speech

SENTENCE = re.compile(r"[.!?;\n]+")
CLAUSE = re.compile(r",|\b(?:and|while|then)\b(?=\s+(?:i\b|i'll|i'm|let me|you\b))")
JOB_WORDS = {
    "onion": re.compile(r"\bonions?\b"),
    "dish": re.compile(r"\b(dish|dishes|plate|plates|bowl|bowls|serve|serving|deliver\w*)\b"),
}
REQUEST = re.compile(
    r"\b(can you|could you|would you|will you|please|you should|you handle|you do|you take|"
    r"you bring|you get|you grab|you keep|you focus|you cover|you're on|you are on)\b"
)
CLAIM = re.compile(r"\b(i'll|i will|let me|i'm on|i am on|i'll take|i take|i handle|i can)\b")
NEGATION = re.compile(r"\b(don't|do not|won't|will not|not|no more|stop)\b")
OTHER = {"onion": "dish", "dish": "onion"}


def _jobs(clause: str) -> list[str]:
    return [job for job, words in JOB_WORDS.items() if words.search(clause)]


def job_acts(text: str) -> list[tuple[str, str]]:
    """("request", job) and ("claim", job) pairs of a chat line, in the order it says them."""
    acts: list[tuple[str, str]] = []
    for sentence in SENTENCE.split(text.lower()):
        for clause in CLAUSE.split(sentence):
            jobs = _jobs(clause)
            if not jobs or NEGATION.search(clause):
                continue
            if REQUEST.search(clause):
                acts.extend(("request", job) for job in jobs)
            elif CLAIM.search(clause) and len(jobs) == 1:
                acts.append(("claim", jobs[0]))
    return acts


def jobs_for_listener(text: str) -> list[str]:
    """Jobs a chat line hands to its reader, in order: requested ones, then ones left by claims."""
    wanted = [job if act == "request" else OTHER[job] for act, job in job_acts(text)]
    return list(dict.fromkeys(wanted))


def speech_reader(layout: str) -> Callable[[str], Speech]:
    """Claims and requests of kitchen chat as the jobs the process trace's work names (the same
    reading on every layout)."""

    def read(text: str) -> Speech:
        acts = job_acts(text)
        return Speech(
            claims=tuple(job for act, job in acts if act == "claim"),
            requests=tuple(job for act, job in acts if act == "request"),
        )

    return read
