"""The free-text hypothesis judge: facets parsed, one batched call, cached, failures recorded with
the exact score kept, structured submissions never sent (through the fake OpenAI server)."""

import json

import pytest

from collabrl.engines import make_engine
from collabrl.envs.analysis.tasks import get_task
from collabrl.envs.base import Decision
from collabrl.envs.registry import get_game
from collabrl.rewards.judges import JudgeParseError, LLMJudge
from collabrl.rewards.judges.hypothesis import (
    HypothesisCase,
    is_structured,
    judge_hypotheses,
    judge_submissions,
    judgement_counts,
    parse_facets,
)
from collabrl.testing.fake_openai import FakeOpenAIServer

TASK = "arch-test-01"
GOLD = get_task(TASK).gold
WRONG = "Non-tree pollen in the Brack fens peaks in 1500 BCE."


def grader(messages) -> str:
    """A stand-in judge: full marks for the gold sentence, a wrong relation for WRONG, prose for
    anything marked GARBLED."""
    submitted = messages[-1]["content"].split("Submitted hypothesis:")[1]
    if "GARBLED" in submitted:
        return "The submission looks mostly right to me."
    if GOLD.sentence in submitted:
        return '```json\n{"context": 1, "variables": 1.0, "relation": 1, "rationale": "same"}\n```'
    return json.dumps({"context": 1, "variables": "0.5", "relation": 0, "rationale": "other year"})


@pytest.fixture
def server(monkeypatch):
    with FakeOpenAIServer(responder=grader) as fake:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", fake.base_url)
        yield fake


@pytest.fixture
def judge(server, tmp_path):
    engine = make_engine(
        {"backend": "openai", "model": "judge", "max_retries": 0, "cache_dir": str(tmp_path)}
    )
    yield LLMJudge(engine, name="judge")
    engine.close()


def sentence_only(text: str) -> dict[str, str]:
    return {"context": "", "variables": "", "relation": "", "sentence": text}


def played(*edits: str, submit: bool = True) -> dict:
    """The summary of a one-seat episode that makes ``edits`` (then submits)."""
    game = get_game("analysis")(task=TASK, seats=["Ada"]).make_game()
    for action in (*edits, *(["submit"] if submit else [])):
        game.step({"Ada": Decision(action)})
    return game.summary()


def test_facets_parsed_tolerantly_and_other_scales_refused() -> None:
    facets, why = parse_facets("Sure. {'context': True, 'variables': '0.5', 'relation': 1.0} ok")
    assert facets.as_dict() == {"context": 1.0, "variables": 0.5, "relation": 1.0, "hms": 0.5}
    assert why == ""
    facets, why = parse_facets('{"Context": 0, "variables": 1, "relation": 1, "reason": "site"}')
    assert facets.hms == 0.0 and why == "site"
    for reply, problem in [
        ('{"context": 1, "variables": 0.5}', "no numeric 'relation'"),
        ('{"context": 0.5, "variables": 1, "relation": 1}', "context 0.5 is not 0 or 1"),
        ('{"context": 1, "variables": 2, "relation": 1}', "variables 2 is outside 0..1"),
        ("a fine hypothesis", "no JSON object"),
    ]:
        with pytest.raises(JudgeParseError, match=problem):
            parse_facets(reply)


def test_structured_means_context_variables_and_relation_filled() -> None:
    assert is_structured({"context": "c", "variables": "v", "relation": "r", "sentence": ""})
    assert not is_structured({"context": "c", "variables": " ", "relation": "r", "sentence": "s"})
    assert not is_structured(sentence_only(GOLD.sentence))


def test_one_call_right_wrong_and_garbled_then_cached(server, judge) -> None:
    cases = [
        HypothesisCase(get_task(TASK).query, GOLD, sentence_only(text))
        for text in (GOLD.sentence, WRONG, "GARBLED")
    ]
    right, wrong, garbled = judge_hypotheses(judge, cases)
    assert server.requests == 3
    assert right.facets.as_dict() == {"context": 1.0, "variables": 1.0, "relation": 1.0, "hms": 1.0}
    assert right.rationale == "same" and not right.failed
    assert wrong.facets.as_dict() == {"context": 1.0, "variables": 0.5, "relation": 0.0, "hms": 0.0}
    assert garbled.facets is None and garbled.error == "parse: no JSON object in reply"
    assert garbled.raw == "The submission looks mostly right to me."
    assert all(
        v.judge == "llm:judge" and v.prompt_version.startswith("hypothesis-v1@")
        for v in (right, wrong, garbled)
    )
    again = judge_hypotheses(judge, cases[:1])  # the same request: the engine's cache answers
    assert server.requests == 3 and again[0].facets.hms == 1.0


