"""A small built-in corpus of game-like text for training the tiny tokenizer offline.

Why: tests and CPU smoke runs need a tokenizer whose merges fit the agent format (tags, action
strings, room names) without downloading anything.
"""

from __future__ import annotations

import itertools

ROOMS = ("kitchen", "bedroom", "bathroom", "living room", "hallway", "garden", "office", "garage")
OBJECTS = ("onion", "tomato", "plate", "pot", "knife", "book", "lamp", "key", "cup", "soup")
ACTIONS = ("pickup({o})", "put({o})", "chop({o})", "cook({o})", "serve({o})", "open({o})")
EXPLORE = ("[goexplore] <{r}> ({n})", "[goto] <{r}> ({n})", "[search] <{r}> ({n})")
THOUGHTS = (
    "I should check the {r} for the {o} first.",
    "My partner is near the {r}, so I will take the {o}.",
    "The {o} is not here; let me ask where it is.",
    "We need one more {o} before we can serve.",
)
MESSAGES = (
    "Can you bring the {o} to the {r}?",
    "I am heading to the {r} now.",
    "Thanks! I found the {o}.",
    "Let's split up: you take the {r}, I take the rest.",
    "",
)
STORY = """
The apartment has a small kitchen with a stove, a sink, a fridge and a wooden counter. Onions,
tomatoes, lettuce, carrots, potatoes, mushrooms, cheese, bread, eggs, rice, noodles and fish wait
in the pantry. Each recipe needs chopped vegetables, a boiling pot or a hot pan, and a clean plate.
Orders arrive every few seconds; a delivered dish earns points, an expired order loses them.
Players explore rooms, open drawers, cabinets, wardrobes, closets, boxes and shelves, and look for
hidden objects: keys, glasses, wallets, phones, remotes, chargers, blankets, pillows, towels,
umbrellas, batteries, scissors, notebooks, pencils, candles, photos and bottles.
A good teammate communicates clearly, shares plans, asks questions, confirms progress, apologises
after mistakes, encourages others, avoids repeating work and adapts when the partner changes plans.
Some partners are open, curious and creative; others prefer routine. Some are conscientious,
organised and careful; others are spontaneous or careless. Extraverted partners talk a lot and
enjoy chatting, while introverted ones answer briefly. Agreeable partners are friendly, patient
and cooperative; disagreeable partners argue, criticise or ignore requests. Neurotic partners
worry, complain and get frustrated quickly; emotionally stable ones stay calm under pressure.
Observation, inventory, position, target, location, direction: north, south, east, west, left,
right, upstairs, downstairs, inside, outside, behind, under, above, near, far, next, between.
Numbers: zero one two three four five six seven eight nine ten eleven twelve twenty hundred.
Time: tick, step, turn, round, minute, second, deadline, remaining, elapsed, finished, waiting.
Feedback: great job, well done, thank you, sorry, no problem, hurry up, slow down, wait for me,
follow me, over here, I've got it, you're welcome, let's go, almost there, we did it, try again.
"""

PLAIN = (
    "You are a helpful agent playing a cooperative game with a human partner.",
    "Observation: you are in the {r}. You see a {o}. Your partner is in the hallway.",
    "Available actions: wait, " + ", ".join(a.format(o="{o}") for a in ACTIONS[:3]) + ".",
    "Answer with <think>...</think><message>...</message><action>...</action>.",
)


def corpus_lines() -> list[str]:
    """Deterministic lines mixing plain observations and full agent responses."""
    lines: list[str] = []
    combos = itertools.product(ROOMS, OBJECTS)
    for n, (r, o) in enumerate(combos):
        think = THOUGHTS[n % len(THOUGHTS)].format(r=r, o=o)
        message = MESSAGES[n % len(MESSAGES)].format(r=r, o=o)
        if n % 2:
            action = ACTIONS[n % len(ACTIONS)].format(o=o)
        else:
            action = EXPLORE[n % len(EXPLORE)].format(r=r, n=n % 20)
        lines.append(
            f"<think>{think}</think>\n<message>{message}</message>\n<action>{action}</action>"
        )
        lines.append(PLAIN[n % len(PLAIN)].format(r=r, o=o))
    lines.extend(line.strip() for line in STORY.strip().splitlines())
    return lines
