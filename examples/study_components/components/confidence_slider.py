"""The server side of the confidence slider: a number on a scale and how sure the participant is
of it (0-100 %). collabrl calls check_config at lint, validate on every answer before it is
stored, and sample for simulated participants in pretests."""

from __future__ import annotations

import math
import random
from typing import Any


def _finite(number: Any) -> bool:
    return (
        isinstance(number, int | float) and not isinstance(number, bool) and math.isfinite(number)
    )


class ConfidenceSlider:
    """An estimate on ``min``..``max`` (config) with a confidence in percent."""

    def check_config(self, config: dict[str, Any]) -> None:
        low, high = config.get("min", 0), config.get("max", 100)
        if not isinstance(low, int | float) or not isinstance(high, int | float) or low >= high:
            raise ValueError("config needs numbers min < max")

    def validate(self, value: Any, config: dict[str, Any]) -> dict[str, float]:
        if not isinstance(value, dict):
            raise ValueError("move both sliders")
        estimate, confidence = value.get("estimate"), value.get("confidence")
        low, high = config.get("min", 0), config.get("max", 100)
        if not _finite(estimate) or not _finite(confidence):
            raise ValueError("move both sliders")
        assert isinstance(estimate, int | float) and isinstance(confidence, int | float)
        if not low <= estimate <= high:
            raise ValueError(f"choose an estimate from {low} to {high}")
        if not 0 <= confidence <= 100:
            raise ValueError("choose a confidence from 0 to 100 %")
        return {"estimate": float(estimate), "confidence": float(confidence)}

    def sample(self, rng: random.Random, config: dict[str, Any]) -> dict[str, float]:
        low, high = config.get("min", 0), config.get("max", 100)
        return {"estimate": float(rng.randint(int(low), int(high))), "confidence": 50.0}
