"""The tokenizer fitted to the games' text (``policy.model=tiny-game``): lossless on game text, its
reply tags whole, several times shorter than the generic one, and its shipped corpus current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from collabrl.agents.protocol import TAGS
from collabrl.config import load_recipe
from collabrl.models.tiny import CORPORA, make_tiny_model, make_tiny_tokenizer
from collabrl.sft.demos import record_demos

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def household_texts(tmp_path_factory) -> list[str]:
    """Prompts and replies of one expert household episode on a test task (not in the corpus)."""
    recipe = load_recipe(
        "cwah_sft_compact_cpu",
        [
            f"output_dir={tmp_path_factory.mktemp('demos')}",
            "rollout.tasks=[0_read_book]",
            "partner.split=test",
        ],
    )
    spec = recipe.sft.demos.model_copy(update={"episodes": 1, "successful_only": False})
    rows = list(record_demos(recipe, spec, progress=False))
    return [m["content"] for row in rows for m in (*row["prompt"], *row["completion"])]


def test_game_text_round_trips_through_a_saved_model_folder(tmp_path, household_texts) -> None:
    folder = make_tiny_model(tmp_path / "m", corpus="game")
    tok = AutoTokenizer.from_pretrained(folder)
    for text in household_texts:
        ids = tok(text)["input_ids"]
        assert tok.decode(ids, skip_special_tokens=True) == text
    assert tok.get_vocab() == make_tiny_tokenizer("game").get_vocab()


def test_reply_tags_are_tokens_of_their_own() -> None:
    tok = make_tiny_tokenizer("game")
    assert CORPORA["game"].reply_tags == tuple(f"<{s}{t}>" for t in TAGS for s in ("", "/"))
    reply = "<think>Go on.</think>\n<message>Found (12).</message>\n<action>K</action>"
    tokens = tok.tokenize(reply)
    for tag in CORPORA["game"].reply_tags:
        assert tokens.count(tag) == 1
    assert tokens[tokens.index("<action>") + 1] == "K"


def test_game_text_costs_several_times_fewer_tokens(household_texts) -> None:
    game, builtin = make_tiny_tokenizer("game"), make_tiny_tokenizer()
    ratio = sum(len(builtin(t)["input_ids"]) for t in household_texts) / sum(
        len(game(t)["input_ids"]) for t in household_texts
    )
    assert ratio > 3.0


@pytest.mark.slow
def test_the_shipped_corpus_is_what_the_script_writes() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_game_corpus.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr[-1000:]


def test_an_unknown_corpus_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="corpus must be one of"):
        make_tiny_model(tmp_path, corpus="web")
