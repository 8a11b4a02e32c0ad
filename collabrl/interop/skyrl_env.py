"""A recipe's game as a SkyRL-Gym text environment.

Why: SkyRL's generator builds each trajectory's environment with
``skyrl_gym.make(row["env_class"], env_config=..., extras=row's other columns)``, calls
``init(row["prompt"])`` for the first chat, then ``step(model_output)`` until ``done``. Here the
env is one seat of a collabrl episode: the dataset row (:func:`dataset_rows`) names the episode
and carries its rules and first observation; each step plays the model's reply as the seat's
decision, the game (with its partners) runs until the seat is asked again, and the step that ends
the episode carries its whole reward (efficiency plus the step terms, the judge included; earlier
steps carry 0), with the parts in its metadata. An episode still running when SkyRL's turn budget
(``max_turns``) is spent is played out with empty replies, as collabrl's rollout plays a failed
generation.

The game, partners and reward come from ``env_config`` (``skyrl_gym.<ENV_ID>`` in SkyRL's
settings): ``recipe``, ``overrides`` and ``partner`` as for the verifiers taskset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collabrl.config import Recipe, load_recipe
from collabrl.errors import CollabrlError, missing_extra
from collabrl.interop.partners import with_partner
from collabrl.interop.session import CollabSession, EpisodeSpec, openings

try:
    from skyrl_gym import register, registry
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError:
    raise missing_extra("skyrl-gym", "skyrl") from None

ENV_ID = "collabrl"
"""The ``env_class`` of collabrl's rows, once :func:`register_env` has run."""
DEFAULT_RECIPE = "cwah_gigpo_cpu"


def register_env() -> None:
    """Make ``skyrl_gym.make(ENV_ID, ...)`` build :class:`CollabSkyRLEnv` (SkyRL's entry script
    calls it before training, as for any custom environment); calling it again changes nothing."""
    if ENV_ID not in registry:
        register(id=ENV_ID, entry_point=f"{__name__}:CollabSkyRLEnv")


def recipe_of(env_config: Mapping[str, Any] | None) -> Recipe:
    """The recipe ``env_config`` names: ``recipe`` (default cwah_gigpo_cpu) with its
    ``overrides`` and ``partner`` kind."""
    config = dict(env_config or {})
    recipe = load_recipe(config.get("recipe", DEFAULT_RECIPE), list(config.get("overrides", [])))
    partner = config.get("partner")
    return recipe if partner is None else with_partner(recipe, str(partner))


def dataset_rows(recipe: Recipe, count: int) -> list[dict[str, Any]]:
    """``count`` SkyRL dataset rows, each an episode collabrl's trainer would draw: its chat
    prompt (the seat's rules and first observation), ``env_class`` and the episode."""
    return [
        {
            "prompt": [
                {"role": "system", "content": rules},
                {"role": "user", "content": observation},
            ],
            "env_class": ENV_ID,
            "episode": spec.to_dict(),
        }
        for spec, rules, observation in openings(recipe, count)
    ]


class CollabSkyRLEnv(BaseTextEnv):
    """One collabrl episode, played from the trained seat's side."""

    def __init__(self, env_config: Mapping[str, Any] | None = None, extras: Any = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        if "episode" not in extras:
            raise CollabrlError(
                "a collabrl SkyRL row needs an 'episode' column (task, profile, seed): "
                "build the dataset with collabrl.interop.skyrl_env.dataset_rows"
            )
        self.episode = EpisodeSpec(**dict(extras["episode"]))  # not `spec`: skyrl_gym sets that
        self.max_turns = int(extras.get("max_turns") or 0)
        self.session = CollabSession(recipe_of(env_config))

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        self.session.reset(self.episode)
        return prompt, {}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        observation = self.session.act(action)
        if self.max_turns and self.turns >= self.max_turns:
            self.session.finish()
        if not self.session.done:
            return BaseTextEnvStepOutput(
                observations=[{"role": "user", "content": observation}],
                reward=0.0,
                done=False,
                metadata={},
            )
        parts = self.session.reward_parts()
        return BaseTextEnvStepOutput(
            observations=[],
            reward=sum(parts.values()),
            done=True,
            metadata={"reward_parts": parts, "summary": self.session.record().summary},
        )

    def close(self) -> None:
        self.session.close()
