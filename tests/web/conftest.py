"""Fixtures for the web app's tests: a server on a thread, headless Chromium through Playwright.

Chromium is Debian's (``.ci/run`` installs it); Playwright's own browser download is not used.
Without Chromium or Playwright the browser tests are skipped, except under CI (the ``CI``
environment variable set, as ``.ci/run`` does), where they fail: CI must never skip them silently.
Screenshots go to ``docs/screenshots/`` (the README shows them).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.needs import missing

pytest.importorskip("starlette")


try:
    from playwright import sync_api as playwright
except ImportError:
    missing("playwright is not installed (pip install -e '.[dev]')")

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"
TOKEN = "test-token"


@pytest.fixture(scope="module")
def browser():
    # per module, not per session: Playwright's sync API keeps an event loop running on the main
    # thread while it is open, which would break asyncio.run in every later test module
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        missing("Debian's chromium is not installed (apt-get install chromium)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def shot():
    """Save a full-page screenshot under docs/screenshots/NAME.png."""

    def take(page, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
