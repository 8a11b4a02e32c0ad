"""Demonstrations: a demonstrator plays the policy's seat and each decision becomes an example.

The demonstrator is ``players[rollout.target_seat]`` of the recipe (the lead seat, where several
are trained): the game's rule-based expert (whose think is a short, true account of its plan) or an LLM teacher through any engine. Partners
are built exactly as in training (``partner`` section: persona players on training profiles), and
every example stores the very chat :func:`collabrl.agents.prompts.build_messages` gives the
policy, so SFT trains on the prompts the policy will see in rollouts and evaluation.

One example per JSONL line, in the conversational prompt/completion layout SFT tools read::

    {"prompt": [system, user], "completion": [{"role": "assistant", "content": "<think>..."}],
     "actions": [the available actions, in prompt order], "game", "task", "profile", "seat",
     "episode", "seed", "decision", "tick", "source", "success"}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tqdm import tqdm

from collabrl.agents.player import Player
from collabrl.agents.prompts import build_messages, role_prompt_stamp
from collabrl.agents.protocol import parse_observed
from collabrl.config import Recipe
from collabrl.config.sft import DemoSpec
from collabrl.envs.base import Game, Observation, format_response, letter
from collabrl.errors import CollabrlError, first_problem
from collabrl.prompt_files import PromptLayout
from collabrl.records import (
    check_complete,
    output_set,
    parse_jsonl,
    read_text,
    write_hf_dataset,
    write_jsonl,
)


def demos_path(recipe: Recipe, spec: DemoSpec) -> Path:
    """Where the demonstrations of ``recipe`` live (``<output_dir>/demos.jsonl`` by default)."""
    return Path(spec.path) if spec.path else Path(recipe.output_dir) / "demos.jsonl"


class Recorder:
    """Answers exactly like the wrapped player and keeps each decision's prompt (in the trained
    policy's ``layout``, whatever prompt an LLM teacher itself reads) and response."""

    def __init__(self, player: Player, game: Game, layout: PromptLayout = "paper") -> None:
        self.player, self.game, self.layout = player, game, layout
        self.name = player.name
        self.decisions: list[tuple[Observation, list[dict[str, str]], str]] = []

    def reset(self, seat: str, seed: int) -> None:
        self.player.reset(seat, seed)
        self.decisions = []

    def act(self, obs: Observation) -> str:
        response = self.player.act(obs)
        self.decisions.append((obs, build_messages(self.game, obs, layout=self.layout), response))
        return response


@dataclass
class DemoStats:
    """What a demo run produced (printed as its summary)."""

    episodes: int = 0
    successful: int = 0
    decisions: int = 0
    kept: int = 0
    invalid: int = 0  # demonstrator responses the parser rejected (never kept)
    by_task: dict[str, int] = field(default_factory=dict)


def episode_plans(recipe: Recipe, episodes: int) -> list[tuple[str, Any, int]]:
    """(task, partner profile or None, seed) per episode: profiles (or tasks, without profiles)
    are visited in a seeded random order, cycling, so a few episodes still cover many tasks."""
    from collabrl.training.groups import partner_profiles, task_names

    profiles = partner_profiles(recipe)
    rng = np.random.default_rng([recipe.seed, 7])
    pool = profiles or sorted(task_names(recipe))
    order = rng.permutation(len(pool))
    plans = []
    for k in range(episodes):
        item = pool[order[k % len(pool)]]
        seed = int(rng.integers(2**31))
        plans.append((item.task, item, seed) if profiles else (item, None, seed))
    return plans


def check_demo_recipe(recipe: Recipe) -> None:
    """Refuse, before anything is written, a recipe that cannot record demonstrations."""
    target = recipe.seat_players("demos")[recipe.rollout.lead_seat]
    if target.kind not in ("expert", "llm"):
        raise CollabrlError(
            f"players.{recipe.rollout.lead_seat}.kind={target.kind}: the demonstrator in the "
            "policy's seat must be an expert or an llm teacher"
        )
    if recipe.partner.kind == "self":
        raise CollabrlError(
            "partner.kind=self: a self-play partner needs a policy being trained; demonstrations "
            "are played beside persona, llm or expert partners"
        )


