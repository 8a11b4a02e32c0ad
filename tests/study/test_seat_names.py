"""Names participants see for the human seats (``seats.names``): on the pages, never in prompts."""

from __future__ import annotations

import pytest

from collabrl.errors import CollabrlError
from collabrl.study.live.signals import run_coroutine
from tests.study.helpers import compiled, runtime
from tests.study.test_runtime import to_first_round


def test_a_human_seat_takes_the_study_name_and_the_agent_its_condition_name(tmp_path) -> None:
    async def first_round():
        rt = runtime(tmp_path, "paper_user_study_cpu", "seats.names={Alice: You}")
        pid = await to_first_round(rt)
        session = rt.group_of(pid).session
        view = session.setup("Alice")
        rt.shutdown()
        rt.db.close()
        return session, view

    session, view = run_coroutine(first_round())
    assert view["names"]["Alice"] == "You" and view["names"]["Bob"].startswith("Agent ")
    assert session.game.agents == ["Alice", "Bob"]  # the game and the prompts keep seat names
    assert "You are Bob" in session.game.intro("Bob")


def test_only_human_seats_take_names() -> None:
    with pytest.raises((CollabrlError, ValueError), match="names: only human seats"):
        compiled("paper_user_study_cpu", "seats.names={Bob: Helper}")
