"""The claim scorer: paraphrases of a gold hypothesis score 1, changed claims score below 0.9."""

from __future__ import annotations

import pytest

from collabrl.envs.analysis.claims import number_value, read_claim
from collabrl.envs.analysis.scoring import score_hypothesis, variables_f1
from collabrl.envs.analysis.tasks import Hypothesis

GOLD = Hypothesis(
    context="the Brack fens, 1950-1100 BCE",
    variables=["nap_pct", "year_bce"],
    relation="the first rise of non-tree pollen above 6.0 comes in 1800 BCE",
    sentence="",
)


def _with(**fields: object) -> Hypothesis:
    return GOLD.model_copy(update=fields)


PARAPHRASES = {
    "articles": _with(context="Brack fens, 1950-1100 BCE",
                      relation="The first rise of the non-tree pollen above 6.0 comes in 1800 BCE"),
    "context order": _with(context="1950-1100 BCE in the Brack fens"),
    "number formats": _with(relation="the first rise of non-tree pollen above 6 comes in 1,800 BC",
                            context="the Brack fens, 1,950 - 1,100 BCE"),
    "direction synonyms": _with(relation="the earliest increase of non-tree pollen above 6.0 is in "
                                         "1800 BCE"),
    "variables order and case": _with(variables=["Year BCE", "NAP_pct"]),
}  # fmt: skip

PERTURBATIONS = {
    "first/second": _with(relation="the second rise of non-tree pollen above 6.0 comes in 1800 BCE"),
    "increase/decrease": _with(relation="the first fall of non-tree pollen below 6.0 comes in "
                                        "1800 BCE"),
    "wrong period": _with(relation="the first rise of non-tree pollen above 6.0 comes in 1750 BCE"),
    "negated": _with(relation="the first rise of non-tree pollen above 6.0 does not come in "
                              "1800 BCE"),
    "wrong context period": _with(context="the Brack fens, 1950-1200 BCE"),
    "wrong place": _with(context="the Hollin downs, 1950-1100 BCE"),
}  # fmt: skip


@pytest.mark.parametrize("name", PARAPHRASES)
def test_a_paraphrase_of_the_gold_scores_one(name: str) -> None:
    assert score_hypothesis(PARAPHRASES[name], GOLD).hms == 1.0
    assert score_hypothesis(GOLD, GOLD, "exact").hms == 1.0


@pytest.mark.parametrize("name", PERTURBATIONS)
def test_a_changed_claim_scores_clearly_below(name: str) -> None:
    assert score_hypothesis(PERTURBATIONS[name], GOLD).hms < 0.9


def test_the_exact_scorer_stays_an_option_and_misses_paraphrases() -> None:
    assert score_hypothesis(PARAPHRASES["articles"], GOLD, "exact").hms == 0.0
    with pytest.raises(ValueError, match="unknown hypothesis scorer"):
        score_hypothesis(GOLD, GOLD, "fuzzy")  # type: ignore[arg-type]


def test_a_gold_without_variables_scores_one_against_itself() -> None:
    bare = _with(variables=[])
    assert variables_f1([], []) == 1.0
    assert score_hypothesis(bare, bare).hms == 1.0
    assert score_hypothesis(bare, bare, "exact").hms == 1.0
    assert score_hypothesis(GOLD, bare).hms == 0.0


@pytest.mark.parametrize(
    ("written", "value"),
    [("1,800", "1800"), ("1800.0", "1800"), ("0,8", "0.8"), ("-7,09880963797244E-05",
     "-0.0000709880963797244"), ("1.8e3", "1800"), ("6", "6")],
)  # fmt: skip
def test_numbers_are_read_as_values(written: str, value: str) -> None:
    assert number_value(written) == value


def test_the_peak_falling_in_a_year_is_no_decrease() -> None:
    assert not read_claim("the peak of hoards falls in 1800 BCE").keys["decrease"]
    assert read_claim("hoards fall after 1800 BCE").keys["decrease"] == 1
    assert read_claim("it is not untrue that it isn't so").keys["not"] == 0


def test_a_sign_is_a_key_word_so_a_flipped_sign_is_another_claim() -> None:
    gold = Hypothesis(
        context="the Early Neolithic (4000-3500 BCE)",
        variables=[],
        relation="the slices are mostly positive on the first principal component",
        sentence="",
    )
    flipped = gold.model_copy(
        update={"relation": "the slices are mostly negative on the first principal component"}
    )
    reworded = gold.model_copy(
        update={"relation": "the slices mostly load positively on the first principal component"}
    )
    assert read_claim(flipped.relation).keys != read_claim(gold.relation).keys
    assert score_hypothesis(flipped, gold).hms < 0.9
    assert read_claim(reworded.relation).keys == read_claim(gold.relation).keys


def test_a_level_is_a_key_word_so_high_for_low_is_another_claim() -> None:
    gold = Hypothesis(
        context="3400-3000 BCE",
        variables=[],
        relation="there is a high number of amber finds",
        sentence="",
    )
    low = gold.model_copy(update={"relation": "there is a low number of amber finds"})
    large = gold.model_copy(update={"relation": "there is a large number of amber finds"})
    assert score_hypothesis(low, gold).hms < 0.9
    assert score_hypothesis(large, gold).hms == 1.0
    assert read_claim("amber is scarce").keys == read_claim("amber finds are few").keys
