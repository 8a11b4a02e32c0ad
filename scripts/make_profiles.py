"""Regenerate the shipped profile library (collabrl/data/profiles/*.jsonl) from the handwritten sources.

Usage: python scripts/make_profiles.py [--out DIR] [--check]
Deterministic: the same sources always give byte-identical files; --check exits 1 on drift.
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path

from collabrl.profiles.build import build_library, write_library


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(str(files("collabrl.data.profiles")))
    parser.add_argument(
        "--out", type=Path, default=default, help="directory to write (default: package data)"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with --out instead of writing"
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = [
            name
            for name, text in build_library().items()
            if not (args.out / name).is_file()
            or (args.out / name).read_text(encoding="utf-8") != text
        ]
        print("profiles up to date" if not stale else f"stale profile files: {', '.join(stale)}")
        return 1 if stale else 0
    for path in write_library(args.out):
        print(f"wrote {path} ({len(path.read_text(encoding='utf-8').splitlines())} profiles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