def record_demos(
    recipe: Recipe, spec: DemoSpec, stats: DemoStats | None = None, progress: bool = True
) -> Iterator[dict]:
    """Play ``spec.episodes`` episodes and yield one example per kept demonstrator decision
    (counted in ``stats``). Deterministic with the expert (and with a seeded teacher)."""
    from collabrl.episode import play_episode
    from collabrl.training.groups import GroupPlan, make_slots

    check_demo_recipe(recipe)
    target = recipe.players[recipe.rollout.lead_seat]
    teacher_engine = _engine(target.engine) if target.kind == "llm" else None
    partner_engine = _engine(recipe.partner.engine) if recipe.partner.kind == "llm" else None
    one_each = recipe.model_copy(
        update={"rollout": recipe.rollout.model_copy(update={"episodes_per_group": 1})}
    )
    stats = stats if stats is not None else DemoStats()
    plans = episode_plans(recipe, spec.episodes)
    for episode, (task, profile, seed) in enumerate(
        tqdm(plans, desc="demos", disable=not progress)
    ):
        (slot,) = make_slots(one_each, [GroupPlan(task, profile, seed)], partner_engine)
        demonstrator = _demonstrator(recipe, slot.game, teacher_engine, seed)
        recorder = Recorder(demonstrator, slot.game, recipe.policy.prompt)
        seats = {**slot.players, slot.policy_seat: recorder}
        record = play_episode(slot.game, seats, seed, slot.unusable_reply)
        success = _succeeded(record.summary)
        stats.episodes += 1
        stats.successful += success
        for k, (obs, messages, response) in enumerate(recorder.decisions):
            stats.decisions += 1
            parsed = parse_observed(response, obs)
            if not parsed.valid:
                stats.invalid += 1
                continue
            if spec.successful_only and not success:
                continue
            stats.kept += 1
            stats.by_task[task] = stats.by_task.get(task, 0) + 1
            yield {
                "prompt": messages,
                "completion": [
                    {"role": "assistant", "content": _styled(response, parsed, obs, spec)}
                ],
                "actions": obs.actions,
                "game": recipe.game.name,
                "prompt_version": role_prompt_stamp("agent", recipe.policy.prompt),
                "task": task,
                "profile": slot.profile_id,
                "seat": slot.policy_seat,
                "episode": episode,
                "seed": seed,
                "decision": k,
                "tick": obs.tick,
                "source": target.kind,
                "success": success,
            }


def _engine(spec):
    from collabrl.factory import make_engine_from_spec

    return make_engine_from_spec(spec)


def _demonstrator(recipe: Recipe, game: Game, teacher_engine, seed: int) -> Player:
    """The expert of the game, or an LLM teacher (no persona) sharing one engine."""
    from collabrl.factory import make_expert, make_llm_player

    target = recipe.players[recipe.rollout.lead_seat]
    if target.kind == "expert":
        return make_expert(recipe.game)
    return make_llm_player(
        teacher_engine,
        game,
        target.sampling,
        seed,
        role="agent",
        name="teacher",
        layout=target.prompt,
    )


def _styled(response: str, parsed, obs: Observation, spec: DemoSpec) -> str:
    """The response with its action as the demo's ``action_style`` asks (text: unchanged; a
    filled template such as ``wait(5)`` has no letter of its own and stays text)."""
    if spec.action_style == "text" or parsed.action not in obs.actions:
        return response
    choice = letter(obs.actions.index(parsed.action))
    return format_response(parsed.think, parsed.message, choice)


def _succeeded(summary: dict[str, Any]) -> bool:
    """Household: the task was finished; kitchen: at least one soup was served."""
    if "success" in summary:
        return bool(summary["success"])
    return summary.get("score", 0) > 0


def write_demos(rows: list[dict], path: Path) -> Path:
    """Write ``rows`` as JSONL at ``path`` and as an HF dataset next to it; returns the dataset.

    The two appear together (:func:`collabrl.records.output_set`, named after the JSONL file): a
    killed run leaves the previous pair, or a mix that :func:`read_demos` refuses.
    """
    folder = path.with_suffix(".hf")
    with output_set(path.parent, path.name) as staging:
        write_jsonl(staging / path.name, rows)
        write_hf_dataset(staging / folder.name, rows)
    return folder


class DemoMessage(BaseModel):
    """One chat message of a demonstration (other keys, such as ``name``, pass through)."""

    model_config = ConfigDict(extra="allow", strict=True)

    role: Literal["system", "user", "assistant"]
    content: str


class AssistantMessage(DemoMessage):
    """The answer SFT teaches: it must be the assistant's."""

    role: Literal["assistant"]


class DemoRow(BaseModel):
    """What SFT reads of a demonstration line: the prompt chat and the one assistant answer.

    The other keys (game, task, seed, ...) are metadata, kept but not required, so demonstrations
    from other tools in the same prompt/completion layout load too.
    """

    model_config = ConfigDict(extra="allow", strict=True)

    prompt: list[DemoMessage] = Field(min_length=1)
    completion: list[AssistantMessage] = Field(min_length=1, max_length=1)


def read_demos(path: Path) -> list[dict]:
    """Examples from a demos JSONL file, each checked against :class:`DemoRow`: a malformed file
    is a one-line error naming ``file:line``, not a KeyError deep inside tokenisation; so is a
    file that a killed ``collabrl demos`` left half replaced (see :func:`write_demos`)."""
    if not path.is_file():
        raise CollabrlError(f"no demonstrations at {path}: run `collabrl demos RECIPE` first")
    check_complete(path, path.name, "rerun `collabrl demos RECIPE`")
    rows = parse_jsonl(str(path), read_text(path))
    for number, row in rows:
        try:
            DemoRow.model_validate(row)
        except ValidationError as err:
            raise CollabrlError(f"{path}:{number}: {first_problem(err)}") from None
    if not rows:
        raise CollabrlError(f"{path}: no demonstrations in file")
    return [row for _, row in rows]