def test_the_prompt_shows_query_gold_and_the_whole_submission() -> None:
    from collabrl.rewards.judges.hypothesis import hypothesis_messages

    case = HypothesisCase("When?", GOLD, {"context": "the fens", "sentence": "It peaks."})
    system, user = hypothesis_messages(case)
    assert "sentence only" in system["content"] and '"variables": <0 to 1>' in system["content"]
    assert "Query: When?" in user["content"]
    assert "- variables: nap_pct, year_bce" in user["content"]  # the gold's list, as text
    submitted = user["content"].split("Submitted hypothesis:")[1]
    assert "- context: the fens\n- variables: (empty)\n- relation: (empty)" in submitted
    assert "- sentence: It peaks." in submitted


def test_summaries_rescored_only_where_free_text_when_asked(server, judge) -> None:
    gold_fields = (
        f"edit_context({GOLD.context})",
        f"edit_variables({', '.join(GOLD.variables)})",
        f"edit_relation({GOLD.relation})",
    )
    structured = played(*gold_fields)
    structured_wrong = played(*gold_fields[:2], "edit_relation(peaks in 1500 BCE)")
    right = played(f"edit_sentence({GOLD.sentence})")
    wrong = played(f"edit_sentence({WRONG})")
    garbled = played("edit_sentence(GARBLED)")
    silent = played()  # submitted with nothing written: no claim to judge
    time_up = played(f"edit_sentence({GOLD.sentence})", submit=False)
    household = {"task": "0_read_book", "steps": 30}
    assert right["score"] == 0.0 and right["performance"] == 0.0  # exactly: no fields
    episodes = [
        ("analysis", s)
        for s in (structured, structured_wrong, right, wrong, garbled, silent, time_up)
    ]
    verdicts = judge_submissions(judge, [*episodes, ("household", household)], structured=False)
    assert server.requests == 3  # right, wrong, garbled: nothing structured, empty or unsubmitted
    assert [n for n, v in enumerate(verdicts) if v is not None] == [2, 3, 4]
    assert structured["score"] == 1.0 and structured_wrong["score"] == 0.0
    assert structured["score_source"] == structured_wrong["score_source"] == "exact"
    assert right["score"] == 1.0 and right["performance"] == 1.0 and right["success"] is True
    assert right["score_source"] == "llm" and right["facets"]["variables"] == 1.0
    assert wrong["score"] == 0.0 and wrong["performance"] == 1.0 and wrong["score_source"] == "llm"
    assert wrong["facets"] == {"context": 1.0, "variables": 0.5, "relation": 0.0, "hms": 0.0}
    # a failed judgement keeps the exact score and is recorded with its error
    assert garbled["score"] == 0.0 and garbled["facets"]["hms"] == 0.0
    assert garbled["score_source"] == "exact" and garbled["success"] is False
    assert garbled["hypothesis_judgement"]["error"] == "parse: no JSON object in reply"
    assert garbled["hypothesis_judgement"]["facets"] is None
    assert right["hypothesis_judgement"]["facets"]["hms"] == 1.0
    assert silent["score_source"] == time_up["score_source"] == "exact"
    assert "hypothesis_judgement" not in silent and time_up["hypothesis"] is None
    assert household == {"task": "0_read_book", "steps": 30}  # a game without a gold: untouched
    counts = judgement_counts(s for _, s in episodes)
    assert counts["judged"] == 3 and counts["failed"] == 1
    assert counts["failure_kinds"] == {"parse": 1}
    assert counts["prompt"].startswith("hypothesis-v1@")


def test_structured_submissions_reach_the_judge_like_free_text(server, judge) -> None:
    """``structured=True`` (``eval.hypothesis_judge=llm``): a structured submission is graded by
    the judge too, its sentence included, and its score is the judge's."""
    paraphrase = played(
        f"edit_context({GOLD.context})",
        f"edit_variables({', '.join(GOLD.variables)})",
        "edit_relation(peaks in 1500 BCE)",
        f"edit_sentence({GOLD.sentence})",
    )
    silent = played()
    assert paraphrase["score"] == 0.0
    verdicts = judge_submissions(judge, [("analysis", paraphrase), ("analysis", silent)])
    assert server.requests == 1 and verdicts[1] is None
    assert paraphrase["score"] == 1.0 and paraphrase["score_source"] == "llm"


def test_a_submission_without_variables_is_structured_where_the_gold_has_none() -> None:
    fields = {"context": "c", "variables": "", "relation": "r", "sentence": ""}
    assert not is_structured(fields)
    assert not is_structured(fields, GOLD)
    assert is_structured(fields, GOLD.model_copy(update={"variables": []}))
