"""The judge prompts carry every criterion the paper names (appendix C.3.1, E.3, E.4), in our
own words, under new version stamps, and the replies they ask for still parse."""

from __future__ import annotations

import re

import pytest

from collabrl.rewards.judges import DIMENSIONS
from collabrl.rewards.judges.parsing import parse_level, parse_violations
from collabrl.rewards.judges.prompts import load_prompt, step_messages, window_messages
from collabrl.rewards.judges.records import StepView

# Each window judge's criteria as E.4 lists them (C.3.1 names a subset), one phrase each.
WINDOW_CRITERIA = {
    "helpfulness": [
        "task focus",
        "error rate",
        "communication clarity",
        "proactiveness",
        "adaptation",
        "role coverage",
        "cooperation stance",
        "stuck or abnormal",
        "collaboration satisfaction",
        "intent alignment",
        "message quality",
        "usefulness",
        "clarity [message]",
    ],
    "trustfulness": [
        "instruction following",
        "following requests",
        "responsiveness",
        "own plan",
        "synchronization latency",
        "subjective trust",
        "delegation",
        "verifiable commitments",
    ],
    "empathy": [
        "personality inference",
        "partner fit",
        "warmth and resilience",
        "emotional support",
        "ignoring emotional signals",
        "message pragmatics",
    ],
}

# The training judge's (E.3): the observation's four channels, the decision's three, the three
# dimensions' questions, and the three levels with the top level's two-part rule.
INTERACTIVITY_CRITERIA = [
    "four channels",
    "dialogue",
    "previous actions",
    "task progress",
    "available",
    "three channels",
    "private reasoning",
    "written message",
    "missed chance to communicate",
    "mental load",
    "could have helped more",
    "explicit instructions",
    "departs",
    "act silently",
    "emotional state",
    "warmth",
    "highly interactive",
    "moderately interactive",
    "low interactive",
    "both of the following",
    "emotionally attuned communication",
    "own initiative that clearly improves coordination",
    "small flaws are acceptable",
    "without telling the partner",
    "not answering the partner's earlier messages",
    "not acknowledging the partner's pressure or uncertainty",
]

OLD_STAMPS = {
    "helpfulness": "helpfulness-v1",
    "trustfulness": "trustfulness-v1",
    "empathy": "empathy-v2",
    "interactivity": "interactivity-v1",
}


def flat(text: str) -> str:
    """Lower case, one space between words (criteria may wrap across lines)."""
    return re.sub(r"\s+", " ", text).lower()


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_each_window_prompt_names_every_criterion_of_the_paper(dimension: str) -> None:
    text = flat(load_prompt(dimension).text)
    missing = [c for c in WINDOW_CRITERIA[dimension] if c not in text]
    assert not missing, f"{dimension} prompt lacks {missing}"


def test_the_training_judge_keeps_the_papers_levels_and_the_two_part_top_rule() -> None:
    text = flat(load_prompt("interactivity").text)
    missing = [c for c in INTERACTIVITY_CRITERIA if c not in text]
    assert not missing, f"interactivity prompt lacks {missing}"
    top = text[text.index("highly interactive:") : text.index("moderately interactive:")]
    assert "requires both" in top and ", and 2." in top  # both parts, not either
    # the ten values, and no numeric bands standing in for the levels
    assert "0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0" in text
    assert not re.search(r"\d\.\d\s*-\s*\d\.\d", text)


@pytest.mark.parametrize("name", sorted(OLD_STAMPS))
def test_changed_prompts_carry_new_version_stamps(name: str) -> None:
    prompt = load_prompt(name)
    assert prompt.version != OLD_STAMPS[name] and prompt.stamp.startswith(f"{prompt.version}@")


def view() -> StepView:
    return StepView(
        game="kitchen",
        seat="Player 0",
        tick=4,
        observation="Timestep 4 of 400. Available actions:\nA. pickup(onion)",
        think="They seem rushed; I will take the onions.",
        message="I'll bring the onions, you grab a dish when the soup cooks!",
        action="set_message()",
        valid=True,
        sent_message=True,
        partner_profile="Hurried and easily stressed.",
        heard=(("Player 1", "hurry up"),),
    )


def test_the_prompts_fill_and_the_replies_they_ask_for_parse() -> None:
    system, user = step_messages(view())
    assert "Hurried and easily stressed." in system["content"] and "kitchen" in system["content"]
    assert (
        "Player 1: hurry up" in user["content"] and "{{" not in system["content"] + user["content"]
    )
    level, rationale = parse_level(
        '{"thought": "It reassures the \'hurried\' partner and splits the work.", '
        '"interactivity": 0.9}'
    )
    assert level == 0.9 and "reassures" in rationale
    for dimension in DIMENSIONS:
        system, user = window_messages([view()] * 3, dimension)
        assert f"Criteria for {dimension.capitalize()}" in system["content"]
        assert "Hurried and easily stressed." not in system["content"] + user["content"]
        violations, summary, _notes = parse_violations(
            '{"violations": [{"rule": "Delegation", "deduction": 1, "evidence": "I\'ll bring"}],'
            ' "score": 4, "summary": "One small lapse."}'
        )
        assert [v.deduction for v in violations] == [1] and summary == "One small lapse."
