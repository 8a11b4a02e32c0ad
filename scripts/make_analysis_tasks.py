"""Regenerate the analysis game's tasks (38 test, 48 train) reproducibly from one seed.

Usage: ``python scripts/make_analysis_tasks.py [--seed 0] [--out DIR] [--check]``.
The shipped ``collabrl/data/analysis/tasks.json`` must equal what this writes (a test checks it);
``--check`` writes nothing and exits 1 when the file is stale. The task families and how each is
checked live in the ``analysis_tasks`` package beside this script.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from analysis_tasks.checking import DEFAULT_SEED, build

DATA_DIR = Path(__file__).resolve().parent.parent / "collabrl" / "data" / "analysis"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the task set, or with ``--check`` only compare it (exit 1 when stale)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR)
    parser.add_argument("--check", action="store_true", help="only compare with --out")
    args = parser.parse_args(argv)
    stale = []
    for name, text in build(args.seed).items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; rerun without --check")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
