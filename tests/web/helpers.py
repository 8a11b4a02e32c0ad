"""Driving a human seat from a test: the rule-based expert chooses, the browser acts."""

from __future__ import annotations

from collabrl.agents.protocol import parse_observed
from collabrl.config import load_recipe
from collabrl.web.serve_app import make_serve_app
from collabrl.web.session import Session

TOKEN = "test-token"


def serve_app(tmp_path, recipe: str, *overrides: str):
    """The serve app of a shipped recipe, recording under ``tmp_path``."""
    return make_serve_app(load_recipe(recipe, list(overrides)), tmp_path, TOKEN)


def open_new_episode(page, base: str) -> None:
    """Open the URL ``collabrl serve`` prints and press its start button, as a person does."""
    page.goto(f"{base}/?token={TOKEN}")
    page.get_by_test_id("start").click()


def only_session(app) -> Session:
    (session,) = app.state.sessions.by_id.values()
    return session


def play_decision(page, session: Session, seat: str, chooser) -> None:
    """Make the decision ``chooser`` picks for the seat's current observation in the browser:
    typing a message into the box, or pressing the action's letter key; then wait for the page
    to receive the next state."""
    obs = session.seats[seat].obs
    parsed = parse_observed(chooser.act(obs), obs)
    version = page.locator("body").get_attribute("data-version")
    if parsed.action == obs.message_action:
        page.get_by_test_id("message").fill(parsed.message)
        page.get_by_test_id("message").press("Enter")
    else:
        button = page.locator(f'#actions button[data-action="{parsed.action}"]')
        page.keyboard.type(button.get_attribute("data-key"))
    from playwright.sync_api import expect

    expect(page.locator("body")).not_to_have_attribute("data-version", version)
