"""What a test does when something it needs is not installed: skip and say how to install it, or
fail under CI (``CI`` set), which installs everything a CPU can run, so that a path CI skipped
would be checked nowhere."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(what: str) -> NoReturn:
    """Skip the calling test (or module) for want of ``what``; under CI, fail instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI: {what}", pytrace=False)
    pytest.skip(what, allow_module_level=True)
