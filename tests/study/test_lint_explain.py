"""`collabrl study lint --explain` and `--graph` (issue 49, item 6): the schema promised an
explanation that did not exist, and the graph called a chat round's end "episode over"."""

from __future__ import annotations

import yaml

from collabrl.cli import main


def test_explain_prints_every_key_with_its_doc_and_loads_back(capsys) -> None:
    main(["study", "lint", "chat_rounds_study", "--explain"])
    out = capsys.readouterr().out
    assert "questionnaire:  # Rated after each condition" in out
    assert "    round: chat  # What a round of this condition is" in out
    assert "seed: 0  # Seed of assignments, episodes and simulated participants." in out
    main(["study", "lint", "chat_rounds_study"])
    resolved = yaml.safe_load(capsys.readouterr().out.rsplit("ok: ", 1)[0])
    explained = yaml.safe_load(out)
    assert explained["name"] == resolved["name"] == "chat_rounds_study"
    assert explained["conditions"][0]["chat_agent"]["opening"].startswith("Hello!")


def test_the_graph_names_a_chat_rounds_end(capsys) -> None:
    main(["study", "lint", "chat_rounds_study", "--graph"])
    out = capsys.readouterr().out
    assert "rounds.play1: --chat over--> rounds.rate1" in out
    assert "episode over" not in out
    main(["study", "lint", "paper_user_study_cpu", "--graph"])
    assert "rounds.play1: --episode over--> rounds.rate1" in capsys.readouterr().out
