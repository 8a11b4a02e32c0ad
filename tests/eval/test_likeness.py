"""The human-likeness report: its distance by hand, and a small run on the fixture trials."""

import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from collabrl.cli import cli
from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_partners import HUMAN_PARTNERS
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.errors import CollabrlError
from collabrl.eval import likeness
from collabrl.eval.likeness import distance
from collabrl.eval.partners_cli import engine_spec
from collabrl.testing.fake_openai import FakeOpenAIServer
from collabrl.testing.scripted import ScriptedEngine

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"


def test_distance_is_wasserstein_in_human_standard_deviations() -> None:
    d = distance([0.0, 2.0], [1.0, 1.0])  # W = 1, the people's sd = sqrt(2)
    assert d.distance == pytest.approx(1 / math.sqrt(2))
    assert (d.human_mean, d.type_mean) == (1.0, 1.0)
    assert d.low <= d.distance <= d.high
    alike = distance([3.0, 3.0, 3.0], [4.0, 5.0])  # people all alike: the raw unit
    assert alike.distance == pytest.approx(1.5)
    assert math.isnan(distance([math.nan], [1.0]).distance)


def first_action(messages: list[dict[str, str]]) -> str:
    """An LLM player that always takes the first action its prompt offers."""
    action = re.search(r"^A\. (.+)$", messages[-1]["content"], re.MULTILINE)
    return (
        f"<think>t</think><message></message><action>{action.group(1) if action else ''}</action>"
    )


def test_the_llm_pair_takes_an_engine_section_and_refuses_a_bad_one_in_one_line() -> None:
    spec = engine_spec(("backend=openai", "model=m", "options.concurrency=4"))
    assert (spec.backend, spec.model, spec.options) == ("openai", "m", {"concurrency": 4})
    for pairs, says in [
        (("model",), "KEY=VALUE"),
        (("backend=nope", "model=m"), "backend"),
        (("backend=openai",), "needs model=NAME"),
        (("backend=openai", "model=m", "options.colour=red"), "colour"),
    ]:
        with pytest.raises(CollabrlError, match=says) as err:
            engine_spec(pairs)
        assert "\n" not in str(err.value)


@pytest.mark.slow
def test_compare_writes_the_report_for_every_partner_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials = [
        t for t in trials_of(read_frame("test", FIXTURE), "test") if t.layout == "cramped_room"
    ]
    save_proxy(train_proxy("cramped_room", trials, epochs=5, hidden=8), tmp_path / "proxies")
    out = tmp_path / "likeness"
    with FakeOpenAIServer(responder=first_action) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(
            cli,
            [
                "partners",
                "compare",
                "--data",
                str(FIXTURE),
                "--task",
                "cramped_room",
                "--episodes",
                "2",
                "--proxies",
                str(tmp_path / "proxies"),
                "--llm",
                "backend=openai",
                "--llm",
                "model=fake-model",
                "--out",
                str(out),
            ],
            catch_exceptions=False,
        )
        asked = server.requests
    assert result.exit_code == 0, result.output
    report = json.loads((out / "likeness.json").read_text())
    types = {row["type"] for row in report["rows"]}
    assert types == {
        "persona:efficient_collaborator",
        "persona:hesitant_laggard",
        "persona:anxious_doubter",
        "persona:proactive_leader",
        "persona:independent_loner",
        "expert",
        "random",
        "human_proxy",
        "llm",
    }
    assert len(report["scores"]["cramped_room"]["llm"]) == 2
    assert asked > 100  # both seats asked the engine at every decision
    llm = {r["statistic"]: r for r in report["rows"] if r["type"] == "llm"}
    assert llm["interacts"]["type_mean"] > 0  # its first offered action is a pickup
    assert math.isfinite(llm["idle"]["distance"])
    assert report["humans"] == {"cramped_room": 1}
    assert len(report["scores"]["cramped_room"]["human_proxy"]) == 2
    assert {"commit", "machine", "torch", "date"} <= set(report["stamp"])
    assert (out / "likeness_cramped_room.png").stat().st_size > 1000
    assert "interquartile range" in result.output


def test_an_llm_pair_whose_engine_answers_nothing_is_refused_in_one_line() -> None:
    down = ScriptedEngine(lambda _messages: None)  # every request fails
    with pytest.raises(CollabrlError, match="answered none of its .* requests on cramped_room"):
        likeness.play(HUMAN_PARTNERS, "cramped_room", likeness.LLM, [], 1, 0, None, down)
