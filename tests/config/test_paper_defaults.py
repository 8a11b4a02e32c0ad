"""Defaults that follow the paper where it states a value, else the released code, each with the
other source's value as a named option (issue 32)."""

from __future__ import annotations

from collabrl.config import load_recipe
from collabrl.config.training import VERL_WEIGHT_DECAY, AlgoSpec


def test_weight_decay_is_verls_since_the_paper_states_none() -> None:
    assert VERL_WEIGHT_DECAY == 0.01
    assert AlgoSpec().weight_decay == VERL_WEIGHT_DECAY
    assert load_recipe("cwah_gigpo").algo.weight_decay == VERL_WEIGHT_DECAY
    doc = AlgoSpec.model_fields["weight_decay"].description or ""
    assert "paper states none" in doc and "verl" in doc
    assert load_recipe("cwah_gigpo", ["algo.weight_decay=0"]).algo.weight_decay == 0.0
