"""Lint of what a page needs from the rest of the study file, for studies with and without a
game: a conditions page needs conditions and a questionnaire, a game round needs a game, a
match page without a game needs a group ``size``, a chat alone needs an agent. One line each,
naming the page and what it lacks (:func:`check_page_needs`, run by every compile)."""

from __future__ import annotations

from collabrl.errors import RecipeError
from collabrl.study.spec.schema import (
    ChatAgent,
    ChatPage,
    ConditionsPage,
    DocumentPage,
    MatchPage,
    Study,
)

GROUP_PAGES = (ConditionsPage, ChatPage, DocumentPage)
"""Pages a participant's whole group shares (a match page must come before them)."""


def check_page_needs(study: Study) -> None:
    """Raise RecipeError (one line) for the first page that lacks what it needs."""
    rounds = next((p for p in study.pages if isinstance(p, ConditionsPage)), None)
    if rounds is None and study.conditions:
        raise RecipeError(
            "conditions: listed, but no page of kind conditions plays them: add one, or "
            "remove conditions"
        )
    if rounds is not None:
        if not study.conditions:
            raise RecipeError(f"page {rounds.id}: a conditions page needs conditions (none given)")
        if study.questionnaire is None:
            raise RecipeError(
                f"page {rounds.id}: a conditions page needs questionnaire (rated after each round)"
            )
        games = [c.id for c in study.conditions if c.round == "game"]
        if games and study.game is None:
            raise RecipeError(
                f"page {rounds.id}: condition {games[0]} plays a game round, but the study has "
                "no game: give game and seats, or set the condition's round to chat or document"
            )
    for page in study.pages:
        if isinstance(page, MatchPage):
            _check_match(study, page)
    alone = len(study.human_seats) == 1
    for page in study.pages:
        if isinstance(page, ChatPage) and alone and not page.agents:
            raise RecipeError(
                f"page {page.id}: a chat with one participant and no agents has nobody to talk "
                "to: give agents, or a match page with size before it"
            )


def chat_agents(study: Study) -> list[tuple[str, ChatAgent]]:
    """(where it is declared, agent) of every chat agent of the study."""
    found: list[tuple[str, ChatAgent]] = []
    for k, page in enumerate(study.pages):
        if isinstance(page, ChatPage):
            found += [(f"pages.{k}.agents.{j}", a) for j, a in enumerate(page.agents)]
        elif isinstance(page, DocumentPage) and page.agent is not None:
            found.append((f"pages.{k}.agent", page.agent))
    for k, condition in enumerate(study.conditions):
        if condition.chat_agent is not None:
            found.append((f"conditions.{k}.chat_agent", condition.chat_agent))
    return found


def _check_match(study: Study, page: MatchPage) -> None:
    if study.seats is None and page.size is None:
        raise RecipeError(
            f"page {page.id}: a match page in a study without a game needs size "
            "(participants per group)"
        )
    if study.seats is not None and page.size not in (None, len(study.seats.humans)):
        raise RecipeError(
            f"page {page.id}: size {page.size} differs from the game's "
            f"{len(study.seats.humans)} human seat(s): leave size out"
        )
