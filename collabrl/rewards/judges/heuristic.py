"""Offline heuristic judge: a transparent PROXY for the LLM judges, for CPU runs and tests.

It is not an affective judge; it counts observable cues (see ``signals``) with fixed rules, and
every result it produces is stamped ``heuristic-proxy`` so reports can say so. Same outputs as the
LLM judges: a step level in 0.1..1.0 and per-window violations with deductions 1-3.

Step level: start at 0.5, then
  +0.2 / -0.2  partner asked or requested something: a message was sent / not sent
  +0.2 / -0.2  partner showed doubt: a reassuring message was sent / not
  +0.2 / -0.1  own discovery or finished subgoal: shared by a message now / not (each, max -0.2)
  +0.1 / -0.2  sent message is informative and called for / repeats an earlier message of this seat
  -0.1         message nobody called for: nothing asked or heard, no news, not the opening plan
  -0.3         harsh wording
clipped to 0.1..1.0 and rounded to one decimal.

Why a message must be called for (v2): the paper's interactivity prompt (E.3) asks whether a
message is "necessary, well-timed" and counts unnecessary messages as weaknesses; v1 rewarded
every informative message, so in each anchor state a message out-scored an action and GiGPO's
step-level advantage taught the agent to chat instead of finishing the task.

Window deductions (per window of K decisions; a cue counts as answered if a message at that step
or a later step of the window answers it):
  helpfulness   1 per invalid decision (max 2); 1 same action three times; 1 repeated message;
                1 message with too little content
  trustfulness  2 partner request left unanswered; 1 per unshared discovery/subgoal (max 2)
  empathy       2 partner doubt not reassured; 1 per harsh message; 1 silent while the partner
                talked
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from collabrl.rewards.judges.records import (
    DIMENSIONS,
    StepJudgement,
    StepView,
    Violation,
    WindowJudgement,
)
from collabrl.rewards.judges.signals import (
    asks,
    doubts,
    harsh,
    informative,
    normalised,
    reassures,
)

VERSION = "heuristic-proxy-v2"
NAME = "heuristic-proxy"
INVALID_STEP = "invalid decision (interactivity reward is 0 there)"


def _asked(step: StepView) -> str | None:
    return next((t for _, t in step.heard if asks(t)), None)


def _doubted(step: StepView) -> str | None:
    return next((t for _, t in step.heard if doubts(t)), None)


def _repeats(step: StepView) -> bool:
    said = {normalised(m) for m in step.own_messages_before}
    return step.sent_message and normalised(step.message) in said


def _called_for(step: StepView) -> bool:
    """Whether anything invites a message now: partner lines, own news, or no plan shared yet."""
    return bool(step.heard or step.events or not step.own_messages_before)


def step_level(step: StepView) -> tuple[float, str]:
    """(level, rationale listing every rule that fired)."""
    score, why = 0.5, []

    def rule(delta: float, reason: str) -> None:
        nonlocal score
        score += delta
        why.append(f"{delta:+.1f} {reason}")

    sent = step.sent_message
    if _asked(step):
        rule(0.2 if sent else -0.2, "answered partner request" if sent else "ignored request")
    if _doubted(step):
        comforting = sent and reassures(step.message)
        rule(0.2 if comforting else -0.2, "reassured" if comforting else "doubt not reassured")
    if step.events:
        if sent:
            rule(0.2, f"shared news ({'; '.join(step.events)})")
        else:
            rule(-min(0.2, 0.1 * len(step.events)), f"kept news silent ({'; '.join(step.events)})")
    if sent:
        if _repeats(step):
            rule(-0.2, "repeated an earlier message")
        elif not _called_for(step):
            rule(-0.1, "message nobody called for")
        elif informative(step.message):
            rule(0.1, "informative message")
    if sent and harsh(step.message):
        rule(-0.3, "harsh wording")
    level = round(min(1.0, max(0.1, score)), 1)
    return level, "; ".join(why) or "no interaction cue in this step"


def _answered_later(
    window: Sequence[StepView], start: int, test: Callable[[str], bool] | None = None
) -> bool:
    """Whether a message sent at step ``start`` or later (passing ``test``, if given) answers."""
    return any(s.sent_message and (test is None or test(s.message)) for s in window[start:])


def window_violations(window: Sequence[StepView]) -> dict[str, list[Violation]]:
    """Violations per dimension for one window (rules in the module docstring)."""
    found: dict[str, list[Violation]] = {d: [] for d in DIMENSIONS}
    help_, trust, emp = found["helpfulness"], found["trustfulness"], found["empathy"]
    invalid = [s for s in window if not s.valid]
    for s in invalid[:2]:
        help_.append(Violation("invalid or unusable decision", 1, s.action or s.message[:80]))
    actions = [s.action for s in window if s.action and not s.sent_message]
    looped = next((a for a in actions if actions.count(a) >= 3), None)
    if looped:
        help_.append(Violation("same action repeated without progress", 1, looped))
    repeated = next((s for s in window if _repeats(s)), None)
    if repeated:
        help_.append(Violation("repeated an earlier message", 1, repeated.message[:120]))
    thin = next((s for s in window if s.sent_message and not informative(s.message)), None)
    if thin:
        help_.append(Violation("message with too little content", 1, thin.message[:120]))
    for i, s in enumerate(window):
        request = _asked(s)
        if request and not _answered_later(window, i):
            trust.append(Violation("partner request left unanswered", 2, request[:120]))
            break
    unshared = [e for i, s in enumerate(window) for e in s.events if not _answered_later(window, i)]
    for event in unshared[:2]:
        trust.append(Violation("discovery or subgoal not shared", 1, event))
    for i, s in enumerate(window):
        doubt = _doubted(s)
        if doubt and not _answered_later(window, i, reassures):
            emp.append(Violation("partner doubt not reassured", 2, doubt[:120]))
            break
    for s in window:
        if s.sent_message and harsh(s.message):
            emp.append(Violation("harsh wording", 1, s.message[:120]))
    talked = next((s.heard[0][1] for s in window if s.heard), None)
    if talked and not any(s.sent_message for s in window):
        emp.append(Violation("silent while the partner talked", 1, talked[:120]))
    return found


class HeuristicJudge:
    """Rule-based stand-in with the LLM judges' interface; ``proxy`` marks it in every report."""

    name = NAME
    proxy = True

    def judge_steps(self, steps: Sequence[StepView]) -> list[StepJudgement]:
        out = []
        for step in steps:
            if not step.valid:
                out.append(StepJudgement(None, "", NAME, VERSION, skipped=INVALID_STEP))
                continue
            level, why = step_level(step)
            out.append(StepJudgement(level, why, NAME, VERSION))
        return out

    def judge_windows(
        self, windows: Sequence[Sequence[StepView]], dimensions: Sequence[str] = DIMENSIONS
    ) -> list[dict[str, WindowJudgement]]:
        out = []
        for window in windows:
            found = window_violations(window)
            out.append(
                {
                    d: WindowJudgement(
                        d,
                        found[d],
                        "; ".join(v.rule for v in found[d]) or "no rule fired",
                        NAME,
                        VERSION,
                    )
                    for d in dimensions
                }
            )
        return out
