"""Kitchen partner populations: SP, FCP, MEP, PBT and COLE agents, stored and played.

``train_selfplay`` trains one self-play PPO agent (:mod:`collabrl.envs.kitchen.ppo`) and keeps
its checkpoints at the start, middle and end of training (``sp<seed>_init``, ``sp<seed>_mid50``,
``sp<seed>_final``): partners of three skill levels. ``train_fcp`` trains a Fictitious Co-Play
agent (Strouse et al. 2021) against every self-play checkpoint stored for the layout
(``fcp<seed>``). ``train_mep`` trains Maximum-Entropy Population training's members
(``mep<seed>_p<k>_<stage>``) and then its agent against them (``mep<seed>``). ``train_pbt``
trains a population-based-training population (``pbt<seed>_p<k>_<stage>``) and keeps its best
final member as ``pbt<seed>``. ``train_cole_agent`` trains a COLE agent (``cole<seed>``) that
grows its own population, a snapshot a generation (``cole<seed>_g<k>``). Members are stored per
layout as ``<layout>/<name>.safetensors`` with a ``<name>.json`` of facts (seed, settings, CPU
seconds, training scores) in the population folder: ``$COLLABRL_POPULATIONS``, else
``$XDG_CACHE_HOME/collabrl/populations``. A stored member is never retrained unless asked (the
folder is the cache).

:class:`PopulationPartner` plays a kitchen motion seat with a member drawn per episode seed (the
same seed, the same member: one member per training group), sampling its actions, seeded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any
from zlib import crc32

from collabrl.envs.kitchen.layouts import LAYOUT_NAMES
from collabrl.envs.kitchen.motion_partner import (
    MotionModel,
    MotionPartner,
    cache_folder,
    load_model,
    save_model,
)
from collabrl.envs.kitchen.population_training import (
    train_cole,
    train_entropy_population,
    train_pbt,
)
from collabrl.envs.kitchen.ppo import DEFAULT_SETTINGS, PPOSettings, TrainResult, train
from collabrl.errors import CollabrlError

MEP_MEMBERS = 3
"""MEP's population size: collabrl's choice for a CPU budget (each member costs a self-play run)."""
MEP_ALPHA = 0.01
"""Weight of MEP's population-entropy reward per tick (a soup is worth 20; a tick's bonus is at
most ``alpha * log 6``, 0.018): collabrl's choice, large enough to spread the members' moves and
small beside the shaping rewards."""
MEP_PRIORITY = 3.0
"""Exponent of MEP's rank-based prioritised sampling of partners for its agent: collabrl's
choice (the partner the agent scores least beside is drawn ``K ** 3`` times as often as the
best one)."""
PBT_MEMBERS = 3
"""PBT's population size: collabrl's choice for a CPU budget (Carroll et al. 2019 train three)."""
PBT_READY = 20
"""Updates between PBT's exploit-and-explore steps: collabrl's choice (ten of them in 200)."""
COLE_GENERATIONS = 4
"""COLE's generations (the population grows by one snapshot each): collabrl's choice for a CPU
budget of one agent's 200 updates (Li et al. train far longer and larger populations)."""
COLE_PRIORITY = MEP_PRIORITY
"""Exponent of COLE's rank-based draw over the members' Shapley values (the least cooperative
member ranks highest): the same choice as MEP's."""
COLE_EPISODES = 2
"""Episodes per pair when COLE scores its population's cross-play game (one in each seat
order)."""
FOLDER_VARIABLE = "COLLABRL_POPULATIONS"
TRAIN_HINT = "train them with: collabrl partners train-sp LAYOUT (then train-fcp LAYOUT)"


def population_folder(folder: Path | None = None) -> Path:
    """Where populations are stored: ``folder``, ``$COLLABRL_POPULATIONS`` or the user cache."""
    return cache_folder(folder, FOLDER_VARIABLE, "populations")


def save_member(model: MotionModel, name: str, folder: Path | None = None) -> Path:
    """Write member ``name`` of ``model.layout``'s population (weights and facts)."""
    return save_model(model, population_folder(folder) / model.layout / f"{name}.safetensors")


def member_names(layout: str, folder: Path | None = None) -> list[str]:
    """The stored members of ``layout``'s population, sorted by name."""
    where = population_folder(folder) / layout
    return sorted(p.stem for p in where.glob("*.safetensors"))


