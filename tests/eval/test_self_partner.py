"""The cross-play check of co-adaptation: ``partner.kind=self`` seats the evaluated policy in the
partner seats too (its co-trained partner, for a policy trained in both seats), so the same
evaluation against held-out partners and against itself can be compared."""

from __future__ import annotations

import pytest

from collabrl.config import EvalSpec
from collabrl.eval.protocol import run_evaluation
from collabrl.testing.scripted import ScriptedEngine
from tests.eval.test_protocol import CHATTY, Engines, spec


def test_self_partner_is_the_evaluated_policy_with_the_agent_prompt(tmp_path) -> None:
    engine = ScriptedEngine(lambda c: CHATTY)
    result = run_evaluation(
        spec(tmp_path, partner={"kind": "self"}, game_options={"household": {"max_ticks": 4}}),
        engines=Engines(engine),
    )
    (outcome,) = result.outcomes
    seats = {t.seat for t in outcome.record.turns}
    assert seats == {"Alice", "Bob"}  # both seats decided, through the one policy engine
    systems = {c[0]["content"].split(",")[0] for c in engine.calls}
    # the partner seat gets the agent's prompt (naming its own seat), not a simulated player's
    assert systems == {"You are Alice", "You are Bob"}
    assert all("collaborative AI teammate" in c[0]["content"] for c in engine.calls)


def test_none_partner_is_still_for_training_only(tmp_path) -> None:
    with pytest.raises(ValueError, match="partner.kind=none is for training only"):
        EvalSpec.model_validate({"partner": {"kind": "none"}, "output_dir": str(tmp_path)})
