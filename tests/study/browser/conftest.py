"""Browser fixtures for the study tests: the web tests' Chromium and screenshots, plus pages in
separate browser contexts (one per participant, as separate people would have)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from tests.web.conftest import browser, shot  # noqa: E402,F401  (shared fixtures)


@pytest.fixture
def new_page(browser):  # noqa: F811
    """Make a page in a fresh browser context; fails the test on any JavaScript error."""
    contexts, errors = [], []

    def make():
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        contexts.append(context)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
