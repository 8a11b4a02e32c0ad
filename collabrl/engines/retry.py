"""When and how long to wait before retrying an HTTP request.

Why: remote LLM servers rate-limit (429) and fail transiently (5xx, timeouts); exponential
backoff with full jitter spreads retries out, and a server's Retry-After is honoured.
"""

from __future__ import annotations

import contextlib
import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Backoff:
    """Delay before retry ``attempt`` (0-based): uniform in [0, min(cap, base * 2**attempt)],
    or the server's Retry-After (capped) when it sent one."""

    base_s: float = 0.5
    cap_s: float = 30.0

    def delay(
        self, attempt: int, retry_after_s: float | None = None, rng: random.Random | None = None
    ) -> float:
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.cap_s)
        return (rng or random).uniform(0.0, min(self.cap_s, self.base_s * 2**attempt))


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date); None if absent/invalid."""
    if not value:
        return None
    with contextlib.suppress(ValueError):  # delta-seconds; otherwise an HTTP date
        return float(value)
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None
