"""The paper's protocol with real models: pinned model versions in the shipped recipes."""

from __future__ import annotations

import pytest

from collabrl.config import load_recipe, shipped_recipes

PAPER_MODEL = "deepseek-ai/DeepSeek-V3.1"  # the version the paper reports (section 5.1, D.1)
ALIAS = "deepseek-chat"  # DeepSeek's moving API alias: an option, never a default


def openai_models(name: str) -> list[str]:
    """Every OpenAI-compatible model a shipped recipe names (partner, judge, eval section)."""
    recipe = load_recipe(name)
    specs = [recipe.partner.engine, recipe.reward.judge.engine]
    evaluation = recipe.evaluation()
    specs += [evaluation.partner.engine, evaluation.judge.engine]
    return [s.model for s in specs if s is not None and s.backend == "openai"]


def test_shipped_recipes_pin_the_papers_model_version(monkeypatch) -> None:
    for var in ("COLLABRL_PARTNER_MODEL", "COLLABRL_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    named = {name: openai_models(name) for name in shipped_recipes()}
    assert named["cwah_gigpo"] == [PAPER_MODEL, PAPER_MODEL]
    assert all(m == PAPER_MODEL for models in named.values() for m in models), named
    assert not any(ALIAS in m for models in named.values() for m in models)


@pytest.mark.parametrize("var", ["COLLABRL_PARTNER_MODEL", "COLLABRL_JUDGE_MODEL"])
def test_the_alias_stays_an_option(monkeypatch, var: str) -> None:
    monkeypatch.setenv(var, ALIAS)
    assert ALIAS in openai_models("cwah_gigpo")
