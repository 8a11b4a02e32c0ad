"""A missing requirement skips a test, except under CI, where it fails."""

from __future__ import annotations

import pytest

from tests.needs import missing


def test_a_missing_requirement_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="pip install x"):
        missing("x: pip install x")


def test_a_missing_requirement_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI: x: pip install x"):
        missing("x: pip install x")
