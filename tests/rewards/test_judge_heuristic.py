"""Heuristic proxy judge: each rule on hand-made steps, and step views built from a real episode."""

from dataclasses import replace

from collabrl.envs.household import HouseholdExpert, HouseholdGame
from collabrl.episode import play_episode
from collabrl.eval.players import RecordingPlayer
from collabrl.rewards.judges import HeuristicJudge, StepView, step_views
from collabrl.rewards.judges.heuristic import step_level, window_violations

QUIET = StepView(
    game="household",
    seat="Alice",
    tick=0,
    observation="",
    think="",
    message="",
    action="[goexplore] <kitchen> (1)",
    valid=True,
    sent_message=False,
)


def said(text: str, **kw) -> StepView:
    return replace(QUIET, message=text, action="[send_message]", sent_message=True, **kw)


def test_step_level_rules() -> None:
    assert step_level(QUIET) == (0.5, "no interaction cue in this step")
    asked = (("Bob", "Can you check the fridge?"),)
    assert step_level(replace(QUIET, heard=asked))[0] == 0.3
    assert step_level(said("Sure, checking the fridge (12) now.", heard=asked))[0] == 0.8
    doubt = (("Bob", "I'm lost, not sure where to look"),)
    assert step_level(said("Don't worry, I'll help: try the kitchen (4).", heard=doubt))[0] == 0.8
    assert step_level(replace(QUIET, events=("found <apple> (3)",)))[0] == 0.4
    repeat = said(
        "I'll explore the kitchen now.", own_messages_before=("I'll explore the kitchen now",)
    )
    assert step_level(repeat)[0] == 0.3
    assert step_level(said("hurry up, stupid"))[0] == 0.2
    plan = "I'll search the kitchen (4), you take the bedroom (2)."
    assert step_level(said(plan)) == (0.6, "+0.1 informative message")  # the opening plan
    later = said("Now walking to the kitchen (4).", own_messages_before=(plan,))
    assert step_level(later) == (0.4, "-0.1 message nobody called for")
    assert step_level(replace(later, heard=(("Bob", "ok, bedroom it is"),)))[0] == 0.6
    ignored = replace(QUIET, heard=asked + doubt, events=("found <a> (1)", "found <b> (2)"))
    assert step_level(ignored)[0] == 0.1  # 0.5 - 0.2 - 0.2 - 0.2, clipped to the scale


def test_window_rules() -> None:
    asked = replace(QUIET, heard=(("Bob", "Could you bring the plate?"),))
    found = replace(QUIET, events=("found <plate> (7)",))
    invalid = replace(QUIET, action=None, valid=False)
    v = window_violations([asked, found, invalid])
    assert [(x.rule, x.deduction) for x in v["trustfulness"]] == [
        ("partner request left unanswered", 2),
        ("discovery or subgoal not shared", 1),
    ]
    assert [x.rule for x in v["helpfulness"]] == ["invalid or unusable decision"]
    assert [x.rule for x in v["empathy"]] == ["silent while the partner talked"]
    answered = window_violations([asked, found, said("Yes! Plate (7) is on its way.")])
    assert answered["trustfulness"] == [] and answered["empathy"] == []
    doubt = replace(QUIET, heard=(("Bob", "ugh, I'm confused"),))
    cold = window_violations([doubt, said("Going to the kitchen (2) next."), QUIET])
    assert [x.rule for x in cold["empathy"]] == ["partner doubt not reassured"]
    loop = window_violations([QUIET, QUIET, QUIET])
    assert [x.rule for x in loop["helpfulness"]] == ["same action repeated without progress"]


def test_judge_outputs_are_stamped_proxy() -> None:
    judge = HeuristicJudge()
    steps = judge.judge_steps([QUIET, replace(QUIET, valid=False, action=None)])
    assert steps[0].level == 0.5 and steps[0].judge == "heuristic-proxy"
    assert steps[1].level is None and steps[1].skipped and not steps[1].failed
    windows = judge.judge_windows([[QUIET, QUIET, QUIET]])
    assert windows[0]["helpfulness"].deduction == 1.0 and windows[0]["empathy"].deduction == 0.0
    assert judge.proxy and windows[0]["trustfulness"].prompt_version == "heuristic-proxy-v2"


def test_step_views_from_an_expert_episode() -> None:
    game = HouseholdGame("0_read_book")
    alice = RecordingPlayer(HouseholdExpert())
    record = play_episode(game, {"Alice": alice, "Bob": HouseholdExpert()}, seed=0)
    views = step_views(
        "household",
        alice.observations,
        alice.decisions,
        message_action=game.message_action,
        partner_profile="calm",
    )
    turns = [t for t in record.turns if t.seat == "Alice"]
    assert len(views) == len(turns) and [v.action for v in views] == [t.action for t in turns]
    assert any(v.heard for v in views) and all(s != "Alice" for v in views for s, _ in v.heard)
    assert any(v.events for v in views)
    sent = [v.message for v in views if v.sent_message]
    assert views[-1].own_messages_before == tuple(sent[: len(sent) - views[-1].sent_message])
