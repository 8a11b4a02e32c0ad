"""Human episodes on disk, in the trajectory schema ``collabrl eval`` writes.

Each finished episode is appended to ``trajectories.jsonl`` as one whole line (a viewer reading
the file while the server runs never sees half a record), and the HF copy
(``trajectories_hf/``) is rebuilt from the file in the background, one rebuild at a time.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from collabrl.eval.export import HF_NESTED
from collabrl.records import jsonl_line, output_set, read_jsonl, write_hf_dataset

TRAJECTORIES = "trajectories.jsonl"
HF_FOLDER = "trajectories_hf"
OUTPUT_SET = "serve"


class Recorder:
    """Appends records to ``folder/trajectories.jsonl`` and keeps the HF copy in step."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / TRAJECTORIES
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(1)
        self._hf_due = threading.Event()
        folder.mkdir(parents=True, exist_ok=True)

    def append(self, record: dict[str, Any]) -> None:
        """One record as one line, flushed to disk before this returns."""
        line = jsonl_line(record) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        if not self._hf_due.is_set():  # one rebuild queued at most: it reads the whole file
            self._hf_due.set()
            self._pool.submit(self._rebuild_hf)

    def _rebuild_hf(self) -> None:
        self._hf_due.clear()
        with self._lock:
            records = read_jsonl(self.path, torn_tail=True)
        with output_set(self.folder, OUTPUT_SET) as staging:
            write_hf_dataset(staging / HF_FOLDER, records, HF_NESTED)

    def close(self) -> None:
        """Wait for the HF copy to be written."""
        self._pool.shutdown(wait=True)
