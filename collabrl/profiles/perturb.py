"""Training profiles from held-out ones: shift one or two non-defining traits and add the habit that shift implies.

The held-out sentence describes only the player type's defining habits, so the added sentence
(from the phrase banks below, written per game) extends it without contradicting it.
"""

from __future__ import annotations

import random

from collabrl.profiles.schema import TRAITS, TYPE_ANCHORS, Profile

# (trait, new level) -> habits a player at that level shows, as verb phrases after "they".
PHRASES: dict[str, dict[tuple[str, str], tuple[str, ...]]] = {
    "household": {
        ("openness", "high"): (
            "wander into unexplored rooms before finishing the current one, curious about what is there",
            "try unlikely containers such as the bathroom cabinet on a hunch",
            "suggest a new way to divide the search whenever the first plan stalls",
        ),
        ("openness", "medium"): (
            "look into an unusual room now and then but mostly keep to the obvious places",
            "give a partner's new idea one try before going back to their own route",
        ),
        ("openness", "low"): (
            "search the rooms in the same order every time and wave off suggestions to change it",
            "open only the containers where such objects usually live",
        ),
        ("conscientiousness", "high"): (
            "close each container after checking it and keep a running list of what is where",
            "reread the goal before every put action to make sure the counts are right",
        ),
        ("conscientiousness", "medium"): (
            "keep track of most finds but sometimes reopen a container they already checked",
            "finish most subgoals they start, though an item occasionally ends up left in another room",
        ),
        ("conscientiousness", "low"): (
            "drop half-done searches to chase something else and forget which cabinets they opened",
            "pick up objects that are not in the goal and carry them around for a while",
        ),
        ("extraversion", "high"): (
            "post a message almost every turn, narrating each room they walk into",
            "chat about plans with the partner even when nothing has changed",
        ),
        ("extraversion", "medium"): (
            "send a message when they find something or finish a subgoal and otherwise stay quiet",
            "answer questions promptly but seldom start a conversation",
        ),
        ("extraversion", "low"): (
            "go many turns without a message and answer questions in a word or two",
            "speak up only when they are completely stuck",
        ),
        ("agreeableness", "high"): (
            "change course as soon as the partner asks and thank them for every update",
            "offer to carry the partner's spare item to the goal spot",
        ),
        ("agreeableness", "medium"): (
            "follow reasonable requests but say so when they think their own route is faster",
            "go along with most suggestions after a short question about why",
        ),
        ("agreeableness", "low"): (
            "brush off requests that clash with their own plan, sometimes curtly",
            "grab objects the partner has already announced they are fetching",
        ),
        ("neuroticism", "high"): (
            "ask for confirmation before putting anything away, worried it might be wrong",
            "send uneasy messages when a room turns up empty, asking whether something was missed",
        ),
        ("neuroticism", "medium"): (
            "get a little tense when the episode runs long and ask for a quick progress check",
            "reopen a container once if a search comes up empty",
        ),
        ("neuroticism", "low"): (
            "stay relaxed when a search fails and simply move on to the next room",
            "shrug off their own mistakes and keep an easy tone in messages",
        ),
    },
    "kitchen": {
        ("openness", "high"): (
            "experiment with new routines, such as staging onions on a counter near the pot",
            "propose swapping roles halfway through just to see if it goes faster",
        ),
        ("openness", "medium"): (
            "try a partner's suggested routine for a round before settling back into their own",
            "change their routine only when the current one is clearly failing",
        ),
        ("openness", "low"): (
            "repeat exactly the same onion-pot-dish cycle every round",
            "stick to one dispenser and one pot even when another would be closer",
        ),
        ("conscientiousness", "high"): (
            "keep an eye on the cooking countdown and never carry a dish too early",
            "clear up stray items from the counters before starting the next soup",
        ),
        ("conscientiousness", "medium"): (
            "mostly follow the cycle but sometimes fetch a dish before the soup is anywhere near ready",
            "lose track of how many onions are in the pot now and then",
        ),
        ("conscientiousness", "low"): (
            "leave onions lying on counters and forget which pot they were filling",
            "sometimes grab a dish when no soup is cooking and have to put it down again",
        ),
        ("extraversion", "high"): (
            "send a message almost every other skill, commenting on the pot and the score",
            "cheer out loud for every delivered soup",
        ),
        ("extraversion", "medium"): (
            "message when a pot fills or a soup is served and otherwise keep cooking",
            "reply to the partner quickly but rarely open a conversation themselves",
        ),
        ("extraversion", "low"): (
            "go long stretches without a message and answer in a word or two",
            "speak only when the kitchen is completely stuck",
        ),
        ("agreeableness", "high"): (
            "switch jobs at once when the partner asks and thank them after each handoff",
            "step aside so the partner can reach the pot first",
        ),
        ("agreeableness", "medium"): (
            "follow most requests but push back when they think their own order is quicker",
            "accept the partner's plan after asking a short question about it",
        ),
        ("agreeableness", "low"): (
            "ignore requests that get in the way of what they were already doing",
            "take the onion or dish the partner was reaching for",
        ),
        ("neuroticism", "high"): (
            "get flustered when the pot sits half full and ask the partner what went wrong",
            "worry aloud about an empty dish reaching the serving window",
        ),
        ("neuroticism", "medium"): (
            "grow a bit tense near the end of an episode and ask for a quick check on the pots",
            "hesitate for a moment after a mistake before getting back into the cycle",
        ),
        ("neuroticism", "low"): (
            "stay unbothered by collisions or a burnt-out plan and simply carry on",
            "keep a calm, easy tone even when the score falls behind",
        ),
    },
}
_ONE = (
    "They also {a}.",
    "On top of that, they {a}.",
    "In addition, they {a}.",
    "Beyond that, they {a}.",
)
_TWO = (
    "They also {a}; on top of that, they {b}.",
    "In addition, they {a}; they also {b}.",
    "Beyond that, they {a}; they also tend to {b}.",
)
_NEIGHBOURS = {
    "low": ("medium",),
    "medium": ("low", "high"),
    "high": ("medium",),
    "unknown": ("low", "medium", "high"),
}


def perturb(
    source: Profile, *, new_id: str, task: str, split: str, rng: random.Random, taken: set[str]
) -> Profile:
    """A new profile for ``task``: ``source`` with one or two free traits moved one level.

    ``taken`` holds behaviours already used; the result's behaviour is new and is added to it.
    """
    free = [t for t in TRAITS if t not in TYPE_ANCHORS[source.player_type]]
    levels = source.big_five.model_dump()
    for _ in range(200):
        changed = {
            t: rng.choice(_NEIGHBOURS[levels[t]]) for t in rng.sample(free, rng.choice((1, 2)))
        }
        phrases = [rng.choice(PHRASES[source.game][item]) for item in changed.items()]
        lead = rng.choice(_ONE if len(phrases) == 1 else _TWO)
        behavior = f"{source.behavior} {lead.format(a=phrases[0], b=phrases[-1])}"
        if behavior not in taken and len(behavior) <= 420:
            break
    else:
        raise RuntimeError(f"no fresh perturbation left for {source.id}")
    taken.add(behavior)
    return Profile.model_validate(
        {
            **source.model_dump(),
            "id": new_id,
            "task": task,
            "split": split,
            "big_five": {**levels, **changed},
            "behavior": behavior,
            "provenance": f"perturbed:{source.id}",
        }
    )
