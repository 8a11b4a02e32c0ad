"""The team-structures grid with LLM players end to end on the fake OpenAI server: the agent and
its D/R collaborators the same (fake) LLM, the cost printed before the first request, a second
run resuming every episode from the journal instead of asking again."""

from __future__ import annotations

import re

from click.testing import CliRunner

from collabrl.eval.cli import eval_command
from collabrl.testing.fake_openai import FakeOpenAIServer

TICKS = 3


def test_the_llm_grid_prints_its_cost_plays_and_resumes(tmp_path, monkeypatch) -> None:
    engine = "{backend: openai, model: fake, options: {max_retries: 0}}"
    args = [
        "analysis_teams",
        "policy.kind=llm",
        f"policy.engine={engine}",
        "partner.kind=llm",
        f"partner.engine={engine}",
        "tasks=[arch-test-01]",
        "seeds=[0]",
        "max_profiles=1",
        "teams={compositions: [[], [D, R]], structures: [default, gates]}",
        f"game_options={{analysis: {{max_ticks: {TICKS}}}}}",
        f"output_dir={tmp_path / 'grid'}",
        "--quiet",
    ]
    reply = "<think>t</think><message></message><action>wait</action>"
    with FakeOpenAIServer(responder=lambda _messages: reply) as server:
        monkeypatch.setenv("COLLABRL_OPENAI_BASE_URL", server.base_url)
        first = CliRunner().invoke(eval_command, args, catch_exceptions=False)
        assert first.exit_code == 0, first.output
        asked = server.requests
        again = CliRunner().invoke(eval_command, args, catch_exceptions=False)
        assert again.exit_code == 0, again.output
        assert server.requests == asked  # every episode came from the journal
    line = next(x for x in first.output.splitlines() if x.startswith("cost estimate"))
    calls = int(re.search(r"([\d,]+) LLM calls", line).group(1).replace(",", ""))
    # Single-agent (1 seat) and Default/Gates-DR (3 seats), every seat an LLM on every tick:
    # players that only wait use the whole bound
    assert calls == (1 + 3 + 3) * TICKS == asked
    assert "resumed: 3 of 3 episodes" in again.output
    assert "Default-DR" in (tmp_path / "grid" / "study.md").read_text()