@cache
def load_member(layout: str, name: str, folder: Path | None = None) -> MotionModel:
    """Stored member ``name`` of ``layout``; a missing or unreadable one is a one-line error."""
    if layout not in LAYOUT_NAMES:
        raise CollabrlError(f"no partner population for kitchen layout {layout!r}")
    where = population_folder(folder) / layout
    missing = f"no population member {name!r} for {layout} in {where}; {TRAIN_HINT}"
    return load_model(layout, where / f"{name}.safetensors", "population member", missing, "")


def _facts(kind: str, layout: str, seed: int, settings: PPOSettings, **more: Any) -> dict:
    return {"kind": kind, "layout": layout, "seed": seed, **dataclasses.asdict(settings), **more}


def _run_facts(
    kind: str, layout: str, seed: int, settings: PPOSettings, result: TrainResult, **more: Any
) -> dict:
    """:func:`_facts` of one training run, with its CPU seconds and its score per update."""
    return _facts(
        kind,
        layout,
        seed,
        settings,
        **{"cpu_seconds": round(result.cpu_seconds, 1), "scores": result.scores, **more},
    )


def _save_agent(result: TrainResult, name: str, facts: dict, folder: Path | None) -> None:
    """Store ``result``'s final checkpoint as member ``name``, with ``facts`` (over any the
    checkpoint already carries)."""
    final = result.checkpoints["final"]
    save_member(MotionModel(final.layout, final.weights, {**final.facts, **facts}), name, folder)


def _save_checkpoints(result: TrainResult, name: str, facts: dict, folder: Path | None) -> None:
    """Store each checkpoint of ``result`` as member ``<name>_<stage>``, with ``facts``."""
    for stage, model in result.checkpoints.items():
        model.facts = {**facts, "stage": stage, **model.facts}
        save_member(model, f"{name}_{stage}", folder)


