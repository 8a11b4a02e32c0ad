"""The rule-based tally player: says its secret first, then counts up to the total it heard.

It decides from ``Observation.state`` only (its secret, the tally, the messages), never from the
hidden game; it reads the others' secrets from messages in its own template, "My secret number
is 4.", so two experts finish every task in as few ticks as the rules allow.
"""

from __future__ import annotations

import re

from collabrl.envs.base import Observation, format_response
from tally_game.game import ADD_ONE, ADD_TWO, FINISH, MESSAGE

SECRET = re.compile(r"secret number is (\d+)")


class TallyExpert:
    """A scripted tally player for any seat (``collabrl.agents.player.Player``)."""

    name = "tally-expert"

    def reset(self, seat: str, seed: int) -> None:
        self.seat = seat
        self.told = False

    def act(self, obs: Observation) -> str:
        state = obs.state
        if not self.told:
            self.told = True
            mine = f"My secret number is {state['secret']}."
            return format_response("Nobody can count before hearing every secret.", mine, MESSAGE)
        heard = {
            line["seat"]: int(match.group(1))
            for line in state["dialogue"]
            if line["seat"] != self.seat and (match := SECRET.search(line["text"]))
        }
        if len(heard) < len(state["seats"]) - 1:
            return format_response(
                "Still missing a secret.", "Please tell me your secret number.", MESSAGE
            )
        left = state["secret"] + sum(heard.values()) - state["tally"]
        action = FINISH if left <= 0 else ADD_TWO if left >= 2 else ADD_ONE
        return format_response(f"{left} left to count.", "", action)
