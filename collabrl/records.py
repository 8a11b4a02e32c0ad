"""Write lists of records twice: JSONL (greppable, dependency-free) and an HF dataset on disk.

The HF copy (``datasets.load_from_disk``) is what analysis notebooks, SFT tools and reward-model
work load. Fields named in ``json_fields`` are stored as JSON strings so records whose nested parts
differ in shape (e.g. the two games' summaries) still share one Arrow schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """One JSON object per line, written to a temporary file first: a crash never leaves half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
    tmp.replace(path)
    return path


def write_hf_dataset(
    folder: Path, records: Sequence[dict[str, Any]], json_fields: Sequence[str] = ()
) -> None:
    import datasets

    rows = [
        {
            k: json.dumps(v, ensure_ascii=False, default=str) if k in json_fields else v
            for k, v in r.items()
        }
        for r in records
    ]
    datasets.Dataset.from_list(rows).save_to_disk(str(folder))
