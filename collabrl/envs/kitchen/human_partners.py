"""The kitchen's human partners: what ``collabrl partners`` and ``partner.kind=human_proxy`` use
(``KitchenSection.human_partners``; the core names no game and reaches these through it).

Recorded human play (overcooked-ai's trials, or kitchen trajectory records such as a study
export), human proxies built per layout from it, and the human-likeness statistics of
:mod:`collabrl.envs.kitchen.likeness` for recorded and simulated play alike; and the partners
trained without people that they are compared with, the self-play and FCP populations of
:mod:`collabrl.envs.kitchen.population` (``partner.kind=population``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from collabrl.envs.kitchen.human_data import HumanSplit, HumanTrial, trials_for
from collabrl.envs.kitchen.human_proxy import (
    HumanProxy,
    proxy_folder,
    samples,
    save_proxy,
    train_proxy,
)
from collabrl.envs.kitchen.human_records import trial_from_record, trial_record
from collabrl.envs.kitchen.layouts import LAYOUT_NAMES, load_layout
from collabrl.envs.kitchen.likeness import STATISTICS, Play, PlayRecorder, statistics
from collabrl.envs.kitchen.paper_baselines import TABLE_5
from collabrl.envs.kitchen.population import (
    PopulationPartner,
    member_names,
    train_cole_agent,
    train_fcp,
    train_mep,
    train_pbt_population,
    train_selfplay,
)
from collabrl.envs.kitchen.ppo import PPOSettings
from collabrl.envs.kitchen.proxy_features import Featurizer
from collabrl.envs.kitchen.section import KitchenSection
from collabrl.errors import CollabrlError

TRIAL_TICKS = 1200  # a recorded trial's length (180 s of play), the horizon of simulated play


def as_play(trial: HumanTrial) -> Play:
    return Play(trial.layout, list(trial.states), list(trial.actions), list(trial.rewards))


class KitchenHumanPartners:
    """Recorded human play, human proxies and human-likeness statistics for the kitchen."""

    statistics: tuple[str, ...] = STATISTICS
    ticks = TRIAL_TICKS
    paper_baselines = TABLE_5

    def tasks(self) -> tuple[str, ...]:
        return LAYOUT_NAMES

    def trials(self, split: HumanSplit, data: Path | None = None) -> list[HumanTrial]:
        """Every recorded trial of ``split`` (verified on load)."""
        return trials_for(split, folder=data)

    def records(self, split: HumanSplit, data: Path | None = None) -> list[dict[str, Any]]:
        """The trials of ``split`` as trajectory records (``collabrl view`` draws them)."""
        return [trial_record(t) for t in self.trials(split, data)]

    def build(
        self,
        out: Path | None = None,
        *,
        data: Path | None = None,
        records: Sequence[dict[str, Any]] = (),
        seed: int | None = None,
        epochs: int | None = None,
        progress: Callable[[str], None] = lambda _: None,
    ) -> list[dict[str, Any]]:
        """Train and store one proxy per layout that has recorded play: from ``records`` (kitchen
        trajectory records with a frame per tick) when given, else from the train trials; each
        scored on the test trials when those are at hand; ``seed`` for every layout, else each
        layout's chosen one (``human_proxy.BUILD_SEEDS``). Returns every proxy's facts."""
        if records:
            train = [
                trial_from_record(r, "train", f"record {i + 1}") for i, r in enumerate(records)
            ]
            test: list[HumanTrial] = []
        else:
            train = self.trials("train", data)
            test = self.trials("test", data)
        by_layout: dict[str, list[HumanTrial]] = defaultdict(list)
        for trial in train:
            by_layout[trial.layout].append(trial)
        folder = proxy_folder(out)
        built = []
        for layout in (name for name in LAYOUT_NAMES if name in by_layout):
            progress(layout)
            options = {} if epochs is None else {"epochs": epochs}
            model = train_proxy(layout, by_layout[layout], seed=seed, **options)
            held_out = [t for t in test if t.layout == layout]
            if held_out:
                x, y = samples(held_out, Featurizer(load_layout(layout)))
                model.facts["test"] = model.scores(x, y)
            save_proxy(model, folder)
            built.append(model.facts)
        if not built:
            raise CollabrlError("no recorded kitchen play to build human proxies from")
        return built

    def player(self, folder: Path | None = None, draws: int | None = None) -> HumanProxy:
        return HumanProxy(folder, draws=draws)

    def population_player(
        self, members: Sequence[str] = (), folder: Path | None = None, draws: int | None = None
    ) -> PopulationPartner:
        return PopulationPartner(members, folder, draws)

    def members(self, task: str, folder: Path | None = None) -> list[str]:
        """The stored population members of ``task``."""
        return member_names(task, folder)

    def train_population(
        self,
        method: str,
        task: str,
        *,
        seed: int = 0,
        updates: int | None = None,
        folder: Path | None = None,
        progress: Callable[[int, float], None] = lambda update, score: None,
    ) -> dict[str, Any]:
        """Train and store population member ``method`` ("sp", "fcp", "mep", "pbt" or "cole") of
        ``task``; its facts."""
        trainers = {
            "sp": train_selfplay,
            "fcp": train_fcp,
            "mep": train_mep,
            "pbt": train_pbt_population,
            "cole": train_cole_agent,
        }
        settings = PPOSettings() if updates is None else PPOSettings(updates=updates)
        return trainers[method](
            task, seed=seed, settings=settings, folder=folder, progress=progress
        )

    def section(self, task: str, *, proxy_seats: Sequence[str] = ()) -> KitchenSection:
        """The kitchen on ``task`` for a trial's length; ``proxy_seats`` play at the motion
        level (human proxies)."""
        return KitchenSection(layout=task, horizon=self.ticks, motion_seats=list(proxy_seats))  # type: ignore[arg-type]

    def for_proxies(self, section: KitchenSection, seats: Sequence[str]) -> KitchenSection:
        """``section`` with ``seats`` made motion seats (where human proxies play)."""
        merged = [s for s in section.seats if s in seats or s in section.motion_seats]
        return type(section).model_validate({**section.model_dump(), "motion_seats": merged})

    def recorder(self, game: Any) -> PlayRecorder:
        return PlayRecorder(game)

    def trial_task(self, trial: HumanTrial) -> str:
        return trial.layout

    def measure_trial(self, trial: HumanTrial) -> dict[str, float]:
        return statistics(as_play(trial))

    def measure(self, play: Play) -> dict[str, float]:
        return statistics(play)


HUMAN_PARTNERS = KitchenHumanPartners()
