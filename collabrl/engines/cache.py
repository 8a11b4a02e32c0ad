"""On-disk cache of LLM responses in one SQLite file.

Why: judge and evaluation runs must be reproducible and cheap to repeat; SQLite gives atomic,
concurrency-safe writes from many threads and processes without a server.

Keys and values are ASCII JSON (``ensure_ascii``), so any Python string caches, a lone surrogate
included (UTF-8 cannot encode one). This changed the key of every request holding non-ASCII text:
a cache filled before the change misses such a request once, then stores it under its new key.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def cache_key(payload: dict[str, Any]) -> str:
    """Stable hash of a request (model, messages, sampling parameters); never pass secrets."""
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("ascii")).hexdigest()


class ResponseCache:
    """Maps a request hash to a JSON-serialisable response."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT)"
            )

    def get(self, key: str) -> Any | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)",
                (key, json.dumps(value, ensure_ascii=True)),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
