"""How simulated participants answer the questionnaire after a round.

``persona``: a rule-based answer model. What a participant could observe of the round becomes
four numbers in [0, 1] (the game's efficiency of the episode; the share of the agent's decisions
that were messages, saturating at a quarter; how often the agent answered the participant's
messages within ten ticks; the share of the agent's messages with warm or encouraging words) and
valid moves; each dimension mixes them (helpfulness: mostly efficiency; trustfulness: updates
and replies; empathy: warmth and replies), then the profile shifts the rating (agreeable raters
rate higher, neurotic ones lower) and seeded noise spreads it. A plausibility model for piloting
a protocol, not a validated model of people.

``llm``: an LLM asked in character (the profile's persona paragraph), shown the round's outcome
and chat, answers ``item: point`` lines; items it leaves unusable fall back to the persona
model, and the number that did is counted.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from collabrl.agents.persona.temperament import stable_seed, trait_degree
from collabrl.envs.base import sends_message
from collabrl.profiles import Profile
from collabrl.study.live.views import fill
from collabrl.study.spec.schema import Answers, Questionnaire

WARM = re.compile(
    r"\b(thanks?|thank you|great|nice|good job|well done|please|let'?s|together|don'?t worry|"
    r"no worries|sorry|awesome|glad|we can|we've|we'll|you got this|good idea)\b|!",
    re.IGNORECASE,
)
REPLY_WINDOW = 10  # ticks within which an agent message counts as a reply
TALK_SATURATION = 0.25  # a message in a quarter of the decisions is "talks enough"
NOISE = 0.07


@dataclass(frozen=True)
class RoundFacts:
    """What a participant saw of one round, each in [0, 1]."""

    efficiency: float
    talk: float
    replies: float
    warmth: float
    valid: float


def round_facts(
    record: dict[str, Any], efficiency: float, me: str, agents: list[str], action: str
) -> RoundFacts:
    """The facts of a trajectory record from seat ``me``'s side (``action``: the game's message
    action)."""
    turns = record["turns"]
    theirs = [t for t in turns if t["seat"] in agents]
    said = [t for t in theirs if sends_message(t["action"], t["message"], action)]
    mine = [
        t["tick"]
        for t in turns
        if t["seat"] == me and sends_message(t["action"], t["message"], action)
    ]
    replied = [any(0 < t["tick"] - tick <= REPLY_WINDOW for t in said) for tick in mine]
    talk = min(1.0, (len(said) / len(theirs) if theirs else 0.0) / TALK_SATURATION)
    return RoundFacts(
        efficiency=max(0.0, min(1.0, efficiency)),
        talk=talk,
        replies=sum(replied) / len(replied) if replied else talk,
        warmth=sum(bool(WARM.search(t["message"])) for t in said) / len(said) if said else 0.0,
        valid=sum(t["valid"] for t in theirs) / len(theirs) if theirs else 0.0,
    )


def latent(dimension: str, f: RoundFacts) -> float:
    """The 0..1 impression a dimension is rated from."""
    mixes = {
        "helpfulness": 0.55 * f.efficiency + 0.25 * f.valid + 0.2 * f.talk,
        "trustfulness": 0.45 * f.talk + 0.35 * f.replies + 0.2 * f.valid,
        "empathy": 0.5 * f.warmth + 0.3 * f.replies + 0.2 * f.talk,
    }
    return mixes.get(dimension, sum(mixes.values()) / len(mixes))


def persona_ratings(
    questionnaire: Questionnaire, facts: RoundFacts, profile: Profile | None, seed: str
) -> dict[str, int]:
    """Every item's rating by the rule-based answer model."""
    bias = 0.0
    if profile is not None:
        bias = 0.15 * (trait_degree(profile, "agreeableness") - 0.5)
        bias -= 0.15 * (trait_degree(profile, "neuroticism") - 0.5)
    rng = random.Random(stable_seed(seed))
    out = {}
    for item in questionnaire.items:
        x = min(1.0, max(0.0, latent(item.dimension, facts) + bias + rng.gauss(0, NOISE)))
        out[item.id] = int(round(1 + (item.points - 1) * x))
    return out


def llm_prompt(
    questionnaire: Questionnaire,
    profile: Profile | None,
    record: dict[str, Any],
    partner: str,
    action: str,
) -> list[dict[str, str]]:
    """The chat asking an LLM, in character, for one rating per item."""
    summary = record["summary"]
    chat = [
        f"- {t['seat']}: {t['message']}"
        for t in record["turns"]
        if sends_message(t["action"], t["message"], action)
    ][-30:]
    who = profile.persona() if profile is not None else "An ordinary study participant."
    items = "\n".join(
        f"{i.id}: {fill(i.text, {'partner': partner})} (1 = {i.labels[0]}, {i.points} = "
        f"{i.labels[1]})"
        for i in questionnaire.items
    )
    outcome = "finished the task" if summary.get("success") else "did not finish the task"
    return [
        {"role": "system", "content": f"You are a participant in a user study. {who}"},
        {
            "role": "user",
            "content": (
                f"You just played a cooperative game with a teammate called {partner}. The team "
                f"{outcome} in {summary.get('steps', summary.get('ticks'))} steps. The chat:\n"
                + ("\n".join(chat) or "(no messages)")
                + f"\n\nRate each statement, staying in character. Answer one line per item, "
                f"exactly as `id: number`.\n{items}"
            ),
        },
    ]


def parse_ratings(text: str, questionnaire: Questionnaire) -> dict[str, int]:
    """The usable ``id: number`` lines of an LLM's reply (others are left out)."""
    found = {}
    for item in questionnaire.items:
        match = re.search(rf"\b{re.escape(item.id)}\s*[:=]\s*(\d+)", text)
        if match and 1 <= int(match.group(1)) <= item.points:
            found[item.id] = int(match.group(1))
    return found


class AnswerModel:
    """Answers the questionnaire for simulated participants (``pretest.answers``)."""

    def __init__(self, spec: Answers, questionnaire: Questionnaire, engines) -> None:
        self.spec, self.questionnaire, self.engines = spec, questionnaire, engines
        self.fallbacks = 0  # LLM items that fell back to the persona model

    def answer(
        self,
        facts: RoundFacts,
        profile: Profile | None,
        record: dict[str, Any],
        partner: str,
        action: str,
        seed: str,
    ) -> dict[str, int]:
        ratings = persona_ratings(self.questionnaire, facts, profile, seed)
        if self.spec.kind == "persona":
            return ratings
        from collabrl.factory import sampling_params

        engine = self.engines.get(self.spec.engine)
        params = sampling_params(self.spec.sampling, stable_seed(seed))
        conversation = llm_prompt(self.questionnaire, profile, record, partner, action)
        result = engine.generate([conversation], params)[0]
        text = result.completions[0].text if result.completions else ""
        given = parse_ratings(text, self.questionnaire)
        self.fallbacks += len(ratings) - len(given)
        return {**ratings, **given}
