"""Lint of agents' tools and triggers and of chat pages' shared workspaces."""

from __future__ import annotations

from collabrl.errors import RecipeError
from collabrl.study.spec.logic import check_expression
from collabrl.study.spec.room_lint import chat_agents
from collabrl.study.spec.schema import ChatPage, Study
from collabrl.study.spec.workspace import check_workspace


def check_agent_tools(study: Study) -> None:
    """Each agent's state_writes are participant variables its set_state tool may use, its
    trigger's condition reads what exists, and each workspace names only its room's seats;
    raises RecipeError (one line)."""
    for where, agent in chat_agents(study):
        if agent.state_writes and "set_state" not in agent.tools:
            raise RecipeError(f"{where}: state_writes without the set_state tool")
        for name in agent.state_writes:
            var = study.state.get(name)
            if var is None or var.scope != "participant":
                known = ", ".join(n for n, v in study.state.items() if v.scope == "participant")
                raise RecipeError(
                    f"{where}.state_writes: {name!r} is no participant state variable "
                    f"(known: {known or 'none'})"
                )
        if agent.trigger.when is not None:
            check_expression(study, agent.trigger.when, f"{where}.trigger.when", "chat")
    for page in study.pages:
        if isinstance(page, ChatPage):
            try:
                check_workspace(page.workspace, study.human_seats, f"page {page.id}")
            except ValueError as exc:
                raise RecipeError(str(exc)) from None
