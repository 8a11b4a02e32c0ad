"""How a persona sounds: phrase banks per situation and temperament, shared by both games.

Phrases never name rooms, objects or kitchen items, so decorating a message cannot plant a false
claim or request for a teammate's message reader; the game-specific facts are passed in as text.
"""

from __future__ import annotations

import random

from collabrl.agents.persona.temperament import Temperament
from collabrl.agents.persona.wording import SaidLog

# Openers and sign-offs that make a talkative persona's message sound like them.
UPBEAT = (
    "Good news!",
    "Heads up, team!",
    "Update from my side:",
    "Quick one:",
    "Okay, listen up!",
    "Here's the latest:",
)
WARM_ENDINGS = (
    "Thanks, you're doing great!",
    "Shout if you need a hand.",
    "Nice teamwork so far!",
    "We've got this.",
    "Let me know how it goes.",
)
WORRIED_ENDINGS = (
    "I hope that's right...",
    "Fingers crossed.",
    "Tell me if I got something wrong.",
    "I really don't want us to run out of time.",
)
GREETINGS = {
    "warm": (
        "Hi there! Happy to work with you today.",
        "Hello! Let's make this quick and fun.",
        "Hey! Glad to be on your team.",
    ),
    "neutral": ("Hi. Let's get going.", "Hello. Ready when you are.", "Hi, let's start."),
    "blunt": ("Let's just get this done.", "Fine. Starting.", "Okay. Go."),
}
ACCEPT = (
    "Sure, on it!",
    "Of course, happy to.",
    "Okay, doing that now.",
    "Good idea, consider it done.",
    "No problem at all.",
)
REFUSE = (
    "Nah, I'd rather stick with what I'm doing.",
    "I have my own plan, sorry.",
    "You can do that yourself.",
    "Not now, I'm busy.",
)
HESITATIONS = (
    "Hmm, give me a second to think.",
    "Wait... what was I doing again?",
    "Not sure what's best here, one moment.",
    "Uh, let me get my bearings first.",
)
CHEERS = (
    "Keep it up, we're making progress!",
    "Great pace, team!",
    "Almost there, keep going!",
    "Nice, this is going well.",
)

# One think opener per dominant mood; the competent reason follows it.
THINK_OPENERS = {
    "lead": ("I should keep the team organised.", "Someone has to coordinate; that's me."),
    "anxious": ("I'm nervous I've missed something.", "What if the plan is wrong?"),
    "lazy": ("No rush, really.", "I'll get to it eventually."),
    "loner": ("I'll do this my own way.", "Easier if I just handle it myself."),
    "steady": ("Stick to the plan.", "Keep it efficient."),
}


class Voice:
    """Picks phrases for one persona with its seeded rng (so wording is reproducible).

    ``vary``: a phrase already said this episode gives way to a fresh one (:class:`SaidLog`);
    the draw from ``rng`` is the same either way, so the persona's choices do not change."""

    def __init__(self, temperament: Temperament, rng: random.Random, vary: bool = True) -> None:
        self.t = temperament
        self.rng = rng
        self.vary = vary
        self.said = SaidLog()

    def mood(self) -> str:
        """The disposition that colours this persona's inner monologue."""
        t = self.t
        if t.doubt >= 0.3:
            return "anxious"
        if t.leads:
            return "lead"
        if t.dawdle >= 0.2:
            return "lazy"
        if t.comply <= 0.3:
            return "loner"
        return "steady"

    def think(self, reason: str) -> str:
        """Inner monologue: a mood opener, then the reason for the move."""
        return f"{self.rng.choice(THINK_OPENERS[self.mood()])} {reason}".strip()

    def decorate(self, core: str) -> str:
        """Wrap a factual message in this persona's register (talkative: more words)."""
        parts = []
        if self.rng.random() < self.t.wordiness * 0.7:
            parts.append(self.phrase(UPBEAT))
        parts.append(core)
        if self.rng.random() < self.t.doubt:
            parts.append(self.phrase(WORRIED_ENDINGS))
        elif self.rng.random() < self.t.wordiness * self.t.comply * 0.6:
            parts.append(self.phrase(WARM_ENDINGS))
        return " ".join(parts)

    def greeting(self) -> str:
        style = "warm" if self.t.comply >= 0.6 else "blunt" if self.t.comply <= 0.3 else "neutral"
        return self.phrase(GREETINGS[style])

    def accept(self) -> str:
        return self.phrase(ACCEPT)

    def refuse(self) -> str:
        return self.phrase(REFUSE)

    def hesitation(self) -> str:
        return self.phrase(HESITATIONS)

    def cheer(self) -> str | None:
        """Encouragement from a warm persona; a cold one keeps it to itself (None)."""
        return self.phrase(CHEERS) if self.rng.random() < self.t.comply else None

    def phrase(self, bank: tuple[str, ...] | list[str]) -> str:
        """A phrase (or template) of ``bank`` to say: one draw from the rng, kept fresh when
        ``vary`` (game modules keep their own banks of templates)."""
        drawn = self.rng.choice(bank)
        return self.said.fresh(drawn, bank) if self.vary else drawn

    def pick(self, options: tuple[str, ...] | list[str]) -> str:
        """One of ``options``, as drawn: a move or a table, never wording (see :meth:`phrase`)."""
        return self.rng.choice(options)
