"""A recipe's game as a verifiers (v1) multi-turn environment: a taskset of episodes and the env
that plays them.

Why: prime-rl and verifiers' own evaluation consume environments as a ``Taskset`` (the rows every
rollout starts from) and an ``Env`` whose ``run`` drives the model's interaction. As in verifiers'
own game tasksets, the game engine plays the user: each model reply is the trained seat's
decision, the game (with its partner seats) runs until the seat is asked again, and that
observation is the next user turn. The finished episode's reward is recorded on the trace term by
term (``collabrl_efficiency``, ``collabrl_format``, ``collabrl_communication``, ``collabrl_judge``,
``collabrl_progress``), so the trace's reward is collabrl's efficiency plus step reward.

verifiers loads a taskset by a top-level name: ``--env.taskset.id collabrl-verifiers`` (the
``collabrl_verifiers`` package re-exports this module's taskset and env) with
``--env.taskset.recipe NAME`` (and ``overrides``, ``partner``). An episode the model leaves unfinished is
played out with empty replies, as collabrl's rollout plays a failed generation.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import Field

from collabrl.config import Recipe, load_recipe
from collabrl.errors import missing_extra
from collabrl.interop.partners import with_partner
from collabrl.interop.session import CollabSession, EpisodeSpec, openings

try:
    import verifiers.v1 as vf
except ImportError:
    raise missing_extra("verifiers", "verifiers") from None

__all__ = ["CollabEnv", "CollabTaskset"]


class CollabTasksetConfig(vf.TasksetConfig):
    recipe: str = "cwah_gigpo_cpu"
    """The collabrl recipe (a shipped name or a path): game, partners and reward."""
    overrides: list[str] = Field(default_factory=list)
    """key=value overrides of the recipe, as on collabrl's command line."""
    episodes: int = Field(64, ge=1)
    """How many episodes (tasks) to draw, as collabrl's trainer draws its groups."""
    partner: str | None = None
    """The partner kind (persona, llm, expert, human_proxy, population; :func:`with_partner`);
    None: the recipe's. Its other keys go in ``overrides`` (``partner.population=DIR``)."""

    def collab_recipe(self) -> Recipe:
        """The recipe the tasks and the env play: ``recipe`` with ``overrides`` and ``partner``."""
        recipe = load_recipe(self.recipe, self.overrides)
        return recipe if self.partner is None else with_partner(recipe, self.partner)


class CollabData(vf.TaskData):
    info: dict
    """The episode's task, partner profile and seed (:class:`EpisodeSpec`)."""


class CollabTask(vf.Task[CollabData, vf.State, vf.TaskConfig]):
    """One collabrl episode as a verifiers task: verifiers resolves a taskset's task type from
    this concrete class, which binds the generic task to collabrl's task data."""


class CollabTaskset(vf.Taskset[CollabTask, CollabTasksetConfig]):
    def load(self) -> Iterator[CollabTask]:
        recipe = self.config.collab_recipe()
        for spec, rules, observation in openings(recipe, self.config.episodes):
            yield CollabTask(
                CollabData(
                    name=f"{recipe.game.name}:{spec.task}:{spec.profile}:{spec.seed}",
                    prompt=observation,
                    system_prompt=rules,
                    info=spec.to_dict(),
                ),
                self.config.task,
            )


class CollabEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class CollabEnv(vf.Env[CollabEnvConfig]):
    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        taskset = self.config.taskset
        assert isinstance(taskset, CollabTasksetConfig), "CollabEnv plays CollabTaskset's tasks"
        assert isinstance(task.data, CollabData), "CollabEnv plays CollabTaskset's tasks"
        session = CollabSession(taskset.collab_recipe())
        session.reset(EpisodeSpec(**task.data.info))
        # the task's prompt is the first observation, so the model decides first
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                observation = session.act(segment.last_reply)
                if session.done:
                    break
                segment = await interaction.turn(observation)
        for name, value in session.reward_parts().items():
            interaction.trace.record_reward(f"collabrl_{name}", value)
        interaction.trace.info["summary"] = session.record().summary
        session.close()
