"""Window segmentation and CB-Affective aggregation on hand-computed cases, failures excluded."""

from dataclasses import replace

import pytest

from collabrl.episode import EpisodeRecord
from collabrl.eval.runner import EpisodeOutcome, Job
from collabrl.eval.scoring import judge_outcomes, score_outcome, segment
from collabrl.profiles import load_profiles
from collabrl.rewards.judges import DIMENSIONS, StepView, Violation, WindowJudgement

STEP = StepView(
    game="household",
    seat="Alice",
    tick=0,
    observation="",
    think="",
    message="m",
    action="[goexplore] <kitchen> (1)",
    valid=True,
    sent_message=False,
)


class TableJudge:
    """Deductions per (window number, dimension); None means the judge failed there."""

    name, proxy = "table", False

    def __init__(self, table: dict[str, list[int | None]]) -> None:
        self.table, self.calls, self.seen = table, 0, 0

    def judge_steps(self, steps):  # evaluation never asks for step levels
        raise AssertionError("the evaluation must not call judge_steps")

    def judge_windows(self, windows, dimensions=DIMENSIONS):
        self.calls += 1
        out = []
        for _ in windows:
            verdict = {}
            for d in dimensions:
                v = self.table[d][self.seen]
                violations = [] if not v else [Violation("r", v, "e")]
                verdict[d] = WindowJudgement(
                    d, violations, "", "table", "t", error="engine: down" if v is None else None
                )
            out.append(verdict)
            self.seen += 1
        return out


def outcome(n_steps: int, n_messages: int) -> EpisodeOutcome:
    profile = load_profiles(game="household", split="test", task="0_read_book")[0]
    views = [replace(STEP, sent_message=i < n_messages) for i in range(n_steps)]
    record = EpisodeRecord(seed=0, turns=[], summary={}, message_action="[send_message]")
    return EpisodeOutcome(
        Job("household", "0_read_book", profile, 1, 0), "Alice", record, views, 50.0, 0.0
    )


def test_segment_drops_the_tail() -> None:
    assert segment(7) == [[0, 1, 2], [3, 4, 5]]
    assert segment(2) == [] and segment(6, k=2) == [[0, 1], [2, 3], [4, 5]]


def test_aggregation_by_hand() -> None:
    # 7 decisions -> 2 windows; 2 messages -> rho = 2/7 >= 0.15, no message penalty
    o = outcome(7, 2)
    judge = TableJudge({"helpfulness": [1, 3], "trustfulness": [0, 0], "empathy": [3, 3]})
    judge_outcomes([o], judge, k=3, batch_size=1)
    assert judge.calls == 2 and o.windows == [[0, 1, 2], [3, 4, 5]]
    score_outcome(o, a=0.8, b=0.8)
    # help: 5 - 0.8 * (1+3)/2 - 0.8 * 3 = 1.0; trust: 5; empathy: 5 - 2.4 - 2.4 = 0.2
    assert o.scores["helpfulness"] == pytest.approx(1.0)
    assert o.scores["trustfulness"] == pytest.approx(5.0)
    assert o.scores["empathy"] == pytest.approx(0.2)
    assert o.scores["affective"] == pytest.approx((1.0 + 5.0 + 0.2) / 3)


def test_message_penalty_lowers_every_dimension() -> None:
    scores = []
    for messages in (0, 1, 3):  # rho = 0, 1/6, 1/2 over 6 decisions
        o = outcome(6, messages)
        judge_outcomes([o], TableJudge({d: [0, 1] for d in DIMENSIONS}))
        score_outcome(o)
        scores.append(o.scores["trustfulness"])
    clean = 5 - 0.8 * 0.5 - 0.8 * 1
    assert scores[2] == pytest.approx(clean) and scores[1] == pytest.approx(clean)  # rho >= 0.15
    assert scores[0] == pytest.approx(clean - 2.0)  # rho = 0: full p_max


def test_failed_windows_are_excluded_then_the_episode_is_missing() -> None:
    o = outcome(6, 3)
    judge_outcomes(
        [o], TableJudge({"helpfulness": [None, 2], "trustfulness": [None, None], "empathy": [1, 1]})
    )
    score_outcome(o)
    assert o.scores["helpfulness"] == pytest.approx(5 - 0.8 * 2 - 0.8 * 2)  # only window 2
    assert o.scores["trustfulness"] is None and o.scores["affective"] is None
    assert o.scores["empathy"] == pytest.approx(5 - 0.8 - 0.8)
