"""Regenerate the text the game-fitted tiny tokenizer is trained on, reproducibly.

Usage: ``python scripts/make_game_corpus.py [--episodes 24] [--check]``.
Writes ``collabrl/data/tokenizer/game_corpus.txt``: the distinct lines of what a policy reads and
writes in the built-in household and kitchen games (the agent prompt in both layouts, rules,
observations, the expert's replies with actions as letters and as text, partners' messages),
recorded from expert episodes beside persona partners on *training* tasks only. ``--check``
writes nothing and exits 1 when the shipped file is stale (a test runs it).

Why: the built-in corpus (:mod:`collabrl.models.corpus`) is 75 lines of generic game talk, so its
tokenizer spends about 2.4 characters per token on the household prompt; a tokenizer fitted to
the games' own words makes each object, room, id and action one or two tokens.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from collabrl.config import load_recipe
from collabrl.models.game_tokenizer import CORPUS_PATH
from collabrl.sft.demos import record_demos

GAMES = {
    "cwah_sft_cpu": [],
    "cook_gigpo_cpu": ["players=[{kind: expert}, {kind: expert}]"],
}
"""Recipes whose game is recorded, with the overrides that put the expert in the policy's seat."""


def corpus(episodes: int) -> list[str]:
    """The distinct non-empty lines, in first-seen order, of every recorded prompt and reply."""
    seen: dict[str, None] = {}
    for name, overrides in GAMES.items():
        for layout in ("paper", "compact"):
            recipe = load_recipe(
                name,
                [
                    *overrides,
                    f"policy.prompt={layout}",
                    "output_dir=/nonexistent",
                    "partner.vary_wording=true",
                ],
            )
            demos = recipe.sft.demos.model_copy(
                update={"episodes": episodes, "successful_only": False}
            )
            for style in ("letter", "text"):
                spec = demos.model_copy(update={"action_style": style})
                for row in record_demos(recipe, spec, progress=False):
                    for message in [*row["prompt"], *row["completion"]]:
                        for line in message["content"].splitlines():
                            if line.strip():
                                seen.setdefault(line.rstrip(), None)
    return list(seen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=24, help="expert episodes per game")
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped file is stale")
    args = parser.parse_args()
    text = "\n".join(corpus(args.episodes)) + "\n"
    if args.check:
        stale = CORPUS_PATH.read_text(encoding="utf-8") != text
        print("stale" if stale else "up to date")
        return int(stale)
    Path(CORPUS_PATH).write_text(text, encoding="utf-8")
    print(f"wrote {CORPUS_PATH} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
