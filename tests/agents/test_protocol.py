"""Edge cases of the response parser (contract: never raises, linear time)."""

import time

import pytest

from collabrl.agents.protocol import match_action, normalise, parse_response

ACTIONS = [
    "[goexplore] <kitchen> (11)",
    "[gocheck] <fridge> (105)",
    "[gograb] <apple> (301)",
    "[gograb] <apple> (302)",
    "[send_message]",
]


def good(action: str = "[gocheck] <fridge> (105)") -> str:
    return f"<think>plan</think><message>hi Bob</message><action>{action}</action>"


def test_well_formed_response() -> None:
    p = parse_response(good(), ACTIONS)
    assert (p.think, p.message, p.action, p.valid, p.errors) == (
        "plan",
        "hi Bob",
        "[gocheck] <fridge> (105)",
        True,
        [],
    )


def test_uppercase_tags_and_whitespace() -> None:
    text = "  <THINK>\n  a \n</Think>\n<Message> m </MESSAGE>< action >  B  </ACTION >"
    p = parse_response(text, ACTIONS)
    assert p.valid and p.think == "a" and p.message == "m" and p.action == ACTIONS[1]


@pytest.mark.parametrize("missing", ["think", "message", "action"])
def test_missing_tag_is_reported(missing: str) -> None:
    parts = {"think": "t", "message": "m", "action": "A"}
    text = "".join(f"<{k}>{v}</{k}>" for k, v in parts.items() if k != missing)
    p = parse_response(text, ACTIONS)
    assert not p.valid
    assert f"missing <{missing}> tag" in p.errors
    if missing != "action":
        assert p.action == ACTIONS[0]  # a legal action is still understood
    else:
        assert p.action is None


def test_duplicated_tag_uses_first_and_reports() -> None:
    text = good("A") + "<action>B</action>"
    p = parse_response(text, ACTIONS)
    assert p.action == ACTIONS[0]
    assert any("duplicated <action>" in e for e in p.errors)


def test_unclosed_tag_takes_rest_of_text() -> None:
    p = parse_response("<think>t</think><message>m</message><action>E", ACTIONS)
    assert p.action == "[send_message]"
    assert "<action> is not closed" in p.errors


@pytest.mark.parametrize(
    "answer,expected",
    [
        ("A", ACTIONS[0]),
        ("B.", ACTIONS[1]),
        ("(C)", ACTIONS[2]),
        ("D. [gograb] <apple> (302)", ACTIONS[3]),
        ("E)", ACTIONS[4]),
        ("[GoExplore] <Kitchen> (11)", ACTIONS[0]),
        ("goexplore kitchen 11", ACTIONS[0]),
        ("send_message", ACTIONS[4]),
        ("I will do [gocheck] <fridge> (105) now", ACTIONS[1]),
    ],
)
def test_action_matching(answer: str, expected: str) -> None:
    assert match_action(answer, ACTIONS) == (expected, None)


@pytest.mark.parametrize(
    "answer",
    ["Z", "[gograb] <banana> (9)", "", "gograb apple", "D. [goexplore] <kitchen> (11)"],
)
def test_unknown_or_ambiguous_action_is_invalid(answer: str) -> None:
    p = parse_response(good(answer), ACTIONS)
    assert p.action is None and not p.valid and p.errors


def test_letter_out_of_range() -> None:
    assert match_action("B", ["only"])[0] is None


def test_non_string_and_garbage_never_raise() -> None:
    for junk in [None, 123, "<<<>>>", "</action><action>", "<action></action>" * 3, "\x00" * 10]:
        p = parse_response(junk, ACTIONS)  # type: ignore[arg-type]
        assert not p.valid


def test_megabyte_of_garbage_is_linear() -> None:
    sizes = [250_000, 1_000_000]
    times = []
    for n in sizes:
        text = ("<think" + "x<" * 10) * (n // 26) + "<action>" + "a " * (n // 4)
        start = time.perf_counter()
        p = parse_response(text, ACTIONS)
        times.append(time.perf_counter() - start)
        assert not p.valid
    # 4x the input must not cost much more than ~4x the time (quadratic would be 16x).
    assert times[1] < max(0.05, 8 * times[0])


def test_normalise() -> None:
    assert normalise("  [GoGrab]  <Apple> (3) ") == "gograb apple 3"


def test_garbage_reports_each_problem_once() -> None:
    p = parse_response("<think><action><message>" * 50_000, ACTIONS)
    assert not p.valid and len(p.errors) < 12


def test_template_action_takes_an_integer() -> None:
    skills = ["pickup(onion)", "wait(x)", "set_message()"]
    assert match_action("wait(5)", skills) == ("wait(5)", None)
    assert match_action("WAIT( 12 )", skills) == ("wait(12)", None)
    assert match_action("B", skills) == ("wait(x)", None)
    assert match_action("wait(five)", skills)[0] is None
    assert match_action("sleep(5)", skills)[0] is None
    assert match_action("wait(5)", ACTIONS)[0] is None  # no template offered


def test_template_action_takes_a_text_argument() -> None:
    offered = ["look(samples)", "run(<step>)", "edit_relation(<text>)", "submit"]
    step = 'r1 = filter(samples, site != "C")'
    assert match_action(f"run({step})", offered) == (f"run({step})", None)
    assert match_action("edit_relation(peaks in period 5 (BCE))", offered)[0] == (
        "edit_relation(peaks in period 5 (BCE))"
    )
    assert match_action("B", offered) == ("run(<step>)", None)
    assert match_action("run(   )", offered)[0] == "run(<step>)"  # no argument: the bare template
    assert match_action("run(" + "x" * 501 + ")", offered)[0] is None  # too long
    assert match_action("walk(samples)", offered)[0] is None
    assert match_action(f"run({step})", ["look(samples)", "submit"])[0] is None  # not offered