def train_selfplay(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    folder: Path | None = None,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> dict[str, Any]:
    """Train and store self-play agent ``sp<seed>`` of ``layout`` with its checkpoints; returns
    its facts (CPU seconds, the last update's mean training score)."""
    result = train(layout, seed=seed, settings=settings, progress=progress)
    facts = _run_facts("sp", layout, seed, settings, result)
    _save_checkpoints(result, f"sp{seed}", facts, folder)
    return facts


def fcp_pool(layout: str, folder: Path | None = None) -> list[str]:
    """Fictitious Co-Play's partner pool: every stored self-play checkpoint of ``layout``."""
    pool = [name for name in member_names(layout, folder) if name.startswith("sp")]
    if not pool:
        raise CollabrlError(f"no self-play agents for {layout} to build FCP's pool; {TRAIN_HINT}")
    return pool


def train_fcp(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    folder: Path | None = None,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> dict[str, Any]:
    """Train and store FCP agent ``fcp<seed>`` of ``layout`` against :func:`fcp_pool`."""
    names = fcp_pool(layout, folder)
    pool = [load_member(layout, name, folder) for name in names]
    result = train(layout, seed=seed, settings=settings, pool=pool, progress=progress)
    facts = _run_facts("fcp", layout, seed, settings, result, pool=names)
    _save_agent(result, f"fcp{seed}", facts, folder)
    return facts


def mep_pool(layout: str, seed: int, folder: Path | None = None) -> list[str]:
    """MEP's partner pool for agent ``mep<seed>``: its population's middle and final checkpoints
    (two skill levels of each member; the untrained ``init`` ones are left out)."""
    prefix = f"mep{seed}_p"
    pool = [
        n for n in member_names(layout, folder) if n.startswith(prefix) and not n.endswith("_init")
    ]
    if not pool:
        raise CollabrlError(f"no MEP population mep{seed} for {layout}; train it with train-mep")
    return pool


def train_mep(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    members: int = MEP_MEMBERS,
    alpha: float = MEP_ALPHA,
    folder: Path | None = None,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> dict[str, Any]:
    """Maximum-Entropy Population training on ``layout``: ``members`` self-play agents trained
    together with the population-entropy reward (stored with their checkpoints as
    ``mep<seed>_p<k>_<stage>``), then agent ``mep<seed>`` trained against :func:`mep_pool` with
    prioritised sampling; returns the agent's facts (CPU seconds of both stages)."""
    seeds = [seed * 1000 + k for k in range(members)]
    population = train_entropy_population(
        layout, seeds=seeds, alpha=alpha, settings=settings, progress=progress
    )
    for k, member in enumerate(population):
        facts = _run_facts("mep-member", layout, seeds[k], settings, member, alpha=alpha)
        _save_checkpoints(member, f"mep{seed}_p{k}", facts, folder)
    stage_one = sum(member.cpu_seconds for member in population)
    names = mep_pool(layout, seed, folder)
    pool = [load_member(layout, name, folder) for name in names]
    agent_settings = dataclasses.replace(settings, priority=MEP_PRIORITY)
    result = train(layout, seed=seed, settings=agent_settings, pool=pool, progress=progress)
    facts = _run_facts(
        "mep",
        layout,
        seed,
        agent_settings,
        result,
        members=members,
        alpha=alpha,
        pool=names,
        population_cpu_seconds=round(stage_one, 1),
        cpu_seconds=round(stage_one + result.cpu_seconds, 1),
    )
    _save_agent(result, f"mep{seed}", facts, folder)
    return facts


def train_pbt_population(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    members: int = PBT_MEMBERS,
    folder: Path | None = None,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> dict[str, Any]:
    """Population-based training on ``layout`` (:func:`~collabrl.envs.kitchen.population_training.train_pbt`):
    stores each member with its checkpoints (``pbt<seed>_p<k>_<stage>``) and the member with the
    best last-``PBT_READY``-updates training score again as ``pbt<seed>``, the PBT agent; returns
    its facts (the CPU seconds are the whole population's)."""
    seeds = [seed * 1000 + k for k in range(members)]
    results, hyper = train_pbt(
        layout, seeds=seeds, settings=settings, ready=PBT_READY, progress=progress
    )
    total = sum(r.cpu_seconds for r in results)
    recent = [sum(r.scores[-PBT_READY:]) / max(1, len(r.scores[-PBT_READY:])) for r in results]
    best = max(range(members), key=lambda k: recent[k])
    for k, member in enumerate(results):
        facts = _run_facts("pbt-member", layout, seeds[k], settings, member, **hyper[k])
        _save_checkpoints(member, f"pbt{seed}_p{k}", facts, folder)
    facts = _run_facts(
        "pbt",
        layout,
        seed,
        settings,
        results[best],
        members=members,
        ready=PBT_READY,
        best=f"pbt{seed}_p{best}",
        hyperparameters=hyper,
        cpu_seconds=round(total, 1),
    )
    _save_agent(results[best], f"pbt{seed}", facts, folder)
    return facts


def train_cole_agent(
    layout: str,
    *,
    seed: int = 0,
    settings: PPOSettings = DEFAULT_SETTINGS,
    generations: int = COLE_GENERATIONS,
    folder: Path | None = None,
    progress: Callable[[int, float], None] = lambda update, score: None,
) -> dict[str, Any]:
    """COLE on ``layout`` (:func:`~collabrl.envs.kitchen.population_training.train_cole`):
    stores each generation's snapshot (``cole<seed>_g<k>``, ``g0`` untrained) and the final
    learner as ``cole<seed>``, whose facts carry each generation's cross-play game and Shapley
    values."""
    result, population, games = train_cole(
        layout,
        seed=seed,
        generations=generations,
        priority=COLE_PRIORITY,
        episodes=COLE_EPISODES,
        settings=settings,
        progress=progress,
    )
    facts = _run_facts(
        "cole",
        layout,
        seed,
        settings,
        result,
        generations=generations,
        priority=COLE_PRIORITY,
        games=games,
    )
    for k, member in enumerate(population[:-1]):
        member.facts = {**facts, "stage": f"generation {k}", **member.facts}
        save_member(member, f"cole{seed}_g{k}", folder)
    _save_agent(result, f"cole{seed}", facts, folder)
    return facts


def draw_member(members: Sequence[str], seed: int) -> str:
    """The member playing episodes of ``seed`` (one per training group), reproducibly."""
    if not members:
        raise CollabrlError(f"an empty partner population; {TRAIN_HINT}")
    return members[crc32(f"population:{seed}".encode()) % len(members)]


class PopulationPartner(MotionPartner):
    """A kitchen seat played by a member of a trained population, one low-level action a tick.

    ``members``: the names to draw from (empty: every stored member of the layout but the
    untrained ``*_init`` checkpoints). Needs a motion seat, as a human proxy does."""

    name = "population"
    who = "a population member"
    stream = "population"

    def __init__(
        self, members: Sequence[str] = (), folder: Path | None = None, draws: int | None = None
    ) -> None:
        super().__init__(draws)
        self.members, self.folder = tuple(members), folder
        self.member = ""

    def reset(self, seat: str, seed: int) -> None:
        super().reset(seat, seed)
        self.member = ""

    def model(self, layout: str) -> MotionModel:
        if not self.member:
            members = self.members or [
                m for m in member_names(layout, self.folder) if not m.endswith("_init")
            ]
            self.member = draw_member(members, self.seed)
        return load_member(layout, self.member, self.folder)
