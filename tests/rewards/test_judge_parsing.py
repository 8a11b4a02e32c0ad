"""Tolerant judge-reply parsing: what is repaired, and what is a recorded failure."""

import pytest

from collabrl.rewards.judges import JudgeParseError, parse_level, parse_violations


@pytest.mark.parametrize(
    ("reply", "level", "rationale"),
    [
        ('{"thought": "good", "interactivity": 0.7}', 0.7, "good"),
        ('```json\n{"thought": "fenced", "interactivity": 0.4}\n```', 0.4, "fenced"),
        ("{'thought': 'single quotes', 'interactivity': '0.9'}", 0.9, "single quotes"),
        (
            'Here you go: {"thought": "a {brace} inside", "interactivity": 1} Hope it helps!',
            1.0,
            "a {brace} inside",
        ),
        ('{"thought": "trailing comma", "interactivity": 0.3,}', 0.3, "trailing comma"),
        ('{"rationale": "other keys", "level": "0.75"}', 0.8, "other keys"),
        ('{"thought": "float noise", "interactivity": 0.30000000004}', 0.3, "float noise"),
        ("no json but interactivity: 0.6", 0.6, ""),
        ('{"thought": "truncated reply", "interactivity": 0.5', 0.5, ""),
    ],
)
def test_level_good_and_repairable(reply: str, level: float, rationale: str) -> None:
    assert parse_level(reply) == (level, rationale)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "empty reply"),
        ("I think the assistant did fine.", "no JSON object"),
        ('{"thought": "no level"}', "no interactivity level"),
        ('{"interactivity": "high"}', "not a number"),
        ('{"interactivity": 7}', "outside 0.1..1.0"),  # another scale: failure, never clamped
        ('{"interactivity": 0}', "outside 0.1..1.0"),
        ('{"interactivity": -0.5}', "outside 0.1..1.0"),
        ('{"interactivity": 1.5}', "outside 0.1..1.0"),
        ('{"interactivity": true}', "not a number"),
        ('{"thought": "cut off by the token limit', "no JSON object"),
    ],
)
def test_level_failures(reply: str, problem: str) -> None:
    with pytest.raises(JudgeParseError, match=problem):
        parse_level(reply)


def test_violations_parsed_with_repairs_noted() -> None:
    reply = (
        "```json\n{'violations': [{'rule': 'ignored request', 'deduction': '2', 'evidence': "
        "'can you help?'}, {'rule': 'harsh', 'deduction': 5}, {'rule': 'nothing', 'deduction': 0}"
        "], 'score': 0, 'summary': 'weak'}\n```"
    )
    violations, summary, notes = parse_violations(reply)
    assert [(v.rule, v.deduction) for v in violations] == [("ignored request", 2), ("harsh", 3)]
    assert violations[0].evidence == "can you help?" and summary == "weak"
    assert notes == [
        "violation 2: deduction 5 clamped to 3",
        "violation 3: deduction 0 <= 0 ignored",
    ]


def test_no_violations_is_a_clean_window() -> None:
    assert parse_violations('{"violations": [], "score": 5, "summary": "fine"}') == ([], "fine", [])


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"score": 3, "summary": "no list"}', "no 'violations'"),
        ('{"violations": "many"}', "not a list"),
        ('{"violations": [{"rule": "x", "deduction": "a lot"}]}', "no numeric deduction"),
        ('{"violations": ["x"]}', "not an object"),
        ("nothing here", "no JSON object"),
    ],
)
def test_violation_failures(reply: str, problem: str) -> None:
    with pytest.raises(JudgeParseError, match=problem):
        parse_violations(reply)
