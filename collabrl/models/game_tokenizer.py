"""Where the game-fitted tokenizer's corpus lives (written by ``scripts/make_game_corpus.py``).

Why a second corpus: a model trained from scratch reads nothing but game text, so a tokenizer fitted
to that text (its objects, rooms, ids, actions and reply tags) shortens every prompt and reply it
sees, and with them every forward and backward pass of training.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

CORPUS_PATH = Path(str(files("collabrl.data.tokenizer").joinpath("game_corpus.txt")))


def game_corpus_lines() -> list[str]:
    """The shipped corpus, one line per distinct line of recorded game text."""
    return CORPUS_PATH.read_text(encoding="utf-8").splitlines()
